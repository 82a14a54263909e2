"""Issue 31, item 3: the replace-one PLD lower bound from an explicit pair of neighbouring data sets
(dpviz.theory.pld_replace), checked against dp_accounting's replace-one PLD (pessimistic = upper, optimistic = lower,
grid 1e-4), against the exact one-step ε of the pair (closed form with normal tails), against prv-accountant (a
weaker pair of the same relation), and as a property: lower <= upper, ``converged`` exactly when the bracket is
within 1 %."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import ndtr

from dpviz.theory import accounting, pld_replace


def _bracket(z, q, T, delta):
    return accounting.pld_epsilon_bracket(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q,
                                          neighbouring="replace-one")


# dp_accounting 0.4's replace-one PLD at grid 1e-4: pl.from_gaussian_mechanism(2 z, sampling_prob=q,
# neighboring_relation=REPLACE_ONE, pessimistic_estimate=p, value_discretization_interval=1e-4,
# use_connect_dots=p).self_compose(T).get_epsilon_for_delta(delta); p = True: an upper bound, False: a lower bound
@pytest.mark.parametrize("z, q, T, delta, dp_upper, dp_lower", [
    # MNIST, 60 000 examples, batch 256, 60 epochs, noise 1.1 (sigma / C; z = sigma / (2C) = 0.55): the case
    (0.55, 256 / 60000, 14063, 1e-5, 4.2215, 3.5183),
    (0.5, 0.01, 1000, 1e-6, 3.2142, 3.1642),
    # extreme: q = 1e-4, 1e5 steps, delta = 1e-10 (dp_accounting's optimistic PLD gives 0 there, its pessimistic
    # 0.1108; dpviz's bracket [0.0850, 0.0853], the two ends from independent constructions)
    (2.0, 1e-4, 100000, 1e-10, 0.11084, 0.0),
])
def test_mnist_bracket_is_certified_and_tight(z, q, T, delta, dp_upper, dp_lower):
    br = _bracket(z, q, T, delta)
    assert br["lower_from"] == "pld-replace-pair"
    assert dp_lower <= br["eps_lower"] <= br["eps_upper"] <= dp_upper * (1 + 1e-3)
    assert br["eps_lower"] >= dp_lower + 0.3 * (dp_upper - dp_lower)  # well above the rounded-down PLD
    assert br["eps_upper"] - br["eps_lower"] <= 0.01 * br["eps_upper"]
    assert br["converged"] and "loose" not in br["note"]


def _exact_one_step(z, q, delta):
    """The exact ε(δ) of one step of the replace pair (1 - q)N(0, s²) + qN(1, s²) against (1 - q)N(0, s²) +
    qN(-1, s²), s = 2z: δ(ε) = P(Y > y*) - e^ε Q(Y > y*) with ℓ(y*) = ε (the loss increases in y), by brentq."""
    s = 2 * z
    lq, l1q = math.log(q), math.log1p(-q)

    def loss(y):  # log(1 - q + q e^a) - log(1 - q + q e^b), in log space (no overflow far out)
        a, b = (2 * y - 1) / (2 * s * s), (-2 * y - 1) / (2 * s * s)
        return float(np.logaddexp(l1q, lq + a) - np.logaddexp(l1q, lq + b))

    y_max = 40 * s + 2  # P-mass beyond: far below any delta here

    def d_of(eps):
        y = brentq(lambda x: loss(x) - eps, -y_max, y_max, xtol=1e-14)
        p = (1 - q) * ndtr(-y / s) + q * ndtr(-(y - 1) / s)
        qq = (1 - q) * ndtr(-y / s) + q * ndtr(-(y + 1) / s)
        return p - math.exp(eps) * qq

    return brentq(lambda e: d_of(e) - delta, 1e-9, 0.999 * loss(y_max), xtol=1e-12)


@pytest.mark.parametrize("z, q, delta", [(0.3, 0.1, 1e-6), (1.0, 0.5, 1e-5), (0.15, 1e-3, 1e-8)])
def test_one_step_brackets_the_exact_value(z, q, delta):
    exact = _exact_one_step(z, q, delta)
    lo = pld_replace.replace_lower_epsilon(z, q, 1, delta, 1e-3)
    assert lo <= exact * (1 + 1e-9)
    assert lo >= exact - 2e-3  # one step: at most a grid step below
    br = _bracket(z, q, 1, delta)
    assert br["eps_lower"] <= exact * (1 + 1e-9) <= br["eps_upper"] * (1 + 1e-9)


def test_never_below_a_weaker_pair_by_prv():
    # the pair "gradient C against 0" is also a replace-one pair: the Poisson add/remove mechanism at noise
    # multiplier 2z; prv-accountant's certified lower bound on its eps is a lower bound on the replace-one eps too
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    z, q, T, delta = 0.55, 256 / 60000, 14063, 1e-5
    acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=2 * z, sampling_probability=q),
                        max_self_compositions=T, eps_error=0.01, delta_error=delta / 1000)
    prv_lo, _est, prv_hi = acc.compute_epsilon(delta=delta, num_self_compositions=T)
    br = _bracket(z, q, T, delta)
    assert prv_lo <= br["eps_upper"]
    assert br["eps_lower"] > prv_hi  # and the +C / -C pair is far less private than the C / 0 one


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=st.floats(min_value=1e-4, max_value=0.5), steps=st.integers(min_value=1, max_value=20000),
       z=st.floats(min_value=0.3, max_value=5.0), delta=st.floats(min_value=1e-10, max_value=1e-3))
def test_replace_one_lower_never_above_upper(q, steps, z, delta):
    try:
        br = _bracket(z, q, steps, delta)
    except ValueError as exc:  # refused at once with its reason
        assert str(exc)
        return
    if br["eps_lower"] is not None:
        assert 0.0 <= br["eps_lower"] <= br["eps_upper"]
    assert br["converged"] == (br["eps_lower"] is not None
                               and br["eps_upper"] - br["eps_lower"] <= 0.01 * br["eps_upper"])
