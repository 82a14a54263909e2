"""Real-browser test of the Simulate page's sweep viewer: open a sweep from the server's sweeps folder, switch the
x-axis and the plotted quantity several times in a row (widget, URL and figure follow each change), then upload the
same sweep as a zip and a file that is not a sweep."""

import io
import os
import zipfile
from pathlib import Path

import pytest

from conftest import CHROMIUM, ROOT, new_page, query_of as _query, settle as _settle, wait_query as _wait_query
from conftest import wait_text as _wait_text

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 60000


@pytest.fixture(scope="module", autouse=True)
def sweeps_dir(tmp_path_factory):
    """A sweeps folder with one sweep; the server started by the ``server`` fixture inherits DPVIZ_SWEEPS_DIR."""
    from test_sweep_open import make_sweep

    base = tmp_path_factory.mktemp("browser-sweeps")
    spec = make_sweep(base / "rate-study")
    old = os.environ.get("DPVIZ_SWEEPS_DIR")
    os.environ["DPVIZ_SWEEPS_DIR"] = str(base)
    yield base, spec
    if old is None:
        os.environ.pop("DPVIZ_SWEEPS_DIR", None)
    else:
        os.environ["DPVIZ_SWEEPS_DIR"] = old






def _checked(page, key) -> str:
    return page.locator(f".st-key-{key} label:has(input:checked)").inner_text().strip()



def _toggle_four_times(page, name: str, on_text: str, off_text: str) -> None:
    """Click the checkbox ``w_<name>`` off / on / off / on: after each click the URL (``<name>=False`` when off, no
    parameter when on, the default), the caption naming the state and the box itself."""
    for on in [False, True, False, True]:
        page.locator(f".st-key-w_{name} label").click()
        if on:
            page.wait_for_function("n => !new URLSearchParams(window.location.search).has(n)", arg=name,
                                   timeout=WAIT)
            _caption_with(page, on_text)
        else:
            _wait_query(page, name, "False")
            _caption_with(page, off_text)
        _settle(page)
        assert page.locator(f".st-key-w_{name} input").is_checked() == on

def test_open_a_sweep_switch_x_and_quantity_then_upload(server, sweeps_dir, module_browser):
    from dpviz_ui import sweep_open as so

    base, spec = sweeps_dir
    data = so.open_sweep_dir(base, "rate-study")
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 1800})
    page.goto(f"{server}/simulate?sim_source=sweep")
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=WAIT)
    _settle(page)
    assert _query(page).get("sweep_dir") == "rate-study"
    assert page.locator("[data-testid='stException']").count() == 0
    quantities = {"excess_risk": "Excess risk", "metric": "Test mse", "pop_risk": "Population risk"}
    for x, q in [("eps", "metric"), ("n", "pop_risk"), ("eps", "excess_risk"), ("n", "metric")]:
        label = {"eps": "ε", "n": "n"}[x]
        page.locator(".st-key-w_sweep_x").get_by_text(label, exact=True).click()
        _wait_query(page, "sweep_x", x)
        _settle(page)
        page.locator(".st-key-w_plot_value").get_by_text(
            {"excess_risk": "excess risk", "metric": "test metric (misclassification rate, MSE or AUC)",
             "pop_risk": "population risk"}[q], exact=True).click()
        if q != "excess_risk":
            _wait_query(page, "plot_value", q)
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('plot_value')",
                                   timeout=WAIT)
        _settle(page)
        assert _checked(page, "w_sweep_x") == label
        _wait_text(page, ".gtitle", f"{quantities[q]} vs {label}")
        _wait_text(page, ".gtitle", spec.hash)
        # the first DP-SGD curve's mean at its first point, as the table of the page (and load_sweep) gives it
        lab, res = [(lab, r) for lab, r in data.results(x, q) if r.algorithm == "dpsgd-rdp"][0]
        assert page.get_by_text(f"DP-SGD (gradient perturbation, Rényi accounting) ({lab}): fitted log-log "
                                f"slope {res.slope(q)['slope']:.2f}").count() == 1
        assert _query(page)["sweep_x"] == x
    page.screenshot(path=str(out / "simulate_sweep.png"), full_page=True)
    # the same sweep uploaded as a zip: same figure
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted((base / "rate-study").iterdir()):
            zf.write(p, "rate-study/" + p.name)
    page.locator(".st-key-w_sweep_how").get_by_text("upload a sweep", exact=False).click()
    _settle(page)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
        files=[{"name": "rate-study.zip", "mimeType": "application/zip", "buffer": buf.getvalue()}])
    _wait_text(page, ".gtitle", "rate-study.zip")
    _settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(out / "simulate_sweep_upload.png"), full_page=True)
    # a Parquet file that is not a sweep: one clear error, no figure
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
        files=[{"name": "evil.parquet", "mimeType": "application/octet-stream", "buffer": b"not parquet"}])
    _wait_text(page, "[data-testid='stAlert']", "not a Parquet file")
    _settle(page)
    assert page.locator(".js-plotly-plot").count() == 0
    page.close()


def _caption_with(page, text) -> str:
    _wait_text(page, "[data-testid='stCaptionContainer']", text)
    return [c for c in page.locator("[data-testid='stCaptionContainer']").all_inner_texts() if text in c][0]


def test_source_projection_and_G_four_times_each(server, sweeps_dir, module_browser):
    base, spec = sweeps_dir
    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 1800})
    page.goto(f"{server}/simulate?n=200&T=50&reps=5&dataset=wang-least-squares&sim_loss=least-squares")
    page.wait_for_selector(".st-key-w_sim_source", timeout=WAIT)
    _settle(page)
    # where the results come from: run, sweep, run, sweep -- the URL and what is shown follow
    for src in ["sweep", "run", "sweep", "run"]:
        page.locator(".st-key-w_sim_source").get_by_text(
            "a sweep's output" if src == "sweep" else "a simulation run on this page", exact=False).click()
        if src == "sweep":
            _wait_query(page, "sim_source", "sweep")
            _wait_text(page, ".gtitle", spec.hash)
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('sim_source')",
                                   timeout=WAIT)
            _caption_with(page, "Estimated run time")
        _settle(page)
        assert _checked(page, "w_sim_source").startswith("a sweep" if src == "sweep" else "a simulation")
    # least squares on the unit ball, sup ||x|| = 1: the loss's G = 1 * (1 * 1 + 1) = 2
    assert "G = 2 (from the loss" in _caption_with(page, "Noise calibrated to")
    page.get_by_text("Domain and Lipschitz constant G of the noise", exact=False).click()
    # projection off / on / off / on
    _toggle_four_times(page, "sim_project", "projected onto ||w|| ≤ R = 1.", "not projected (W = R^d)")
    # G from the loss off / on / off / on (with projection)
    _toggle_four_times(page, "sim_G_auto", "G = 2 (from the loss", "G = 1 (given)")
    # the given G four times (the presets test checks that a run uses it: tests/test_presets.py)
    page.locator(".st-key-w_sim_G_auto label").click()
    _wait_query(page, "sim_G_auto", "False")
    _settle(page)
    for g in [1.5, 2.5, 0.5, 3]:
        box = page.locator(".st-key-w_G input")
        box.fill(str(g))
        box.press("Enter")
        _wait_query(page, "G", repr(float(g)))
        _caption_with(page, f"G = {g:g} (given)")
        _settle(page)
        assert float(page.locator(".st-key-w_G input").input_value()) == g
    page.screenshot(path=str(ROOT / "test-artifacts" / "simulate_domain_G.png"), full_page=True)
    page.close()
