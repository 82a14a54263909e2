"""AppTest checks of the tight without-replacement PLD (dpviz.theory.pld_wor) on the Calibrate and Accounting pages:
shown for DP-SGD (one example per step without replacement, replace-one) with its theorem, the Rényi floor caveat gone
where the PLD certifies below it, and updated when the inputs change several times in a row."""

import re

import pytest

from conftest import open_page
from dpviz.theory import pld_wor


def _page(page, query=None):
    return open_page(page, query, 120)


def _texts(at):
    return [t.value for t in at.text] + [m.value for m in at.markdown] + [c.value for c in at.caption]


def _pld_numbers(at):
    """The σ bracket the page states: (suffices, certainly-not)."""
    for t in _texts(at):
        m = re.search(r"σ for ε = [0-9.e+-]+: ([0-9.e+-]+) certainly suffices; any σ up to ([0-9.e+-]+) certainly", t)
        if m:
            return float(m.group(1)), float(m.group(2))
    return None


def _reference(n, T, eps, delta, G=1.0):
    r = pld_wor.matched(n=n, batch_size=1, steps=T, eps=eps, delta=delta, sensitivity=2 * G)
    return r["sigma_upper"], r["sigma_lower"]


def test_accounting_page_shows_the_tight_matched_pld_and_follows_the_inputs():
    at = _page("pages/accounting.py", {"algorithm": "dpsgd-rdp", "n": "1000", "eps": "1", "T": "1000"})
    texts = _texts(at)
    assert any("Matched, tight: PLD, sampling without replacement" in t for t in texts)
    assert any("Zhu, Dong & Wang" in t and "Lebeda, Regehr, Kamath & Steinke" in t for t in texts)  # the theorem
    got = _pld_numbers(at)
    assert got is not None
    for eps in ("0.5", "2", "0.01"):
        at.text_input(key="w_eps").set_value(eps).run()
        assert not at.exception and not at.error
        new = _pld_numbers(at)
        assert new is not None and new != got
        got = new
    # ε = 0.01 is below the Rényi accountant's floor (0.0285 at n = T = 1000, δ = 1e-6): its caveat is gone, the PLD
    # certifies a σ (and a much smaller one than the Rényi accountant's ε = 0 noise)
    assert not any("smallest positive ε this RDP accountant certifies" in w.value for w in at.warning)
    up, lo = got
    assert lo <= up < 1000


def test_accounting_pld_numbers_match_the_library():
    at = _page("pages/accounting.py", {"algorithm": "dpsgd-rdp", "n": "2000", "eps": "1", "T": "500"})
    up, lo = _pld_numbers(at)
    # the page's δ is 1/n² by default
    ref_up, ref_lo = _reference(2000, 500, 1.0, 1 / 2000**2)
    assert up == pytest.approx(ref_up, rel=2e-3)
    assert lo == pytest.approx(ref_lo, rel=2e-3)


def test_calibrate_page_shows_the_tight_matched_pld():
    at = _page("pages/calibrate.py", {"algorithm": "dpsgd-rdp"})
    assert not at.error
    texts = _texts(at)
    assert any("The matched tight accountant (PLD, one example per step without replacement" in t for t in texts)
    assert any("Dong, Roth & Su 2022, Theorem 4.2" in t for t in texts)
    first = _pld_numbers(at)
    assert first is not None
    for n in ("2000", "5e3", "1000"):
        at.text_input(key="w_n").set_value(n).run()
        assert not at.exception
        assert _pld_numbers(at) is not None
    assert _pld_numbers(at) == first  # back to the first n: the same numbers
