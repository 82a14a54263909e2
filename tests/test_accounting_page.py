"""AppTest checks of the Accounting page: default run, several widget changes (table, URL), URL values validated."""

import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import open_page
from dpviz.labs import privacy_lab as pl

APP = Path(__file__).resolve().parent.parent / "app.py"


def _page(query=None):
    return open_page("pages/accounting.py", query)


def _table(at):
    return at.dataframe[0].value


def _row(at, prefix):
    df = _table(at)
    hit = df[df["accountant"].str.startswith(prefix)]
    assert len(hit) == 1, list(df["accountant"])
    return hit.iloc[0]


def _q(at, name):
    val = at.query_params[name]
    return val if isinstance(val, str) else val[0]


def test_accounting_page_changes_inputs_several_times():
    # an old link (acc_* names) opens with the shared entries; acc_log10_delta fixes δ = 1e-6 (δ = 1/n² unticked)
    at = _page(query={"acc_algorithm": "dpgd-sc", "acc_mu": "0.5", "acc_log10_delta": "-6"})
    assert not at.error
    assert at.selectbox(key="w_algorithm").value == "dpgd-sc"
    # default n = 1000, eps = 1, delta = 1e-6, G = 1, mu = 0.5: paper sigma = 8 sqrt(2 ln(1.25e6))/(0.5*1000*1)
    #   = 8 * 5.298803 / 500 = 0.0847808
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.08478, rel=1e-3)
    # 1. eps = 0.5: the paper's sigma doubles
    at.text_input(key="w_eps").set_value("0.5").run()
    assert not at.exception and not at.error
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.1696, rel=1e-3)
    assert _q(at, "eps") == "0.5"
    # 2. n = 4e3 (scientific notation): four times less noise; the exact accountant's sigma is recomputed
    at.text_input(key="w_n").set_value("4e3").run()
    assert not at.exception
    assert at.text_input(key="w_n").value == "4000" and _q(at, "n") == "4000"
    mech = pl.mechanism("dpgd-sc", n=4000, eps=0.5, delta=1e-6, G=1.0, mu=0.5)
    exact = pl.sigma_for(mech, pl.accountants(mech)[0], 0.5)
    assert float(_row(at, "matched, exact")["σ for ε"]) == pytest.approx(exact, rel=1e-3)
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.1696 / 4, rel=1e-3)
    # 3. your sigma: a column with the eps it buys appears
    at.text_input(key="w_acc_sigma").set_value("0.05").run()
    assert not at.exception
    assert float(_row(at, "matched, exact")["ε of your σ"]) == pytest.approx(
        pl.epsilon(mech, pl.accountants(mech)[0], 0.05), rel=1e-3)
    # 4. another algorithm: DPGDC2, full batch
    at.selectbox(key="w_algorithm").set_value("dpgd-c").run()
    assert not at.exception and not at.error
    assert _row(at, "matched, exact")["sampling / relation"] == "full-batch, replace-one"
    assert _q(at, "algorithm") == "dpgd-c"
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(figs) == 3
    trade = [f for f in figs if f["layout"]["title"]["text"].startswith("Trade-off")]
    assert len(trade) == 1  # the matched mechanism's f-DP curve at your σ: exact for Gaussian releases
    assert any(t["name"].startswith("mechanism's exact curve at your σ = 0.05") for t in trade[0]["data"])
    figs = [f for f in figs if f not in trade]
    for f in figs:  # log axes with powers of ten, never SI prefixes
        assert f["layout"]["xaxis"]["exponentformat"] == "power" and f["layout"]["yaxis"]["type"] == "log"


def test_accounting_page_url_values_validated():
    at = AppTest.from_file(str(APP), default_timeout=60)  # a link that opens this page (its first run)
    for k, val in {"algorithm": "dpgd-sc", "mu": "0.5", "n": "100000000000", "eps": "abc",
                   "acc_calc_sampling": "rm -rf", "acc_bogus": "1"}.items():
        at.query_params[k] = val
    at.switch_page("pages/accounting.py").run()
    assert not at.exception
    assert at.text_input(key="w_n").value == "1000"  # out of every page's range: ignored, default
    assert at.text_input(key="w_eps").value == "1"  # bad value ignored: default
    assert at.selectbox(key="w_acc_calc_sampling").value == "poisson"
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1  # one notice for all of them
    text = warnings[0].replace("\\", "")  # markdown-escaped: acc\\_bogus is shown as acc_bogus
    assert "eps" in text and "acc_bogus" in text and "acc_calc_sampling" in text and "n must be" in text
    # Xue et al. Algorithm 1 at n = 1000, delta = 1/n^2: sigma = 8 sqrt(2 ln(1.25e6))/(0.5 * 1000) = 0.08478
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.08478, rel=1e-3)


def test_accounting_page_limit_from_the_shared_view_is_one_error():
    # n = 5e7 is a valid view (Calibrate takes it) but above this page's 10^7: one error naming n and the range,
    # no table, no download; the calculator (its own inputs) still works
    at = _page(query={"n": "50000000"})
    assert not at.exception
    assert len(at.error) == 1 and "n (examples)" in at.error[0].value and "10⁷" in at.error[0].value
    assert "5·10⁷" in at.error[0].value
    assert [d.value for d in at.dataframe][0]["accountant"].tolist() == ["RDP", "PLD"]  # only the calculator
    at.text_input(key="w_n").set_value("60 000").run()
    assert not at.error and _q(at, "n") == "60000"
    assert float(_row(at, "paper's closed form")["σ for ε"]) > 0


@pytest.mark.parametrize("typed,shown", [("0", "0"), ("-5", "-5"), ("", "nothing"), ("2e7", "2e7"),
                                         ("1,5", "1,5")])
def test_accounting_page_invalid_input_one_error_no_stale_results(typed, shown):
    at = _page(query={"n": "5000", "eps": "2"})
    assert len(at.dataframe) == 2
    box = "w_eps" if typed in ("0", "", "1,5") else "w_n"
    at.text_input(key=box).set_value(typed).run()
    assert not at.exception
    assert len(at.error) == 1
    err = at.error[0].value
    assert ("target ε" if box == "w_eps" else "n (examples)") in err and shown in err and "from" in err
    assert len(at.dataframe) == 1  # the calculator's table only: no accountant numbers from other values
    assert not [t for t in at.text if "Summary" in t.value]
    assert at.text_input(key=box).value == typed  # what was typed stays in the box
    # the link keeps the last valid values (as on Calibrate)
    assert _q(at, "n") == "5000" and _q(at, "eps") == "2.0"
    at.text_input(key=box).set_value("3").run()  # a valid value brings the results back
    assert not at.error and len(at.dataframe) == 2


def test_accounting_takes_n_eps_delta_from_calibrate():
    # Calibrate at n = 5000, eps = 2 -> Accounting opens at 5000, 2 and delta = 1/n^2; the matched RDP accountant's
    # sigma equals Calibrate's "a numerical accountant of the same mechanism ... needs sigma = ..." (one computation)
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page("pages/calibrate.py").run()
    at.text_input(key="w_n").set_value("5,000").run()
    at.text_input(key="w_eps").set_value("2").run()
    assert not at.exception
    calib_line = [m.value for m in at.markdown if "numerical accountant of the same mechanism" in m.value]
    at.switch_page("pages/accounting.py").run()
    assert not at.exception
    assert at.text_input(key="w_n").value == "5000" and at.text_input(key="w_eps").value == "2"
    cal = catalog.calibrate("dpsgd-rdp", n=5000, eps=2.0, delta=1 / 5000**2, T=1000, G=1.0)
    matched = _row(at, "matched: RDP")["σ for ε"]
    assert matched == ui.fmt(cal.extras["accountant_sigma"])
    assert any(f"σ = {matched} " in line for line in calib_line), calib_line


def test_accounting_page_calculator():
    at = _page(query={"algorithm": "dpgd-sc", "mu": "0.5"})
    calc = at.dataframe[1].value
    assert list(calc["accountant"]) == ["RDP", "PLD"]
    # PLD carries its bracket: lower <= upper, and a grid; RDP is an upper bound only
    assert float(calc["lower bound"].iloc[1]) <= float(calc["ε (upper bound)"].iloc[1])
    assert calc["lower bound"].iloc[0] == "—" and calc["grid"].iloc[1] != "—"
    # without replacement under add/remove is not a mechanism dp_accounting analyses: one message, no table
    at.selectbox(key="w_acc_calc_sampling").set_value("without-replacement").run()
    assert not at.exception and len(at.dataframe) == 1
    assert any("replace-one" in e.value for e in at.error)
    at.selectbox(key="w_acc_calc_neighbouring").set_value("replace-one").run()
    assert not at.exception
    calc = at.dataframe[1].value
    assert calc["ε (upper bound)"].iloc[1] == "—" and "no PLD" in calc["note"].iloc[1]
    assert math.isfinite(float(calc["ε (upper bound)"].iloc[0]))


def test_accounting_page_shows_which_numbers_are_bounds():
    # DP-SGD of Wang et al. at the defaults (n = T = 1000, eps = 1, delta = 1e-6): the paper's sigma under Poisson
    # add/remove; PLD gives a [lower, upper] bracket, RDP an upper bound, the matched accountant an upper bound
    at = _page(query={"algorithm": "dpsgd-rdp"})
    pld = _row(at, "Poisson q = 1/n, add/remove (Δ = G), PLD")
    lo, up = (float(x.replace("·10⁻", "e-").translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")))
              for x in pld["ε of paper σ: range"].strip("[]").split(", "))
    assert 0 < lo <= up and up == pytest.approx(float(pld["ε of paper σ"].replace("·10⁻", "e-").translate(
        str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789"))), rel=1e-3)
    assert _row(at, "matched: RDP")["ε of paper σ: range"] == "upper bound"
    assert any("safe to claim" in c.value for c in at.caption)
    # the same page for a full-batch algorithm: the analytic Gaussian row is exact
    at.selectbox(key="w_algorithm").set_value("dpgd-c").run()
    assert not at.exception
    assert _row(at, "matched, exact")["ε of paper σ: range"] == "exact"


def test_sigma_eps_chart_puts_every_marker_on_its_curve_at_small_eps():
    # ε = 0.01 (DP-SGD, n = T = 1000): the σ range was the matched accountant's σ (1.3·10⁵) × [0.1, 10], so the
    # Poisson accountants' markers (σ ≈ 10) lay far below their curves; now the range takes in every accountant's σ
    at = _page(query={"eps": "0.01"})
    assert not at.exception
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    fig = [f for f in figs if "against ε" in f["layout"]["title"]["text"]][0]
    ys = [y for t in fig["data"] if t.get("mode") == "lines" for y in t["y"] if y is not None]
    marks = [t["y"][0] for t in fig["data"] if str(t.get("name", "")).startswith("σ needed") and t["y"][0]]
    assert marks and all(min(ys) <= m <= max(ys) for m in marks)
