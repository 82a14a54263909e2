"""Issue 21, item 1: the noise solvers at small ε and large n, against dp_accounting's accountants called directly.

For each (n, T, ε) the solver's z must be private by dp_accounting itself (ε_dp(z) <= ε) and minimal (ε_dp just
below z exceeds ε).  ε(z) is a step function of z for sampling without replacement (each Rényi order's bound of Wang,
Balle & Kasiviswanathan 2019, Theorem 27, jumps as z crosses a threshold) and reads exactly 0 once T·RDP < δ²
(dp_accounting's KL shortcut): the old solver stopped there (σ = 395.6 where 4.88 suffices)."""

import contextlib
import math
from pathlib import Path

import dp_accounting
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as rdp_mod
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

from conftest import wor_forward_diffs_once
from dpviz.theory import accounting
from dpviz.labs import privacy_lab as pl

NR = dp_accounting.NeighboringRelation


def _dp_wor(n, z, steps, delta, m=1, once=True):
    # the orders of the accountant under test (WOR_ORDERS); dp_accounting computes each order's RDP itself (without
    # recomputing its forward differences at every order unless ``once`` is False: the same numbers, conftest.py)
    a = RdpAccountant(orders=accounting.WOR_ORDERS, neighboring_relation=NR.REPLACE_ONE)
    with wor_forward_diffs_once() if once else contextlib.nullcontext():
        a.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(n, m, dp_accounting.GaussianDpEvent(z)), steps))
    return a.get_epsilon(delta)


def test_wor_reference_without_repeated_work_is_bit_for_bit():
    """The reference above, dp_accounting with its forward differences computed once per σ, gives exactly what
    dp_accounting gives alone, at the issue's point (n = 45 222, T = 2 000; the differences depend on σ only)."""
    assert _dp_wor(45222, 4.0, 2000, 1e-5) == _dp_wor(45222, 4.0, 2000, 1e-5, once=False)


def _dp_poisson(q, z, steps, delta, orders=None):
    # the orders of the accountant under test (RDP_ORDERS) unless told; dp_accounting computes each order's RDP itself
    a = RdpAccountant(orders=accounting.RDP_ORDERS if orders is None else orders)
    a.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps))
    return a.get_epsilon(delta)


CASES = [(n, T, eps) for n in (10_000, 45_222, 100_000) for T in (1000, 2000, 20_000)
         for eps in (0.01, 0.05, 0.1, 1.0)]


@pytest.mark.parametrize("n, T, eps", CASES)
def test_wor_noise_is_private_and_minimal_by_dp_accounting(n, T, eps):
    delta = 1e-5
    z = accounting.noise_multiplier_general(eps=eps, delta=delta, steps=T, sampling_prob=1 / n,
                                            sampling="without-replacement", neighbouring="replace-one", rtol=1e-6)
    assert _dp_wor(n, z, T, delta) <= eps
    assert _dp_wor(n, z * (1 - 1e-5), T, delta) > eps


@pytest.mark.parametrize("n, T, eps", [(n, T, eps) for n in (10_000, 100_000) for T in (1000, 20_000)
                                       for eps in (0.05, 0.1, 1.0)])
def test_poisson_noise_is_private_and_minimal_by_dp_accounting(n, T, eps):
    delta = 1e-5
    z = accounting.noise_multiplier_general(eps=eps, delta=delta, steps=T, sampling_prob=1 / n, rtol=1e-6)
    assert _dp_poisson(1 / n, z, T, delta) <= eps
    assert _dp_poisson(1 / n, z * (1 - 1e-5), T, delta) > eps


def test_issue_point_account_and_calibrate():
    # the issue's command: account --algorithm dpsgd-rdp --n 45222 --T 2000 --eps 0.1 --delta 1e-5 --G 1
    res = pl.evaluate("dpsgd-rdp", names=("rdp",), n=45222, T=2000, eps=0.1, delta=1e-5, G=1.0)
    sigma = res["accountants"][0]["sigma_for_eps"]
    # 395.6 before the fix; a sanity range (4.4 with dp_accounting's default orders, below with WOR_ORDERS), the
    # threshold itself is checked against dp_accounting called directly with the same orders
    assert 3.0 < sigma < 5.0
    assert _dp_wor(45222, sigma / 2.0, 2000, 1e-5) <= 0.1  # z = σ/(2G), replace-one
    assert _dp_wor(45222, sigma / 2.0 * (1 - 1e-5), 2000, 1e-5) > 0.1
    res = pl.evaluate("dpsgd-rdp", names=("rdp",), n=45222, T=2000, eps=0.01, delta=1e-5, G=1.0)
    sigma = res["accountants"][0]["sigma_for_eps"]
    assert _dp_wor(45222, sigma / 2.0, 2000, 1e-5) <= 0.01
    assert _dp_wor(45222, sigma / 2.0 * (1 - 1e-5), 2000, 1e-5) > 0.01


def test_pairwise_pair_of_two_at_small_eps():
    n, T, eps, delta = 20_000, 2000, 0.05, 1e-5
    z = accounting.noise_multiplier_general(eps=eps, delta=delta, steps=T, sampling_prob=2 / n,
                                            sampling="without-replacement", neighbouring="replace-one")
    assert _dp_wor(n, z, T, delta, m=2) <= eps
    assert _dp_wor(n, z * (1 - 1e-5), T, delta, m=2) > eps


def _dp_wor_default_orders(n, z, steps, delta):
    a = RdpAccountant(neighboring_relation=NR.REPLACE_ONE)  # dp_accounting's DEFAULT_RDP_ORDERS
    with wor_forward_diffs_once():
        a.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(n, 1, dp_accounting.GaussianDpEvent(z)), steps))
    return a.get_epsilon(delta)


def test_wor_orders_are_dense_above_63():
    # n = 20 000 (q = 1/n), T = 1000, δ = 1/n²: with dp_accounting's default orders (…, 63, 128, 256, 512, 1024) the
    # noise for ε = 0.05 is that for ε = 0.03 (5.08, a plateau of σ(ε)); WOR_ORDERS adds orders between 64 and 1024
    n, T = 20_000, 1000
    delta = 1.0 / n**2
    assert set(map(float, rdp_mod.DEFAULT_RDP_ORDERS)) <= set(accounting.WOR_ORDERS)
    z = accounting.noise_multiplier_general(eps=0.05, delta=delta, steps=T, sampling_prob=1 / n,
                                            sampling="without-replacement", neighbouring="replace-one")
    # the threshold of dp_accounting's accountant with the same orders, to within 1e-6 relative
    assert _dp_wor(n, z, T, delta) <= 0.05 < _dp_wor(n, z * (1 - 1e-6), T, delta)
    # at least 25 % less noise than the default orders need: they do not certify ε = 0.05 even at z / 0.75
    assert _dp_wor_default_orders(n, z / 0.75, T, delta) > 0.05
    # σ(ε) strictly decreasing, no plateau: each step of ε lowers the noise by more than 5 %
    zs = [accounting.noise_multiplier_general(eps=e, delta=delta, steps=T, sampling_prob=1 / n,
                                              sampling="without-replacement", neighbouring="replace-one")
          for e in (0.02, 0.03, 0.05, 0.07, 0.1)]
    assert all(b < 0.95 * a for a, b in zip(zs, zs[1:]))


def test_poisson_rdp_orders_are_dense_above_63():
    # Poisson sampling, add/remove, n = 20 000 (q = 1/n), T = 1000, δ = 1/n²: with dp_accounting's default orders the
    # noise for ε = 0.05 is 5.08 and for ε = 0.2 2.54 (a plateau of σ(ε) from 0.03 to 0.05 and a step near
    # ε = 0.25 on the Accounting page's chart); the same RDP analysis over RDP_ORDERS certifies ε = 0.05 at 3.70
    # and ε = 0.2 at 2.01 -- the thresholds of dp_accounting's RdpAccountant called with the same orders.
    n, T = 20_000, 1000
    delta = 1.0 / n**2
    assert set(map(float, rdp_mod.DEFAULT_RDP_ORDERS)) <= set(accounting.RDP_ORDERS)
    for eps, z_hand in ((0.05, 3.70), (0.2, 2.01)):
        z = accounting.noise_multiplier_for(eps=eps, delta=delta, steps=T, sampling_prob=1 / n)
        assert z == pytest.approx(z_hand, abs=0.005)
        assert _dp_poisson(1 / n, z, T, delta) <= eps < _dp_poisson(1 / n, z * (1 - 1e-6), T, delta)
        # the default orders need over 20 % more noise: they do not certify eps even at z / 0.8
        assert _dp_poisson(1 / n, z / 0.8, T, delta, orders=rdp_mod.DEFAULT_RDP_ORDERS) > eps
    # σ(ε) strictly decreasing from ε = 0.02 to 0.3: each step of ε lowers the noise by more than 3 %
    zs = [accounting.noise_multiplier_for(eps=e, delta=delta, steps=T, sampling_prob=1 / n)
          for e in (0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.25, 0.3)]
    assert all(b < 0.97 * a for a, b in zip(zs, zs[1:]))


def test_wor_rdp_floor_by_hand_and_by_dp_accounting():
    # n = T = 1000 (q = 1/n), δ = 1e-6: the bound above order 256 keeps a noise-free term, so the smallest positive
    # ε is the conversion at order 256 with zero RDP: log(1 - 1/256) - (log δ + log 256)/255 = 0.0285188 (by hand)
    n, T, delta = 1000, 1000, 1e-6
    hand = math.log(1 - 1 / 256) - (math.log(delta) + math.log(256)) / 255
    assert hand == pytest.approx(0.0285188, abs=1e-7)
    assert accounting.wor_rdp_floor(delta, T, 1 / n) == pytest.approx(hand, rel=1e-9)
    # dp_accounting's own accountant (same orders) sits on that floor at large noise, and says ε = 0 (its KL
    # shortcut) from z = 63 246 on, on per-step divergences of 1e-16 (their rounding error's size); dpviz certifies
    # ε = 0 only where the total variation 1 - (1 - q erf(1/(2√2 z)))^T is at most δ (issue 31): by hand,
    # T q erf(1/(2√2 z)) ≈ T q / (√(2π) z) = δ at z = 0.398942 / 1e-6 = 398 942
    assert _dp_wor(n, 1e4, T, delta) == pytest.approx(hand, rel=1e-5)
    z = accounting.noise_multiplier_general(eps=0.01, delta=delta, steps=T, sampling_prob=1 / n,
                                            sampling="without-replacement", neighbouring="replace-one")
    assert z == pytest.approx(1 / math.sqrt(2 * math.pi) / delta, rel=1e-4)

    def tv(z):
        return 1 - (1 - math.erf(1 / (2 * math.sqrt(2) * z)) / n) ** T

    assert tv(z) <= delta < tv(z * (1 - 1e-5))
    assert _dp_wor(n, z, T, delta) == 0.0 and _dp_wor(n, 63246.0, T, delta) == 0.0
    assert accounting.epsilon_general(noise_multiplier=63246.0, delta=delta, steps=T, sampling_prob=1 / n,
                                      sampling="without-replacement", neighbouring="replace-one") >= hand * 0.999
    assert z == pytest.approx(accounting.noise_multiplier_general(  # the same σ (to the solver's tolerance)
        eps=0.001, delta=delta, steps=T, sampling_prob=1 / n, sampling="without-replacement",
        neighbouring="replace-one"), rel=1e-5)
    # the note: below the floor only
    assert accounting.wor_floor_note(0.01, delta, T, 1 / n).startswith("ε = 0.01 is below 0.02852")
    assert accounting.wor_floor_note(0.03, delta, T, 1 / n) is None
    with pytest.raises(ValueError):
        accounting.wor_rdp_floor(delta, T, 0.0)


def test_pages_replace_the_rdp_floor_warning_by_the_tight_pld():
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "app.py")
    for page in ("pages/calibrate.py", "pages/accounting.py"):
        at = AppTest.from_file(app, default_timeout=120)
        at.query_params.update({"eps": "0.01"})
        at.switch_page(page)
        at.run()
        assert not at.exception
        # issue 31: where the tight without-replacement PLD (dpviz.theory.pld_wor) applies, as here (n = T = 1000),
        # it certifies a σ below the Rényi floor, so the floor's warning gives way to the PLD's σ
        assert not [w.value for w in at.warning if "smallest positive ε" in w.value], page
        texts = [t.value for t in at.text] + [m.value for m in at.markdown]
        assert any("σ for ε = 0.01:" in t and "certainly suffices" in t for t in texts), page
        from dpviz.theory import accounting

        assert "0.02852" in accounting.wor_floor_note(0.01, 1e-6, 1000, 1e-3)  # the floor the PLD lifts
        at = AppTest.from_file(app, default_timeout=120)
        at.switch_page(page)
        at.run()
        assert not [w.value for w in at.warning if "smallest positive ε" in w.value], page  # ε = 1: no warning
