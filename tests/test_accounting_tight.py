"""Issue 21, "ε with error bars": the two-sided PLD of Poisson-sub-sampled DP-SGD (add/remove) — connect-the-dots upper
bound and the merged-interval lower bound of dpviz.theory.pld_lower — checked against dp_accounting and prv-accountant called
directly here, at typical and extreme points (small ε, long compositions, large σ)."""

import json
import math

import numpy as np
import pytest
from dp_accounting.pld import common, pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pldm

from dpviz.theory import accounting, pld_lower
from dpviz.cli.commands import main


def _dp_pld(z, q, T, delta, grid, pessimistic=True, truncation=None):
    """dp_accounting's PLD ε (connect-the-dots when pessimistic, rounded down otherwise)."""
    kw = {} if truncation is None else {"log_mass_truncation_bound": truncation}
    pld = pldm.from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=grid,
                                       pessimistic_estimate=pessimistic, use_connect_dots=pessimistic, **kw)
    return pld.self_compose(T).get_epsilon_for_delta(delta)


def _prv(z, q, T, delta, eps_error):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=z, sampling_probability=q),
                        max_self_compositions=T, eps_error=eps_error, delta_error=delta / 1000)
    return acc.compute_epsilon(delta=delta, num_self_compositions=T)


def test_vectorised_epsilon_equals_dp_accounting_on_random_pmfs():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        p = rng.random(n)
        p /= p.sum() * rng.uniform(1.0, 1.2)
        k0, g = int(rng.integers(-30, 30)), float(rng.uniform(1e-3, 0.5))
        inf, d = float(rng.choice([0.0, 1e-9, 1e-3])), float(10 ** rng.uniform(-8, -0.5))
        ref = pld_pmf.DensePLDPmf(g, k0, p, inf, True).get_epsilon_for_delta(d)
        assert pld_lower.epsilon_of_dense(k0, p, g, inf, d) == pytest.approx(ref, rel=1e-9, abs=1e-12)


def _delta_of(eps, k0, p, grid, inf):
    """δ(ε) = infinity_mass + Σ_{ℓ_i > ε} p_i (1 − e^{ε − ℓ_i}), straight from the definition (no e^{ℓ} anywhere)."""
    losses = (k0 + np.arange(len(p))) * grid
    return inf + float(np.sum(np.where(losses > eps, p * -np.expm1(np.minimum(eps - losses, 0.0)), 0.0)))


@pytest.mark.parametrize("k0, n, delta", [(70000, 2000, 1e-5), (69000, 5000, 1e-3), (100, 200000, 1e-6),
                                          (0, 80000, 1e-9), (-80000, 100000, 1e-6)])
def test_epsilon_at_privacy_losses_above_709_is_the_smallest_eps_meeting_delta(k0, n, delta):
    # atoms up to ℓ = 720-2100 (e^ℓ overflows a float), or down to ℓ = -800 (e^{-ℓ} does).  The old vectorised code
    # returned ε = inf for the first four; the
    # answer is checked against δ(ε) from its definition: δ(ε) = delta, and a little below ε it is above delta.
    # (dp_accounting's DensePLDPmf.get_epsilon_for_delta is itself unstable here -- its e^{-ℓ} masses underflow --
    # and gives inf, 739.96, 2000.99, 799.99 for the first four: too large by up to 33 atoms, not the reference.)
    rng = np.random.default_rng(1)
    p = rng.random(n)
    p /= p.sum() * 1.0000001
    eps = pld_lower.epsilon_of_dense(k0, p, 0.01, 0.0, delta)
    assert np.isfinite(eps) and eps > max(k0 * 0.01, 0.0)
    assert _delta_of(eps, k0, p, 0.01, 0.0) == pytest.approx(delta, rel=1e-8)
    assert _delta_of(eps - 1e-6, k0, p, 0.01, 0.0) > delta


def test_real_fft_self_convolution_equals_dp_accounting():
    (k0, p, _inf), _ = pld_lower.upper_pmfs(1.1, 256 / 60000, 3e-4, 1e-15)
    lo1, w1 = common.self_convolve(p, 2000, 1e-15)
    lo2, w2 = pld_lower.self_convolve(p, 2000, 1e-15)
    a = np.zeros(max(lo1 + len(w1), lo2 + len(w2)))
    b = a.copy()
    a[lo1:lo1 + len(w1)], b[lo2:lo2 + len(w2)] = w1, w2
    assert np.abs(a - b).max() < 1e-14 and abs(a.sum() - 1) < 1e-9


# (z, q, T, delta, grid): the two issue-21 targets, a short and a long composition, small ε (large σ)
POINTS = [
    (1.0, 1 / 50000, 50000, 1e-6, 8e-6),   # n = T = 50 000: eps ≈ 0.019
    (1.1, 256 / 60000, 14063, 1e-5, 3e-4),  # n = 60 000, batch 256, 60 epochs: eps ≈ 2.38
    (0.8, 0.01, 300, 1e-5, 1e-3),           # eps ≈ 2.03
    (5.0, 0.01, 1000, 1e-5, 2e-4),          # small eps ≈ 0.05
    (20.0, 0.01, 1000, 1e-6, 5e-5),         # large sigma, eps ≈ 0.01
    (1.0, 1e-3, 100_000, 1e-6, 1e-4),       # long composition: 100 epochs at q = 1e-3
    (0.6, 0.05, 10, 1e-3, 1e-3),            # very short composition
]


@pytest.mark.parametrize("z, q, T, delta, grid", POINTS)
def test_upper_is_dp_accountings_connect_the_dots(z, q, T, delta, grid):
    # the same algorithm (Doroshenko et al. 2022) vectorised: equal to dp_accounting at the same grid and tail
    # truncation (log mass 1e-4 delta / T per step), and never below dp_accounting's default truncation's value
    up = pld_lower.upper_epsilon(z, q, T, delta, grid)
    ref = _dp_pld(z, q, T, delta, grid, truncation=math.log(1e-4 * delta / T))
    assert up == pytest.approx(ref, rel=2e-5)


@pytest.mark.parametrize("z, q, T, delta, grid", POINTS)
def test_lower_bound_below_dp_accounting_converged_and_prv(z, q, T, delta, grid):
    lo = pld_lower.lower_epsilon(z, q, T, delta, grid)
    up = pld_lower.upper_epsilon(z, q, T, delta, grid)
    fine = _dp_pld(z, q, T, delta, grid / 4, truncation=math.log(1e-4 * delta / T))  # converged: pessimistic, finer
    assert 0 < lo <= fine <= up * (1 + 1e-6)
    # the bracket is much tighter than the optimistic (rounded-down) PLD at the same grid
    opt = _dp_pld(z, q, T, delta, grid, pessimistic=False)
    assert lo >= opt - 1e-12
    # PRV's certified interval (Gopi, Lee & Wutschitz 2021) and dpviz's overlap
    p_lo, _p_est, p_hi = _prv(z, q, T, delta, max(0.05 * fine, 5e-3))
    assert lo <= p_hi and p_lo <= up


def test_lower_bound_is_tight_where_rounding_down_gives_zero():
    # issue 21 bench: at n = T = 50 000 (z = 1, delta = 1e-6) dp_accounting's optimistic PLD says 0 at grid 1.6e-5
    assert _dp_pld(1.0, 2e-5, 50000, 1e-6, 1.6e-5, pessimistic=False) < 0.01
    lo = pld_lower.lower_epsilon(1.0, 2e-5, 50000, 1e-6, 4e-6)
    up = pld_lower.upper_epsilon(1.0, 2e-5, 50000, 1e-6, 4e-6)
    assert lo > 0.99 * up


@pytest.mark.parametrize("z, q, T, delta", [(1.0, 1 / 50000, 50000, 1e-6), (1.1, 256 / 60000, 14063, 1e-5),
                                            (5.0, 0.01, 1000, 1e-5), (1.0, 1e-3, 1000, 1e-6)])
def test_epsilon_bracket_is_narrower_than_one_percent(z, q, T, delta):
    br = accounting.pld_epsilon_bracket(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q)
    assert br["lower_from"] == "pld-merged" and br["converged"]
    assert br["eps_upper"] - br["eps_lower"] < 0.01 * br["eps_upper"]
    # the upper end is dp_accounting's connect-the-dots at the reported grid (called directly)
    ref = _dp_pld(z, q, T, delta, br["grid"], truncation=math.log(1e-4 * delta / T))
    assert br["eps_upper"] == pytest.approx(ref, rel=2e-5)
    fine = _dp_pld(z, q, T, delta, br["grid"] / 3, truncation=math.log(1e-4 * delta / T))
    assert br["eps_lower"] <= fine


@pytest.mark.parametrize("eps, q, T, delta", [(1.0, 1e-3, 1000, 1e-6), (3.0, 256 / 60000, 14063, 1e-5),
                                              (0.05, 0.01, 1000, 1e-5), (1.0, 0.1, 10, 1e-5)])
def test_sigma_bracket_ends_are_certified(eps, q, T, delta):
    sb = accounting.pld_sigma_bracket(eps=eps, delta=delta, steps=T, sampling_prob=q)
    z_up, z_lo, grid = sb["z_upper"], sb["z_lower"], sb["grid"]
    assert z_lo is not None and z_lo < z_up < z_lo * 1.02
    # z_upper suffices: dp_accounting's pessimistic PLD at the reported grid (called directly) meets eps
    assert _dp_pld(z_up, q, T, delta, grid, truncation=math.log(1e-4 * delta / T)) <= eps * (1 + 1e-9)
    # z_lower does not: the merged-interval lower bound exceeds eps there, and so does dp_accounting's fine PLD
    assert pld_lower.lower_epsilon(z_lo, q, T, delta, grid) > eps
    assert _dp_pld(z_lo, q, T, delta, grid / 2, truncation=math.log(1e-4 * delta / T)) > eps


def test_sigma_lower_end_certified_by_dp_accountings_optimistic_pld_on_a_short_composition():
    # T = 10: dp_accounting's rounded-down PLD at a fine grid loses at most T * grid = 1e-4, so it certifies alone
    sb = accounting.pld_sigma_bracket(eps=1.0, delta=1e-5, steps=10, sampling_prob=0.1)
    assert _dp_pld(sb["z_lower"], 0.1, 10, 1e-5, 1e-5, pessimistic=False) > 1.0


def test_privacy_json_carries_the_bracket_at_n_T_50000(capsys):
    code = main(["privacy", "--n", "50000", "--batch-size", "1", "--steps", "50000", "--noise-multiplier", "1",
                 "--delta", "1e-6", "--json"])
    assert code in (0, None)
    rows = {r["accountant"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    for r in rows.values():
        for key in ("eps_upper", "eps_lower", "method", "grid", "seconds"):
            assert key in r
    pld = rows["pld"]
    assert pld["eps_lower"] <= pld["eps_upper"] < 1.01 * pld["eps_lower"]
    assert "lower bound" in pld["method"] and "post-processing" in pld["method"]
    assert pld["eps_upper"] < rows["rdp"]["eps_upper"]
