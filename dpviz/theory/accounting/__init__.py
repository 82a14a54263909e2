"""Numerical privacy accounting for the (Poisson-)subsampled Gaussian mechanism, via Google's ``dp_accounting``.

Several papers state their noise level only up to an unspecified constant, e.g. eq. (2) of Kang, Li, Liu & Wang
(Kang, Li, Liu & Wang (kang-pidp), §4): ``σ >= c G sqrt(T log(1/δ)) / (n ε)`` "for some constant c", quoted from the moments
accountant of Abadi et al.  dpviz calibrates such noise numerically with this module:

:func:`epsilon_for`
    the ε at which ``steps`` compositions of the Poisson-subsampled Gaussian mechanism (sampling probability
    ``sampling_prob``, noise multiplier z = σ / sensitivity) are (ε, δ)-DP;
:func:`noise_multiplier_for`
    the smallest noise multiplier z that makes them (ε, δ)-DP, found by bracketing + Brent/bisection on log z.

Two accountants are available:

``"rdp"`` (default)
    Rényi DP (Mironov, Talwar & Zhang 2019), the per-order RDP of :class:`dp_accounting.rdp.RdpAccountant` over the
    orders :data:`RDP_ORDERS` (dp_accounting's defaults plus denser orders from 64 to 1024); ``steps``
    compositions are added analytically (RDP is additive), so a call costs a few tens of milliseconds whatever
    ``steps`` is.  The conversion RDP → (ε, δ) is the one of ``dp_accounting``
    (Canonne, Kamath & Steinke 2020), slightly tighter than the classical ε = ρ(λ) + log(1/δ)/(λ − 1).
``"pld"``
    privacy-loss distributions (self-composition by FFT), tighter but slower, with an error bar.  For Poisson
    sampling under add/remove neighbours (DP-SGD as Opacus and TF Privacy account it) the upper bound is the
    connect-the-dots PLD (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022; dp_accounting's algorithm, vectorised)
    and the lower bound the PLD of a post-processing of the mechanism whose privacy losses lie exactly on the grid
    (:mod:`dpviz.theory.pld_lower`); both err by O(Δ²) per step, and the grid is refined until they agree to 1 %.  Elsewhere
    (replace-one, full batch) the upper bound is dp_accounting's pessimistic PLD, refined until it changes by < 1 %,
    and the lower bound its optimistic PLD; for Poisson replace-one the lower bound is that of an explicit pair of
    neighbouring data sets (the replaced example's gradient +C against −C, every other one 0), post-processed onto
    the grid with an error O(Δ²) per step (:mod:`dpviz.theory.pld_replace`) — :func:`pld_bracket`, :func:`pld_epsilon_bracket`,
    :func:`pld_sigma_bracket` (whose σ interval is certified at both ends for Poisson add/remove).  The size of the
    grid is estimated before any work; where it would not fit, :class:`PldTooLarge` (a ``ValueError``) says how large
    it would be.

Every PLD result is checked, not trusted (issue 31).  Each composition is an FFT of exponentially tilted PMFs whose
numerical error is bounded and charged to δ (:func:`dpviz.theory.pld_lower._compose_eps`); where no tilt resolves δ
(e.g. q = 10⁻⁶, 10⁶ steps, δ = 10⁻¹²: the atoms that decide ε weigh 10⁻¹⁷ under an FFT noise floor of 10⁻¹⁴) it
raises :class:`Unsettled` instead of returning a number.  The PLD's bracket is then compared with RDP's ε, a valid
upper bound of the same mechanism: the upper bound reported is min(PLD, RDP), and where the PLD does not settle or its
lower bound exceeds RDP's upper bound, RDP's bound is reported with no lower bound, ``fallback="rdp"`` and a note
(:func:`_checked_bracket`, :func:`_checked_sigma`).  The references are unstable there too: dp_accounting's PLD at
q = 10⁻⁶, 10⁶ steps, δ = 10⁻¹², z = 0.55 gives ε = 0.733 at grid 10⁻² and 9.48 at 10⁻³, its RDP 3.43; the PRV
accountant would need a mesh of about ε_error/√(T log(1/δ)) ≈ 10⁻⁶, far beyond memory.  ε = 0 is returned only
where it is exact: the total variation of the mechanism (:func:`dpviz.theory.gaussian.total_variation`) is at most δ
(a per-step Rényi divergence below 10⁻¹⁰ is rounding noise and is replaced by a bound, :func:`_sound_rdp`); where
dp_accounting's conversion still reads 0 (its KL shortcut) but the total variation exceeds δ, the ε reported is the
one certified by one exact Gaussian step, amplification by sub-sampling and composition (:mod:`.hockey`).  δ above
:data:`DELTA_MAX` = 0.1 is refused.

The neighbouring relation is add/remove-one (the relation of the moments accountant).  For a replace-one analysis
pass the replace-one sensitivity (2G for gradients bounded by G) when converting σ to z = σ / sensitivity; see
:mod:`dpviz.theory.papers.kang_pidp`.

The package holds one module per method; this ``__init__`` re-exports the names other code uses
(``from dpviz.theory import accounting`` then ``accounting.epsilon_general`` …).  Lowest first, each importing only
those before it:

``checks``
    shared input checks (δ at most :data:`DELTA_MAX`, steps, sampling, neighbouring) and the noise search's range;
``hockey``
    the ε certified where the Rényi conversion reads 0 but the total variation cannot show ε = 0 (one exact
    Gaussian step, amplification by sub-sampling, composition);
``rdp_poisson``
    Rényi DP of the Poisson-subsampled Gaussian (add/remove), the orders :data:`RDP_ORDERS`, ε = 0 only where exact;
``rdp_wor``
    Rényi DP without replacement, replace-one (Wang, Balle & Kasiviswanathan 2019), its floor :func:`wor_rdp_floor`;
``search``
    the ε → σ searches of the Rényi accountants and the root finders the PLD searches share;
``pld_dp``
    PLD through ``dp_accounting`` (one step's PMFs, composition with bounded error, work estimates,
    :class:`PldTooLarge`, :class:`PldBracket`) and the PRV accountant;
``pld_tight``
    the tight two-sided PLD for Poisson add/remove (:mod:`dpviz.theory.pld_lower`'s bounds);
``pld_checked``
    :func:`pld_bracket`, :func:`pld_epsilon_bracket`, :func:`pld_sigma_bracket`, checked against RDP;
``api``
    :func:`epsilon_for`, :func:`noise_multiplier_for`, :func:`epsilon_general`, :func:`noise_multiplier_general`.
"""

from __future__ import annotations

# the public names, and the private ones that tests and benchmarks reach into (caches to clear, internals to check)
from dpviz.theory.accounting.checks import (ACCOUNTANTS, DELTA_MAX, NEIGHBOURINGS, SAMPLINGS, _MAX_BRACKET, _Z_MAX,
                                            _Z_MIN, _check_common, _check_general, _join, check_accounting_delta)
from dpviz.theory.accounting.hockey import composed_eps as _composed_eps
from dpviz.theory.accounting.hockey import log_bisect
from dpviz.theory.accounting.rdp_poisson import (RDP_ORDERS, WOR_ORDERS, _RDP_MARGIN, _RDP_TINY,
                                                 _all_idx, _eps_rdp, _exact_zero, _log_a_frac, _orders, _rdp_eps,
                                                 _rdp_eps_idx, _rdp_poisson_gaussian, _sound_rdp, rdp_epsilon_gaussian)
from dpviz.theory.accounting.rdp_wor import (_forward_diffs, _rdp_wor_gaussian, _wor_eps, _wor_eps_opt, _wor_log_a_int,
                                             wor_floor_note, wor_rdp_floor)
from dpviz.theory.accounting.search import (_COARSE, _WINDOW, _bracket_root, _rdp_slope, _root, _smallest_private,
                                            _solve_rdp, _solve_wor)
from dpviz.theory.accounting.pld_dp import (PLD_BUDGET, PLD_MAX_POINTS, PldBracket, PldTooLarge, _PLD_COARSEST,
                                            _PLD_PROBE_POINTS, _PLD_START, _composed_points, _pld_eps_from, _pld_eval,
                                            _pld_secant, _pld_single, _pld_single_points, _pld_std, _pld_support, _prv,
                                            _prv_points, _prv_within)
from dpviz.theory.accounting.pld_tight import (TIGHT_BUDGET, TIGHT_MAX_GROUPS, TIGHT_MAX_POINTS, _tight_bracket,
                                               _tight_eval, _tight_lower, _tight_sigma, _tight_start_grid)
from dpviz.theory.accounting.pld_checked import (_checked_bracket, _checked_sigma, _pld_bracket_cached, _pld_sigma,
                                                 _rdp_reference, _solve_pld_fast, pld_bracket, pld_epsilon_bracket,
                                                 pld_sigma_bracket)
from dpviz.theory.accounting.api import (_eps, _pld_eps, _solve, epsilon_for, epsilon_general, noise_multiplier_for,
                                         noise_multiplier_general)
from dpviz.theory.pld_lower import Unsettled

__all__ = ["ACCOUNTANTS", "DELTA_MAX", "NEIGHBOURINGS", "PldBracket", "PldTooLarge", "RDP_ORDERS", "SAMPLINGS", "Unsettled",
           "WOR_ORDERS", "check_accounting_delta", "epsilon_for", "epsilon_general", "log_bisect", "noise_multiplier_for",
           "noise_multiplier_general", "pld_bracket", "pld_epsilon_bracket", "pld_sigma_bracket", "rdp_epsilon_gaussian",
           "wor_floor_note", "wor_rdp_floor"]
