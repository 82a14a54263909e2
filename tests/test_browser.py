"""Real-browser smoke test: streamlit run + Debian Chromium via Playwright; screenshots into test-artifacts/."""

import os
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, ROOT, settle  # noqa: E402  (the server fixture lives in conftest.py)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

# the very first visit of a server no one has visited yet (below): this module does not share the session's server
pytestmark = [pytest.mark.fresh_server, pytest.mark.browser]


def test_every_page_draws_a_chart(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2600})
        # the very first visit of this fresh server follows a shared link to a page (not the home page): the app's
        # own navigation must still be used (page titles in the sidebar) and the link's values must be in the widgets
        page.goto(f"{server}/calibrate?n=12345&eps=0.25&algorithm=dpsgd-output")
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=40000)
        settle(page)  # the run that drew the chart has finished
        nav = [t.strip() for t in page.locator("[data-testid='stSidebarNav']").inner_text().splitlines() if t.strip()]
        assert nav[:5] == ["Home", "Check a run", "Calibrate", "Bounds", "Simulate"], nav
        values = page.locator("input").evaluate_all("els => els.map(e => e.value)")
        assert "12345" in values and "0.25" in values
        shown = " ".join(values) + page.locator("[data-testid='stSelectbox']").first.inner_text()
        assert "DP-SGD-Output" in shown
        page.goto(server)
        page.wait_for_selector("text=Preset gallery", timeout=30000)
        page.screenshot(path=str(out / "home.png"))
        for name in ("calibrate", "bounds"):
            page.goto(f"{server}/{name}")
            page.wait_for_selector(".js-plotly-plot", state="attached", timeout=40000)
            settle(page)  # the run that drew the chart has finished
            assert page.locator("[data-testid='stException']").count() == 0
            page.screenshot(path=str(out / f"{name}.png"), full_page=True)
        # a small simulation through the UI
        page.goto(f"{server}/simulate?T=30&n=200")
        page.get_by_role("button", name="Run simulation").click()
        page.wait_for_selector(".js-plotly-plot", timeout=60000)
        settle(page)  # the run that drew the chart has finished
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.get_by_text("fitted log-log slope").count() >= 1
        page.screenshot(path=str(out / "simulate.png"), full_page=True)
        # a user's CSV: upload, name the label column, run
        rng = __import__("random").Random(0)
        rows = ["a,b,c,y"]
        for _ in range(300):
            a, b, c = (rng.uniform(-1, 1) for _ in range(3))
            rows.append(f"{a:.4f},{b:.4f},{c:.4f},{0.5 * a - 0.2 * b + 0.05 * rng.gauss(0, 1):.4f}")
        csv_path = out / "upload.csv"
        csv_path.write_text("\n".join(rows) + "\n")
        page.goto(f"{server}/simulate?T=30&n=200&reps=5")
        page.get_by_text("upload a CSV").click()
        page.locator("input[type=file]").set_input_files(str(csv_path))
        label = page.get_by_label("Label column", exact=True).and_(page.locator("input"))
        label.fill("y")
        label.press("Enter")
        page.get_by_role("button", name="Run simulation").click()
        page.wait_for_selector(".js-plotly-plot", timeout=60000)
        settle(page)  # the run that drew the chart has finished
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.get_by_text("fitted log-log slope").count() >= 1
        page.screenshot(path=str(out / "simulate_csv.png"), full_page=True)
        # one click on a preset of the gallery loads a paper's setting
        page.goto(server)
        page.get_by_role("button", name="Wang et al. (non-smooth) Lemma 13 region").click()
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=40000)
        settle(page)  # the run that drew the chart has finished
        assert "n=10000" in page.url
        assert page.locator("[data-testid='stException']").count() == 0
        browser.close()
