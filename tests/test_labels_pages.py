"""issue 19 on the pages: the labels of the paper's readings reach the screen (AppTest)."""

from streamlit.testing.v1 import AppTest

from dpviz_ui import helpers as ui
from dpviz.theory import catalog

APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _calibrate(query):
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/calibrate.py").run()
    assert not at.exception
    return at


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
    assert any("as Theorem 5 claims" in s.value for s in at.success)
