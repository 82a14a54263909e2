"""issue 19 on the pages: the labels of the paper's readings reach the screen (AppTest)."""

from streamlit.testing.v1 import AppTest

from conftest import open_page
from dpviz_ui import helpers as ui
from dpviz.theory import catalog

APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _calibrate(query):
    return open_page("pages/calibrate.py", query)


def test_calibrate_page_labels_both_readings_of_yang_eq5():
    # Yang, Lei, Lyu & Ying eq. (5) at n = 100, T = 10^4, eta = 1e-3, eps = 1, delta = 1e-4, G = 1:
    # as printed 157.643 (not private), as the proof requires 259.909 (tests/test_yang_pairwise.py, by hand)
    q = {"algorithm": "pairwise-sgd-output", "n": "100", "T": "10000", "eta": "0.001", "eps": "1",
         "delta": "0.0001", "G": "1"}
    at = _calibrate(q)
    text = " ".join(m.value for m in at.markdown)
    assert f"σ as printed (not private) = {ui.fmt(157.64259)} (**not** (ε, δ)-DP here)" in text
    assert f"σ as the proof requires = {ui.fmt(259.90870)}" in text
    assert "The paper's own formula gives σ" not in text
    assert at.metric[0].value == ui.fmt(catalog.calibrate("pairwise-sgd-output", n=100, T=10_000, eta=1e-3, eps=1.0,
                                                          delta=1e-4, G=1.0).sigma)


def test_calibrate_page_states_what_dpviz_cannot_certify_for_pidp_sgd():
    at = _calibrate({"algorithm": "pidp-sgd", "n": "5000", "eps": "1", "delta": "4e-8", "T": "5000"})
    captions = " ".join(c.value for c in at.caption)
    assert "What dpviz cannot certify for PIDP-SGD" in captions
    assert "drawn afresh at every step" in captions and "whole data set" in captions
    assert "4G/(n ζ)" in captions or "4G/(nζ)" in captions or "4G/(n zeta)" in captions
    # the guarantee rests on the paper's counting: a warning, never a plain "Private" verdict
    assert any("as Theorem 5 claims" in w.value and "not certified by dpviz" in w.value for w in at.warning)
    assert not any(s.value.startswith("Private:") for s in at.success)


def test_a_vacuous_delta_from_a_link_is_refused_not_called_private():
    # δ = 10^-0.0001 ≈ 0.9998 made Calibrate say "Private ... with ε = 0 and δ = 1"; δ is now at most 0.1 on every
    # page (as Accounting had it): the link value is listed as ignored and the default δ is used
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"delta_auto": "false", "log10_delta": "-0.0001"})
    at.switch_page("pages/calibrate.py")  # the link opens Calibrate directly
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "log10_delta" in warnings and "-1" in warnings
    assert at.session_state["_view"]["log10_delta"] == -6.0
    assert not any("δ = 1" in s.value for s in at.success)


def test_dpsgd_pl_says_which_check_makes_it_private():
    # DP-SGD-PL's σ comes from the matched RDP accountant (Kang, Li, Liu & Wang's eq. (2) has an unspecified c),
    # not from "the paper's privacy conditions"
    at = _calibrate({"algorithm": "dpsgd-pl"})
    text = " ".join(s.value for s in at.success)
    assert text.startswith("Private:") and "RDP accountant of the paper's mechanism" in text
    assert "paper's privacy conditions" not in text


def test_the_formula_on_screen_is_labelled_when_the_released_sigma_differs():
    # DPEGD (Xue, Yang, Huai & Wang): the page showed only the paper's formula (σ = 0.05299 at these settings) under
    # the released σ = 0.04225 (the exact Gaussian check's); the per-epoch table rounded to one digit
    at = _calibrate({"algorithm": "dp-epoch-gd"})
    cal = catalog.calibrate("dp-epoch-gd", n=1000, eps=1.0, delta=1e-6, G=1.0, eta=0.01)
    text = " ".join(c.value for c in at.caption)
    assert f"The formula below is the paper's (its σ = {ui.fmt(cal.extras['sigma_paper'])})" in text
    assert f"(σ = {ui.fmt(cal.sigma)}) is the one dpviz releases" in text
    table = [df for df in at.dataframe if "σ_i" in df.value.columns][0].value
    assert list(table["σ_i"]) == [ui.fmt(s) for s in cal.sigma_schedule]
