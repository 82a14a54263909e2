"""Wang, Lei, Ying & Zhou (wang-lownoise): the utility theorems as rates, Theorems 3, 4, 6 and 7.

``bound_thm3a`` ... ``bound_thm7b``: the excess population risk of Algorithm 1 (Theorems 3 and 4) and Algorithm 2
(Theorems 6 and 7) with the paper's step size and number of steps, part (a) the general case and part (b) the
low-noise case F(w*) = 0, for L-smooth (Theorems 3, 6) and α-Hölder smooth (Theorems 4, 7) losses, up to the
paper's free constant c.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dpviz.foundation import validate as v
from dpviz.theory.catalog import BoundResult, Term
from dpviz.theory.papers._common import ceil_pow, exact_fraction


# ----------------------------------------------------------------------------------------------------------------
# utility theorems


def _result(theorem, terms, *, eta, T, notes=(), extras=None) -> BoundResult:
    return BoundResult.of(theorem, terms, eta=eta, T=T, notes=notes, extras=extras)


def _utility_inputs(n, d, eps, delta, c, L):
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    c = v.check_positive("c", c)
    if L is not None:
        L = v.check_positive("L", L)
    return n, d, eps, delta, c, L


def _T_general(n: int, alpha: float) -> int:
    """T = ⌈n^((2-α)/(1+α))⌉ (α < 1/2, Wang, Lei, Ying & Zhou, Theorems 3(a) and 4(a)), exactly (integer arithmetic)."""
    a = exact_fraction(alpha)
    return ceil_pow(n, (2 - a) / (1 + a))


def _T_lownoise(n: int, alpha: float) -> int:
    """T = ⌈n^(2/(1+α))⌉ (Wang, Lei, Ying & Zhou, Theorems 3(b) and 4(b)), exactly: n = 10⁶, α = 0 gives 10¹²."""
    return ceil_pow(n, Fraction(2) / (1 + exact_fraction(alpha)))


def _holder_alpha(alpha) -> float:
    alpha = v.check_unit("alpha (the Hölder exponent)", alpha)
    if alpha >= 1.0:
        raise ValueError(
            "alpha must lie in [0, 1) for the α-Hölder smooth theorems (Definition 3); alpha = 1 is the smooth case: "
            "use Theorem 3 (pointwise) or Theorem 6 (pairwise)."
        )
    return alpha


def _eta_notes(eta: float, L, smooth: bool = False) -> list[str]:
    lim = 1.0 if L is None else min(2.0 / L, 1.0)
    if eta > lim:
        what = "min{2/L, 1}" if L is not None else "1"
        return [f"The schedule's eta = {eta:.4g} exceeds {what} = {lim:g}, which the theorem requires: lower c."]
    if smooth and L is not None and eta > 1.0 / (2.0 * L):
        return [f"Reading of the proof (dpviz): the schedule's eta = {eta:.4g} > 1/(2L) = {1.0 / (2.0 * L):.4g}; the "
                "Young step behind eq. (8)/(11) and Theorem 16 (a) at alpha = 1 needs eta <= 1/(2L), which the "
                "theorem does not state (it states eta <= min{2/L, 1}): lower c."]
    return []


def _priv(n, d, eps, delta) -> float:
    return math.sqrt(d * math.log(1.0 / delta)) / (n * eps)


_PRIV_TEX = r"\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}"


def _privacy_term(n, d, eps, delta) -> Term:
    return Term("privacy", _priv(n, d, eps, delta), -1.0, -1.0, _PRIV_TEX)


def _smooth_general(thm_id, *, n, d, eps, delta, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    T = n
    eta = c * min(1.0 / math.sqrt(n), eps / math.sqrt(d * math.log(1.0 / delta)))
    terms = [Term("statistical", 1.0 / math.sqrt(n), -0.5, 0.0, r"\frac{1}{\sqrt n}"), _privacy_term(n, d, eps, delta)]
    notes = _eta_notes(eta, L, smooth=True) + ["T ≍ n is taken as T = n; the O(·) constant is 1."]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def _smooth_lownoise(thm_id, *, n, d, eps, delta, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    T = n
    eta = c * eps / math.sqrt(d * math.log(1.0 / delta))
    notes = _eta_notes(eta, L, smooth=True) + [
        "Low-noise case F(w*) = 0: the 1/sqrt(n) term disappears. T ≍ n is taken as T = n; the O(·) constant is 1."
    ]
    return _result(thm_id, [_privacy_term(n, d, eps, delta)], eta=eta, T=T, notes=notes)


def _holder_general(thm_id, *, n, d, eps, delta, alpha, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    alpha = _holder_alpha(alpha)
    root = math.sqrt(d * math.log(1.0 / delta))
    if alpha >= 0.5:
        T = n
        eta = c * min(1.0 / math.sqrt(n), eps / root)
    else:
        T = _T_general(n, alpha)
        eta = c * min(n ** (3.0 * (alpha - 1.0) / (2.0 * (1.0 + alpha))), eps / root)
    terms = [Term("statistical", 1.0 / math.sqrt(n), -0.5, 0.0, r"\frac{1}{\sqrt n}"), _privacy_term(n, d, eps, delta)]
    notes = _eta_notes(eta, L) + [
        "T ≍ n (alpha >= 1/2) or T ≍ n^((2-alpha)/(1+alpha)) (alpha < 1/2), taken with constant 1 (rounded up)."
    ]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def _holder_lownoise(thm_id, *, n, d, eps, delta, alpha, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    alpha = _holder_alpha(alpha)
    root = math.sqrt(d * math.log(1.0 / delta))
    T = _T_lownoise(n, alpha)
    eta = c * min(n ** ((alpha**2 + 2.0 * alpha - 3.0) / (2.0 * (1.0 + alpha))), n * eps / (T * root))
    terms = [
        Term("statistical", n ** (-(1.0 + alpha) / 2.0), -(1.0 + alpha) / 2.0, 0.0, r"n^{-\frac{1+\alpha}{2}}"),
        _privacy_term(n, d, eps, delta),
    ]
    notes = _eta_notes(eta, L) + [
        "Low-noise case F(w*) = 0. T ≍ n^(2/(1+alpha)) taken with constant 1 (rounded up); the O(·) constant is 1."
    ]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def bound_thm3a(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for L-smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 3 (a); proof
    eq. (13) with T ≍ n, κ = √n).

    Schedule :math:`\eta = c\min\{1/\sqrt n,\ \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).

    Terms ``statistical`` (n^{-1/2}) and ``privacy`` (n^{-1} ε^{-1}).  ``L`` (optional) checks η <= min{2/L, 1}.
    """
    return _smooth_general("wang-lownoise-thm3a", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm3b(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for L-smooth losses in the low-noise case F(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 3 (b); proof eq. (13) with κ = 1).

    Schedule :math:`\eta = c\epsilon/\sqrt{d\log(1/\delta)}`, T = n;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_lownoise("wang-lownoise-thm3b", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm4a(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for α-Hölder smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 4 (a);
    proof eq. (18) with κ = √n).

    α >= 1/2: :math:`\eta = c\min\{n^{-1/2}, \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;
    α < 1/2: :math:`\eta = c\min\{n^{\frac{3(\alpha-1)}{2(1+\alpha)}}, \epsilon/\sqrt{d\log(1/\delta)}\}`,
    :math:`T = \lceil n^{\frac{2-\alpha}{1+\alpha}}\rceil`;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_general("wang-lownoise-thm4a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm4b(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for α-Hölder smooth losses, low-noise case F(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 4 (b); end of the proof of Theorem 4).

    :math:`T = \lceil n^{\frac{2}{1+\alpha}}\rceil`,
    :math:`\eta = c\min\{n^{\frac{\alpha^2+2\alpha-3}{2(1+\alpha)}},\ \frac{n\epsilon}{T\sqrt{d\log(1/\delta)}}\}`;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(n^{-\frac{1+\alpha}{2}}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).

    Terms ``statistical`` (n exponent −(1+α)/2) and ``privacy``.  See the theorem's discrepancy note for η.
    """
    return _holder_lownoise("wang-lownoise-thm4b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm6a(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for L-smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 6 (a);
    proof eq. (22) with κ = √n).

    Schedule :math:`\eta = c\min\{1/\sqrt n,\ \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_general("wang-lownoise-thm6a", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm6b(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for L-smooth losses, low-noise case F̄(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 6 (b)).

    Schedule :math:`\eta = c\epsilon/\sqrt{d\log(1/\delta)}`, T = n;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_lownoise("wang-lownoise-thm6b", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm7a(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for α-Hölder smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 7 (a); proof eq. (25), "similar to Theorem 4").

    Same schedule as Theorem 4 (a): α >= 1/2: η = c min{n^{-1/2}, ε/√(d log(1/δ))}, T = n; α < 1/2:
    η = c min{n^{3(α−1)/(2(1+α))}, ε/√(d log(1/δ))}, T = ⌈n^{(2−α)/(1+α)}⌉;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_general("wang-lownoise-thm7a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm7b(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for α-Hölder smooth losses, low-noise case (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 7 (b)).

    T = ⌈n^{2/(1+α)}⌉, η = c min{n^{(α²+2α−3)/(2(1+α))}, nε/(T√(d log(1/δ)))};

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(n^{-\frac{1+\alpha}{2}}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_lownoise("wang-lownoise-thm7b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)
