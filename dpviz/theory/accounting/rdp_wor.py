"""Rényi DP of the Gaussian mechanism on a fixed-size batch sampled without replacement, replace-one neighbours
(Wang, Balle & Kasiviswanathan 2019, Theorem 27), vectorised from ``dp_accounting``, and the floor of its conversion
to (ε, δ)."""

from __future__ import annotations

import functools
import math

from dpviz.foundation import validate as v
from dpviz.theory.accounting import hockey
from dpviz.theory.accounting.rdp_poisson import WOR_ORDERS, _exact_zero, _sound_rdp


#: below this noise multiplier the forward differences are dp_accounting's recursion (accurate there: within 1e-9 of
#: a 1 500-digit computation for z = 0.05 … 1), from it on the quadrature of :func:`_even_forward_diffs_quad`
_QUAD_FROM_Z = 1.0
#: log-space margin added to every forward difference, so that each is an upper bound despite rounding (the two
#: methods' largest errors against 1 500-digit values, z = 0.05 … 1000: 3.7e-9 at |log Δ| ≈ 2·10⁷, 4e-12 at z >= 1)
_FD_MARGIN_REL, _FD_MARGIN_ABS = 1e-13, 1e-10


def _forward_diffs(z: float, n: int):
    """log Δ^{k+1}F(0) at index k (k = 0 … n+1; only the even orders, at odd k, are used by Theorem 27) for
    F(i) = exp(cgf(i − 1)) = exp(i(i − 1)/(2z²)) (Wang, Balle & Kasiviswanathan 2019, Theorem 27): the ``deltas`` of
    ``dp_accounting``'s ``_get_forward_diffs(cgf, n)``, made upper bounds by a rounding margin.

    For z < :data:`_QUAD_FROM_Z` they are dp_accounting's recursion (:func:`_forward_diffs_recursive`).  From z = 1 on
    that recursion loses the differences to cancellation — it subtracts numbers that agree in all but the last digits
    k times — so at z = 7 an even-order difference comes out e^1.6 too *small* and at z = 10.3 e^42 too large (against
    1 500-digit values; tests/test_wor_forward_diffs.py).  Too small a difference makes the RDP of sampling without
    replacement too small — at z = 7, q = 0.1, one step, δ = 2.5·10⁻⁹ dp_accounting's ε = 0.11293 where the formula
    gives 0.11304, so its ε is not a bound there — and the errors make ε(z) jump by 10⁻³ between neighbouring z.  There
    the even-order differences are computed instead as Gaussian moments, which involve no cancellation
    (:func:`_even_forward_diffs_quad`); odd orders are set to +inf (never used; a use would only be conservative)."""
    import numpy as np

    out = _even_forward_diffs_quad(z, n) if z >= _QUAD_FROM_Z else _forward_diffs_recursive(z, n)
    return out + np.where(np.isfinite(out), _FD_MARGIN_REL * np.abs(out) + _FD_MARGIN_ABS, 0.0)


def _even_forward_diffs_quad(z: float, n: int, h: float = 0.25):
    """log Δ^k F(0) for the even k = 2, 4, … <= n + 2 (at index k − 1; +inf at the other indices), F(i) =
    exp(i(i − 1)/(2z²)).

    Since E[e^{tG}] = e^{t²/2} for a standard normal G, F(i) = E[u^i] with u = exp(G/z − 1/(2z²)) (the likelihood
    ratio of N(1/z, 1) to N(0, 1) at G), so the k-th forward difference at 0 is the binomial sum of these moments,
    Δ^k F(0) = E[(u − 1)^k]: for even k a positive integral, here ∫ (u(g) − 1)^k φ(g) dg by the trapezoid rule on
    log-space terms (log|u − 1| through expm1, so there is no cancellation either near u = 1).  The integrand is
    entire and grows at most like a Gaussian off the real line, so the rule with step h converges like exp(−π²/h²)
    (h = 0.25: 10⁻⁶⁹, far below rounding); the nodes run from g = −40 to 40 beyond the largest order's peak (near
    g = k/z + √k).  The moment identity is the binomial expansion of E[(u − 1)^k]; checked against 1 500-digit sums in
    tests/test_wor_forward_diffs.py."""
    import numpy as np

    s = 1.0 / z
    c2 = 0.5 * s * s
    k = np.arange(2, n + 3, 2, dtype=float)[:, None]
    g = np.arange(-40.0, float(k.max()) * s + math.sqrt(float(k.max())) + 40.0 + h, h)[None, :]
    x = s * g - c2
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # log|e^x − 1|: expm1 near 0 (no cancellation), x + log(1 − e^{−x}) for large x (no overflow)
        lw = np.where(x > 30.0, x + np.log1p(-np.exp(-np.clip(x, 30.0, None))),
                      np.log(np.abs(np.expm1(np.minimum(x, 30.0)))))
    from dpviz.theory.lse import logsumexp_rows

    vals = logsumexp_rows(k * lw - 0.5 * g * g) + math.log(h) - 0.5 * math.log(2.0 * math.pi)
    out = np.full(n + 2, np.inf)
    out[1::2] = vals[: len(out[1::2])]
    return out


def _forward_diffs_recursive(z: float, n: int):
    """log|Δ^k g|(0), k = 0 … n+1: the ``deltas`` of ``dp_accounting``'s ``_get_forward_diffs(cgf, n)`` for
    cgf(x) = x(x+1)/(2z²), with the same log-space differencing and sign book-keeping (its
    ``_stable_inplace_diff_in_log``), one vectorised numpy pass per order of difference instead of a Python loop
    (accurate for z < 1 only: see :func:`_forward_diffs`)."""
    import numpy as np

    vec = np.zeros(n + 3)
    idx = np.arange(1, n + 3, dtype=float)
    vec[1:] = (idx - 1.0) * idx / (2.0 * z * z)
    pos = np.ones(n + 3, dtype=bool)
    deltas = np.zeros(n + 2)
    log1p, exp, maximum, minimum, where = np.log1p, np.exp, np.maximum, np.minimum, np.where
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for i in range(n + 2):
            m = n + 2 - i  # number of differences dp_accounting computes in this pass
            if m > 0:
                a, b = vec[1:m + 1], vec[:m]  # new vec[j] = value[j+1] − value[j]
                sa, sb = pos[1:m + 1], pos[:m]
                hi, lo = maximum(a, b), minimum(a, b)
                r = exp(lo - hi)
                same = sa == sb
                mag = hi + log1p(where(same, -r, r))
                mag = where(same & (a == b), -np.inf, where(~same & (lo == -np.inf), hi, mag))  # isneginf
                sign = where(same, where(a < b, ~sa, sa), sa)
                vec[:m] = mag
                pos[:m] = sign
            deltas[i] = vec[0]
    return deltas


@functools.lru_cache(maxsize=64)
def _wor_terms(alphas: tuple[int, ...]):
    """The parts of :func:`_wor_log_a_int`'s sum that depend on the orders alone, for one group of orders (all
    α <= 256, or all above): the orders as a column, the term indices i = 2 … max α as a row, the mask of the terms
    i > α (left out of the sum) and the log binomial coefficients log C(α, i).  Computed once per group:
    the gammaln of a (orders × terms) array was half of an evaluation's time (one ε of the accountant, ~225 orders)."""
    import numpy as np
    from scipy.special import gammaln

    a = np.asarray(alphas, dtype=float)[:, None]
    i = np.arange(2, int(a.max()) + 1, dtype=float)[None, :]
    valid = i <= a
    k = np.where(valid, a - i, 0.0)
    logcomb = gammaln(a + 1.0) - gammaln(i + 1.0) - gammaln(k + 1.0)
    for arr in (a, i, valid, logcomb):
        arr.setflags(write=False)
    return a, i, ~valid, logcomb


def _wor_log_a_int(q: float, z: float, alphas, deltas):
    """log A_α of Wang, Balle & Kasiviswanathan (2019), Theorem 27, for integer orders α >= 2: the formula of
    ``dp_accounting``'s ``_compute_rdp_sample_wor_gaussian_int`` (exact sum for α <= 256, the Stirling-type bound
    above), summed with one ``logsumexp`` per order over the terms i = 0, 2, 3, … α.

    The orders are summed in two groups (α <= 256 with the forward differences, α > 256 with the bound), each padded
    only to its own largest order, and the order-only parts come from :func:`_wor_terms`; each term is the same
    floating-point number as dp_accounting's (its ``s`` + i log q + log C(α, i)) and only the padding of the rows
    with exp(−inf) = 0 differs: the values equal the single padded array's bit for bit (67 500 orders of 300 random
    (q, z), benchmarks/RESULTS.md "Session 41"; tests/test_privacy_lab.py compares with dp_accounting to 10⁻¹⁰)."""
    import numpy as np

    from dpviz.theory.lse import logsumexp_rows

    ints = [int(x) for x in alphas]
    f2 = 2.0 / (2.0 * z * z)
    # log(1 - e^{-f2}) as log(-expm1(-f2)): the same number, but finite when f2 is tiny (sigma 1e9: f2 = 1e-18)
    first = min(math.log(4) + f2 + math.log(-math.expm1(-f2)), f2 + math.log(2))
    log_q = math.log(q)
    out = {}
    for exact in (True, False):
        group = tuple(x for x in ints if (x <= 256) == exact)
        if not group:
            continue
        a, i, invalid, logcomb = _wor_terms(group)
        cgf_im1 = (i - 1.0) * i / (2.0 * z * z)
        if exact and deltas is not None:
            ii = i[0].astype(int)
            lo_idx = np.clip(2 * (ii // 2) - 1, 0, len(deltas) - 1)
            hi_idx = np.clip(2 * ((ii + 1) // 2) - 1, 0, len(deltas) - 1)
            t = math.log(4) + 0.5 * (deltas[lo_idx] + deltas[hi_idx])
            row = np.minimum(t, math.log(2) + cgf_im1[0])[None, :]
        else:  # i > 2, orders above 256
            row = math.log(2) + cgf_im1
        row = row + i * log_q
        s = np.empty((a.shape[0], i.shape[1] + 1))
        s[:, 0] = 0.0
        body = s[:, 1:]
        np.add(row, logcomb, out=body)
        body[:, 0] = 2 * log_q + logcomb[:, 0] + first
        np.copyto(body, -np.inf, where=invalid)
        out.update({int(x): float(val) for x, val in zip(a[:, 0], logsumexp_rows(s))})
    return {x: out[x] for x in ints}


def _rdp_wor_gaussian(q: float, z: float, orders):
    """Per-step RDP of the Gaussian mechanism (noise multiplier z) on a uniformly random subset of m = q·n of n
    examples, replace-one neighbours: ``dp_accounting``'s ``_compute_rdp_sample_wor_gaussian`` (Wang, Balle &
    Kasiviswanathan 2019, Theorem 27 and Corollary 10 for fractional orders), vectorised; a test checks equality."""
    import numpy as np

    orders = np.asarray(orders, dtype=float)
    if q >= 1.0:
        return orders / (2.0 * z * z)
    ints, af, ac, is_int, t = _order_plan(tuple(orders.tolist()))  # the same floats, one C call
    small = [a for a in ints if a <= 256]
    deltas = _forward_diffs(z, max(small)) if small else None
    log_a = _wor_log_a_int(q, z, ints, deltas)
    table = np.full(max(ints, default=1) + 1, np.nan)  # log A_α by integer order; A_1 = 1
    table[1] = 0.0
    table[ints] = [log_a[a] for a in ints]
    lo, hi = table[af], table[ac]
    # integer orders: log A_α/(α − 1); between two integers, Corollary 10's interpolation (as dp_accounting)
    with np.errstate(invalid="ignore"):
        return np.where(is_int, lo, (1.0 - t) * lo + t * hi) / (orders - 1.0)


@functools.lru_cache(maxsize=16)
def _order_plan(orders: tuple):
    """For a tuple of Rényi orders (each > 1): the integer orders >= 2 whose log A_α is needed, each order's floor and
    ceiling, whether it is an integer and its fractional part — Python loops over ~225 orders, once per tuple."""
    import numpy as np

    arr = np.asarray(orders, dtype=float)
    if arr.size and arr.min() <= 1.0:
        raise ValueError(f"Rényi orders must be above 1 (got {arr.min():g})")
    af, ac = np.floor(arr).astype(int), np.ceil(arr).astype(int)
    ints = sorted({int(a) for a in np.concatenate((af, ac)) if a >= 2})
    for x in (af, ac):
        x.setflags(write=False)
    return ints, af, ac, arr == af, arr - af


@functools.lru_cache(maxsize=8192)
def _wor_eps_opt(z: float, delta: float, steps: int, q: float, max_order: float,
                 min_order: float = 0.0) -> tuple[float, float]:
    """(ε, optimal order) of the without-replacement RDP accountant over the orders of :data:`WOR_ORDERS` in
    [``min_order``, ``max_order``] (fewer and smaller orders are much cheaper: the forward differences of
    Theorem 27 cost O(max order²))."""
    import logging

    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [o for o in WOR_ORDERS if min_order <= o <= max_order]
    absl_logger = logging.getLogger("absl")
    level = absl_logger.level
    absl_logger.setLevel(logging.ERROR)
    try:
        total = steps * _sound_rdp(_rdp_wor_gaussian(q, z, orders), orders, z)
        eps, opt = rdp.compute_epsilon(orders, total, delta)
    finally:
        absl_logger.setLevel(level)
    eps = float(eps)
    if eps <= 0.0 and not _exact_zero(z, delta, steps, q):
        # the conversion's KL shortcut, not trusted (issue 31, item 2): the one-step composition or an order's own
        # conversion, whichever is smaller (as the Poisson accountant does)
        eps = min(hockey.composed_eps(z, delta, steps, q), hockey.positive_conversion(orders, total, delta))
    return (eps if math.isfinite(eps) else math.inf), float(opt)


def _wor_eps(z: float, delta: float, steps: int, q: float) -> float:
    if _exact_zero(z, delta, steps, q):  # total variation <= delta: (0, delta)-DP exactly
        return 0.0
    eps = _wor_eps_opt(z, delta, steps, q, math.inf)[0]
    if eps <= 0.0:  # the conversion's KL shortcut on rounding-sized divergences: not trusted (issue 31, item 2)
        eps = hockey.composed_eps(z, delta, steps, q)
    return eps


@functools.lru_cache(maxsize=1024)
def wor_rdp_floor(delta: float, steps: int, sampling_prob: float) -> float:
    r"""The smallest *positive* ε the without-replacement RDP accountant certifies, whatever the noise.

    As z → ∞ the RDP of Wang, Balle & Kasiviswanathan (2019, Theorem 27) vanishes at the orders up to 256 (their exact
    sum), but not above (its Stirling-type bound keeps a term that does not depend on z), so the RDP → (ε, δ)
    conversion of dp_accounting (Canonne, Kamath & Steinke 2020)

    .. math:: \epsilon(\lambda) = T\rho_\infty(\lambda) + \log(1 - 1/\lambda) - \frac{\log\delta + \log\lambda}{\lambda - 1}

    has a floor: at n = T = 1000 (q = 1/n), δ = 10⁻⁶ it is 0.02852 (order 256).  Below it the accountant certifies
    only ε = 0, and only where that is exact: the total variation bound 1 − (1 − q·erf(1/(2√2 z)))^T of
    :func:`dpviz.theory.gaussian.total_variation` is at most δ (z = 398 942 at n = T = 1000).  dp_accounting's own
    shortcut (T·ρ(λ) < δ², the two output distributions then within δ in total variation) fires at z = 63 246 there,
    but on per-step divergences of about 10⁻¹⁶, the size of their rounding error, so dpviz does not rely on it (issue
    31; :func:`_sound_rdp`).  Every target ε below the floor gets that same σ.
    """
    import numpy as np

    delta = v.check_delta(delta)
    steps = v.check_int("steps (number of compositions)", steps)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_prob must lie in (0, 1], got {q:g}.")
    orders = np.asarray([o for o in WOR_ORDERS if o > 1.01], float)
    # ρ_∞: 0 at the orders up to 256; above, the z-free term (its value at a large z, where the rest is < 1e-20)
    rho = np.where(orders <= 256, 0.0, _rdp_wor_gaussian(q, 1e12, orders) if q < 1.0 else 0.0)
    eps = steps * rho + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    return float(max(np.min(eps), 0.0))


def wor_floor_note(eps: float, delta: float, steps: int, sampling_prob: float) -> str | None:
    """A sentence for a σ that the without-replacement RDP accountant finds for a target ε below its floor
    (:func:`wor_rdp_floor`), else None: that σ is certified only through ε = 0 and is no measure of the noise the
    mechanism needs."""
    floor = wor_rdp_floor(delta, steps, sampling_prob)
    if not eps < floor:
        return None
    return (f"ε = {eps:g} is below {floor:.4g}, the smallest positive ε this RDP accountant certifies at any noise (its "
            "bound at the Rényi orders above 256 does not vanish as σ grows): its σ is the noise at which it certifies "
            "ε = 0 (the two output distributions within total variation δ), the same for every target below "
            f"{floor:.4g}. That σ certainly suffices but says nothing about how much noise the mechanism needs; a "
            "tighter analysis would need far less.")
