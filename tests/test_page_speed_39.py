"""Speed changes of session 39 that must change no number: pld_lower's own logsumexp equals scipy's bit for bit;
run_check's ``tick`` (the dashboard's interrupt point) is called between evaluations and changes nothing; the
helpers' ``checkpoint`` is a no-op outside a page run and stops a run that a newer one replaced."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from dpviz.labs import run_check as rc
from dpviz.theory import pld_lower

MNIST = dict(n=60000, batch_size=256, epochs=60.0, noise_multiplier=1.1, delta=1e-5, target_eps=3.0)


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))


def test_logsumexp_equals_scipy_bit_for_bit_on_random_arrays():
    rng = np.random.default_rng(39)
    for k in range(3000):
        n = int(rng.integers(1, 2000))
        a = rng.normal(0.0, 10 ** rng.uniform(-3, 3), n) + rng.normal(0.0, 100.0)
        if k % 5 == 0:
            a[rng.integers(0, n, 3)] = -np.inf  # atoms of zero mass
        if k % 7 == 0:
            a = np.round(a)  # ties at the largest entry
        assert _same(pld_lower._logsumexp(a), float(logsumexp(a))), (k, n)


@pytest.mark.parametrize("a", [[0.0], [-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [], [1e308, 1e308],
                               [-1e308, 5.0], [709.0, 709.0, 1.0], [-745.0, -745.1]])
def test_logsumexp_edges_equal_scipy(a):
    a = np.array(a, dtype=float)
    with np.errstate(all="ignore"):
        assert _same(pld_lower._logsumexp(a), float(logsumexp(a)))


def test_logsumexp_by_hand():
    assert pld_lower._logsumexp(np.log([1.0, 2.0, 3.0])) == pytest.approx(math.log(6.0), rel=1e-15)
    assert pld_lower._logsumexp(np.array([1000.0, 1000.0])) == pytest.approx(1000.0 + math.log(2.0), rel=1e-15)


@pytest.mark.parametrize("z, epochs", [(1.1, 60.0), (0.6, 3.0), (4.0, 200.0)])
def test_verdict_identical_with_scipys_logsumexp(monkeypatch, z, epochs):
    """The whole verdict (RDP and the PLD bracket) with pld_lower's logsumexp and with scipy's, bit for bit."""
    import sys

    args = {**MNIST, "noise_multiplier": z + 1e-9 * epochs, "epochs": epochs}  # not in any cache yet
    fast = rc.check(search=False, **args)
    calls = []
    monkeypatch.setattr(pld_lower, "_logsumexp", lambda a: calls.append(1) or float(logsumexp(a)))
    for name, mod in list(sys.modules.items()):  # the accountants' own caches
        if name.startswith("dpviz.theory") and mod is not None:
            for f in list(vars(mod).values()):
                if callable(getattr(f, "cache_clear", None)):
                    f.cache_clear()
    slow = rc.check(search=False, **args)
    assert calls  # the bracket was computed again, through scipy
    for key in ("eps_upper", "eps_lower", "eps_rdp", "accountant"):
        assert fast[key] == slow[key], key


def test_tick_is_called_and_changes_no_number():
    calls = []
    plain = rc.check(search=True, curve=True, **{**MNIST, "noise_multiplier": 1.3})
    ticked = rc.check(search=True, curve=True, tick=lambda: calls.append(1), **{**MNIST, "noise_multiplier": 1.3})
    assert len(calls) >= 10  # before each evaluation of the most-epochs search and of each curve point
    for key in ("eps_upper", "eps_lower", "eps_rdp", "noise_multiplier_for_target", "max_epochs_at_target",
                "max_steps_at_target", "curve"):
        assert ticked[key] == plain[key], key


def test_tick_that_raises_stops_the_search():
    class Stop(BaseException):
        pass

    def tick():
        raise Stop

    with pytest.raises(Stop):
        rc.check(search=True, tick=tick, **{**MNIST, "noise_multiplier": 1.31})
    run = rc.resolve(**{k: v for k, v in MNIST.items() if k != "target_eps"}, target_eps=3.0)
    with pytest.raises(Stop):
        rc.eps_vs_epochs(run, tick=tick)
    shuffled = rc.resolve(**{k: v for k, v in MNIST.items()}, sampling="shuffle")
    with pytest.raises(Stop):
        rc.noise_for_target(shuffled, tick=tick)


def test_checkpoint_outside_a_page_run_does_nothing():
    from dpviz_ui import helpers as ui

    ui.checkpoint()
    ui.checkpoint()


def test_logsumexp_rows_equals_scipy_bit_for_bit():
    from dpviz.theory.lse import logsumexp_rows

    rng = np.random.default_rng(391)
    for k in range(1500):
        r, c = int(rng.integers(1, 30)), int(rng.integers(1, 300))
        a = rng.normal(0.0, 10 ** rng.uniform(-3, 3), (r, c)) + rng.normal(0.0, 100.0, (r, 1))
        if k % 3 == 0:
            a[rng.random((r, c)) < 0.3] = -np.inf
        if k % 5 == 0:
            a[0, :] = -np.inf  # a row of zero mass: scipy's fallback gives -inf
        if k % 7 == 0:
            a = np.round(a)
        with np.errstate(all="ignore"):
            assert np.array_equal(logsumexp_rows(a), logsumexp(a, axis=1), equal_nan=True), k
    for bad in ([[np.nan, 1.0]], [[np.inf, 1.0]], np.zeros((2, 0))):
        bad = np.array(bad, dtype=float)
        with np.errstate(all="ignore"):
            assert np.array_equal(logsumexp_rows(bad), logsumexp(bad, axis=1), equal_nan=True)


@pytest.mark.parametrize("q, z", [(1e-4, 0.6), (4e-3, 1.1), (0.05, 3.0), (0.3, 0.9), (0.9, 20.0)])
def test_rdp_curves_identical_with_scipys_logsumexp(monkeypatch, q, z):
    """The Poisson and without-replacement RDP of every order, with dpviz.theory.lse and with scipy: bit for bit."""
    from dpviz.theory import lse
    from dpviz.theory.accounting import rdp_poisson, rdp_wor

    orders = sorted(set(rdp_poisson.WOR_ORDERS) | {2.5, 7.25, 300.0})
    fast = (rdp_poisson._rdp_poisson_gaussian(q, z, orders), rdp_wor._rdp_wor_gaussian(q, z, orders))
    monkeypatch.setattr(lse, "logsumexp_rows", lambda a: logsumexp(a, axis=1))
    slow = (rdp_poisson._rdp_poisson_gaussian(q, z, orders), rdp_wor._rdp_wor_gaussian(q, z, orders))
    for x, y in zip(fast, slow):
        assert np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)


def test_checkpoint_in_a_page_run_is_an_interrupt_point(monkeypatch):
    """In a page run, checkpoint (and flush, after its pause) looks up a session-state key, where Streamlit raises
    its stop for a run that a newer one replaced (here a stand-in session state raises)."""
    import streamlit.runtime.scriptrunner as sr

    from dpviz_ui.helpers import figures, state

    class Stop(BaseException):
        pass

    class Replaced:
        def __contains__(self, key):
            raise Stop

    monkeypatch.setattr(sr, "get_script_run_ctx", lambda suppress_warning=False: object())
    monkeypatch.setattr(state.st, "session_state", Replaced())
    with pytest.raises(Stop):
        state.checkpoint()
    with pytest.raises(Stop):
        figures.flush(0.0)
