"""The regula-falsi search of a noise bracket (dpviz.theory.accounting.search.log_root): the same answer as bisection
to within the tolerance, on smooth, stepped and zero-valued ε(z), with fewer evaluations on smooth ones."""

import math

import pytest

from dpviz.theory.accounting.hockey import log_bisect
from dpviz.theory.accounting.search import _smallest_private, log_root

TOL = math.log1p(1e-6)


def _check(f, target, lo, hi):
    calls = []

    def counted(x):
        calls.append(x)
        return f(x)

    got = log_root(counted, target, lo, hi, f(lo), f(hi), TOL)
    bis = []
    ref = log_bisect(lambda x: bis.append(x) or f(x) <= target, lo, hi, TOL)
    assert f(got) <= target  # the answer satisfies the predicate ...
    assert f(got / (1.0 + 2e-6)) > target or got <= lo * (1 + 2e-6)  # ... and is the smallest to within the tolerance
    assert abs(math.log(got / ref)) <= 2 * TOL
    return len(calls), len(bis)


@pytest.mark.parametrize("target", [1e-6, 0.01, 0.5, 1.0, 3.0, 100.0])
def test_smooth_decreasing_functions_take_few_evaluations(target):
    for f in (lambda z: 1.0 / z, lambda z: 3.0 * math.exp(-z), lambda z: 5.0 / z**2 + 0.1 / z):
        if f(1e-9) <= target:
            continue  # the target is above this function's range
        lo, hi = 1e-3, 1e3
        while f(lo) <= target:
            lo /= 10
        while f(hi) > target:
            hi *= 10
        ours, bisection = _check(f, target, lo, hi)
        assert ours <= bisection  # bisection: ~24 on these brackets
    # a power law in z (like the RDP accountants' ε at large noise): a handful of steps
    assert _check(lambda z: 4.0 / z, target, 1.0, 4.0 * 4.0 / target)[0] <= 8


def test_zeros_steps_and_infinities_fall_back_to_bisection():
    # ε exactly 0 beyond z = 5 (the KL shortcut), infinite below z = 0.1, a step at 2
    def f(z):
        if z < 0.1:
            return math.inf
        if z > 5:
            return 0.0
        return (3.0 if z < 2 else 1.0) / z

    for target in (0.9, 0.5, 0.3, 1e-9):
        ours, bisection = _check(f, target, 0.01, 100.0)
        assert ours <= 2 * bisection  # at a jump regula falsi can only crawl; the safeguard bisects every third step


def test_smallest_private_with_values_agrees_with_the_predicate_only_search():
    f = lambda z: 2.0 / z**1.5  # noqa: E731
    for guess in (0.01, 1.0, 300.0):
        a = _smallest_private(lambda z: f(z) <= 0.7, guess, 1e-6, "test")
        b = _smallest_private(None, guess, 1e-6, "test", value=f, target=0.7)
        assert abs(math.log(a / b)) <= 2 * TOL and f(b) <= 0.7
