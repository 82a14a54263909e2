"""The accountants' entry points: :func:`epsilon_for` / :func:`noise_multiplier_for` (Poisson sampling, add/remove)
and :func:`epsilon_general` / :func:`noise_multiplier_general` (a chosen sampling scheme and neighbouring relation),
each dispatching to the Rényi (:mod:`.rdp_poisson`, :mod:`.rdp_wor`) or the PLD accountant (:mod:`.pld_checked`)."""

from __future__ import annotations

import functools
import math

from dpviz.foundation import validate as v
from dpviz.theory.accounting.checks import _check_common, _check_general
from dpviz.theory.accounting.pld_checked import _pld_bracket_cached, _solve_pld_fast
from dpviz.theory.accounting.rdp_poisson import _eps_rdp, _exact_zero
from dpviz.theory.accounting.rdp_wor import _wor_eps
from dpviz.theory.accounting.search import _solve_rdp, _solve_wor


def _pld_eps(z: float, delta: float, steps: int, q: float) -> float:
    """Upper bound on ε by PLD, on a grid refined until it changes by < 1 % (:func:`pld_bracket`)."""
    return _pld_bracket_cached(z, delta, steps, q, False).eps_upper


@functools.lru_cache(maxsize=4096)
def _eps(z: float, delta: float, steps: int, q: float, accountant: str) -> float:
    if accountant == "rdp":
        return _eps_rdp(z, delta, steps, q)
    if _exact_zero(z, delta, steps, q):
        return 0.0  # total variation <= delta: (0, delta)-DP exactly
    eps = _pld_eps(z, delta, steps, q)
    return eps if math.isfinite(eps) else math.inf


def epsilon_for(*, noise_multiplier, delta, steps, sampling_prob=1.0, accountant="rdp") -> float:
    r"""The ε of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism at a given δ.

    Each step releases ``f(S_t) + N(0, σ² I)`` where ``S_t`` contains each example independently with probability
    ``sampling_prob`` and ``f`` has ℓ2-sensitivity Δ (add/remove one example); ``noise_multiplier`` is z = σ/Δ.
    This is the mechanism of DP-SGD whose moments-accountant bound is eq. (2) of Kang, Li, Liu & Wang (kang-pidp) (§4).
    Without sampling, RDP of order λ is λ/(2z²) per step, so

    .. math:: \epsilon \le \min_{\lambda>1}\Big(\frac{T\lambda}{2z^2} + \frac{\log(1/\delta)}{\lambda-1}\Big).

    Parameters
    ----------
    noise_multiplier : float
        z = σ / sensitivity, > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        Number of compositions (iterations), >= 1.
    sampling_prob : float, default 1
        Poisson sampling probability in (0, 1]; 1 means no sub-sampling.
    accountant : {"rdp", "pld"}
        Rényi-DP accountant (fast) or privacy-loss-distribution accountant (tighter, slower).

    Returns
    -------
    float
        ε (``inf`` when the accountant finds no finite ε, e.g. for a tiny noise multiplier).
    """
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    return _eps(z, delta, steps, q, accountant)


@functools.lru_cache(maxsize=4096)
def _solve(eps: float, delta: float, steps: int, q: float, accountant: str, rtol: float) -> float:
    """Smallest z with ε(z) <= ``eps`` by ``accountant``: :func:`.search._solve_rdp` for RDP,
    :func:`.pld_checked._solve_pld_fast` (an upper bound on the σ needed) for PLD."""
    if accountant == "pld":
        return _solve_pld_fast(eps, delta, steps, q, max(rtol, 1e-4))
    return _solve_rdp(eps, delta, steps, q, rtol)


def noise_multiplier_for(*, eps, delta, steps, sampling_prob=1.0, accountant="rdp", rtol=1e-9) -> float:
    r"""The smallest Gaussian noise multiplier z = σ / sensitivity that makes DP-SGD (ε, δ)-DP.

    The mechanism is that of :func:`epsilon_for`: ``steps`` compositions of the Gaussian mechanism applied to a
    Poisson sample (probability ``sampling_prob``) — the moments-accountant setting of eq. (2) in
    Kang, Li, Liu & Wang (kang-pidp) (§4), which states ``σ >= c G sqrt(T log(1/δ)) / (nε)`` for an unspecified c.  The
    answer is found by bracketing z around the scaling q sqrt(T log(1/δ))/ε and solving ε(z) = ``eps`` with Brent's
    method on the monotone map z ↦ ε(z); the returned z satisfies ``epsilon_for(z) <= eps`` and is within a relative
    ``rtol`` of the exact threshold of the chosen accountant.

    Parameters
    ----------
    eps : float
        Target ε > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        Number of iterations (compositions), >= 1.
    sampling_prob : float, default 1
        Poisson sampling probability in (0, 1] (e.g. 1/n for one example per step).
    accountant : {"rdp", "pld"}
        See the module docstring.
    rtol : float, default 1e-9
        Relative tolerance of the root finding.

    Returns
    -------
    float
        The noise multiplier z; σ = z · sensitivity.

    Raises
    ------
    ValueError
        For invalid inputs (with a message naming the parameter).
    """
    eps = v.check_eps(eps)
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    return _solve(eps, delta, steps, q, accountant, rtol)


def epsilon_general(*, noise_multiplier, delta, steps, sampling_prob=1.0, sampling="poisson",
                    neighbouring="add-remove", accountant="rdp") -> float:
    r"""ε of ``steps`` compositions of a sub-sampled Gaussian mechanism, for a chosen sampling scheme and
    neighbouring relation.

    ``noise_multiplier`` is z = σ/Δ with Δ the ℓ2-sensitivity *under the chosen relation* (for a sum of gradients
    clipped to norm G: Δ = G for add/remove, Δ = 2G for replace-one).

    * ``sampling="poisson"``: each example enters a step independently with probability q
      (``dp_accounting.PoissonSampledDpEvent``); add/remove neighbours by RDP or PLD, replace-one by PLD only
      (dp_accounting's pair q·N(−Δ/2) + (1−q)·N(0) against q·N(Δ/2) + (1−q)·N(0): the replaced example's
      contribution moves by at most Δ).
    * ``sampling="without-replacement"``: each step uses a uniformly random subset of m = q·n examples
      (``dp_accounting.SampledWithoutReplacementDpEvent`` with ``NeighboringRelation.REPLACE_ONE``), RDP of Wang,
      Balle & Kasiviswanathan (2019, Theorem 27), vectorised here (:func:`_rdp_wor_gaussian`).
    * ``sampling_prob=1``: no sampling (full batch): T Gaussian mechanisms.
    """
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant)
    if accountant == "pld":
        return _pld_bracket_cached(z, delta, steps, q, neighbouring == "replace-one" and q < 1.0).eps_upper
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        return _eps(z, delta, steps, q, accountant)
    return _wor_eps(z, delta, steps, q)


def noise_multiplier_general(*, eps, delta, steps, sampling_prob=1.0, sampling="poisson",
                             neighbouring="add-remove", accountant="rdp", rtol=1e-6) -> float:
    """The smallest noise multiplier z = σ/Δ with :func:`epsilon_general` (z) <= ``eps`` (Δ: the sensitivity under
    ``neighbouring``).  RDP: Brent's method on the monotone map z ↦ ε(z) (without replacement: geometric bracketing,
    then regula falsi on log ε that keeps bisection's invariant, :func:`search.log_root`).  PLD: warm start from the
    RDP answer, a coarse (10×) discretisation first, then the fine one (:func:`pld_bracket` chooses it), cached by
    inputs."""
    eps = v.check_eps(eps)
    delta, steps, q = _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    if accountant == "pld":
        return _solve_pld_fast(eps, delta, steps, q, max(rtol, 1e-4), neighbouring == "replace-one" and q < 1.0)
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        return _solve(eps, delta, steps, q, "rdp", rtol)
    return _solve_wor(eps, delta, steps, q, rtol)
