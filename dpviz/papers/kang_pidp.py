"""Kang, Li, Liu & Wang — data-heterogeneity differential privacy: DP-SGD under the PL condition and PIDP-SGD.

Paper: Kang, Li, Liu & Wang (kang-pidp); full reference in docs/papers.md.  The loss is G-Lipschitz and L-smooth and the empirical risk satisfies the
Polyak–Łojasiewicz (PL) condition with constant μ (``mu``); the model dimension (the paper's ``m``) is ``d`` here.

Symbols.  The paper's ``R`` in Algorithm 1 / Theorem 5 is the number of *global rounds*; in dpviz it is ``rounds``
(as in :mod:`dpviz.simulate`), because ``R`` is dpviz's domain radius — which is the paper's ``r`` (radius of the
bounded parameter space, §3.1), stored in the calibration's ``extras["r"]``.  ``zeta`` is the lower bound ζ on the
Hessian (Theorem 4), ``C_hess`` the Hessian-Lipschitz constant C (Definition 3), ``k`` the number of data instances
that "affect the model significantly" (§5.4–5.5).

What this module provides

* ``dpsgd-pl`` — DP-SGD of eq. (1) with the noise of eq. (2), σ >= c G sqrt(T log(1/δ))/(nε) with c unspecified:
  :func:`calibrate_dpsgd_pl` calibrates σ numerically with :mod:`dpviz.accounting` and reports the implied c;
* ``pidp-sgd`` — Algorithm 1 (PIDP-SGD) with Theorem 5's two noises: :func:`calibrate_pidp_sgd`;
* :func:`if_error_bound` — Theorem 4's bound E on the influence-function approximation error;
* theorems ``kang-pidp-thm1`` (excess empirical risk), ``-thm3`` (excess population risk, with τ), ``-remark4``,
  ``-thm6``, ``-thm7`` (PIDP-SGD), and Table 1 as ``kang-pidp-table1``.

Privacy convention.  Adjacent data sets differ in one element and the paper counts *replacement* (Remark 6; the
coefficient 2 of line 9, c_t = 2c_t^(o) + b^(c)).  A replaced example changes one gradient by up to
2G, so dpviz uses sensitivity 2G for the training noise by default (``neighbouring="replace-one"``) and G with
``neighbouring="add-remove"`` (the convention of the moments accountant of Abadi et al. that eq. (2) quotes).
"""

from __future__ import annotations

import math

from dpviz import _validate as v
from dpviz import accounting
from dpviz import gaussian as _gauss
from dpviz.catalog import Algorithm, BoundResult, Calibration, ComparisonRow, ComparisonTable, Paper, Risk, Term, Theorem
from dpviz.papers._common import log_inv as _ld

__all__ = [
    "rounds_and_local_steps",
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "C_PRIME",
    "schedule_T",
    "if_error_bound",
    "calibrate_dpsgd_pl",
    "implied_c",
    "bound_thm2",
    "bound_thm4",
    "bound_remark3",
    "time_complexity",
    "moments_accountant_condition",
    "calibrate_pidp_sgd",
    "bound_thm1",
    "explicit_bound_thm1",
    "bound_thm3",
    "explicit_bound_thm3",
    "bound_remark4",
    "bound_thm6",
    "bound_thm7",
]

PAPER = Paper(
    key="kang-pidp",
    authors="Yilin Kang, Jian Li, Yong Liu, Weiping Wang",
    short="Kang, Li, Liu & Wang",
    title="Data Heterogeneity Differential Privacy: From Theory to Algorithm",
    venue="",
    year=2022,
)

#: c' of Theorem 5: the proof derives σ_(c) > 2 sqrt(2) sqrt(log(1.25R/δ2)) G R/(nζε2) and rounds 2√2 to 2.83.
C_PRIME = 2.0 * math.sqrt(2.0)

#: What dpviz cannot certify about PIDP-SGD (shown with every PIDP-SGD calibration and on the algorithm).
PIDP_NOT_CERTIFIED = (
    "What dpviz cannot certify for PIDP-SGD (Kang, Li, Liu & Wang, Algorithm 1 and proof of Theorem 5): (i) "
    "b^(c) is drawn afresh at every step (line 8), so the contribution is released T = R x T_local times, "
    "while the proof counts only R releases (one per round, the contribution being fixed within a round); "
    "dpviz's sigma_c follows the proof's count R; (ii) the Hessian H (line 4) is the average over the whole "
    "data set, so every contribution depends on all examples, not only on z_t, which the sensitivity 4G/(n zeta) "
    "does not cover; (iii) the steps without noise (line 11) rest on the paper's per-coordinate argument (a "
    "uniformly distributed model), not on an accountant. So (eps1 + eps2, delta1 + delta2)-DP is the paper's claim under its proof's counting, not a "
    "guarantee dpviz certifies; dpviz certifies the Gaussian releases it counts: the training noise (all T steps "
    "noisy) and R contribution releases."
)

_ASSUME = ("lipschitz", "smooth", "pl")
_NEIGHBOURING = {"replace-one": 2.0, "add-remove": 1.0}


# ----------------------------------------------------------------------------------------------------------------
# helpers


def _check_L_mu(L, mu):
    L = v.check_positive("L (smoothness constant)", L)
    mu = v.check_positive("mu (PL constant)", mu)
    if mu > L:
        raise ValueError(
            f"the PL constant mu = {mu:g} cannot exceed the smoothness constant L = {L:g} (an L-smooth function "
            "satisfying the PL condition has mu <= L); check the two constants."
        )
    return L, mu


def _optional_L_mu(L, mu):
    """L and μ, each checked when given (both optional in the calibrations), and μ <= L when both are."""
    if L is not None:
        L = v.check_positive("L (smoothness constant)", L)
    if mu is not None:
        mu = v.check_positive("mu (PL constant)", mu)
    if L is not None and mu is not None:
        _check_L_mu(L, mu)
    return L, mu


def schedule_T(*, n, L=None, mu=None) -> int:
    r"""Number of iterations T = O(log n) of Theorems 1 and 3 (Kang, Li, Liu & Wang (kang-pidp), Theorem 1 and its proof).

    The proof's recursion leaves the optimisation error :math:`(1-\mu/L)^T\,(L(\theta_0;D)-L^*)`; dpviz takes the
    smallest T with :math:`(1-\mu/L)^T \le 1/n`, i.e.

    .. math:: T = \Big\lceil \frac{\log n}{\log(1/(1-\mu/L))} \Big\rceil \quad(\mu < L),\qquad T = 1\ (\mu = L),

    and :math:`T=\lceil\log n\rceil` when L or μ is not given.
    """
    n = v.check_n(n)
    if L is None or mu is None:
        return max(1, math.ceil(math.log(n)))
    L, mu = _check_L_mu(L, mu)
    if mu >= L:
        return 1
    return max(1, math.ceil(math.log(n) / -math.log1p(-mu / L)))


def if_error_bound(*, n, G, L, zeta, C_hess=0.0) -> float:
    r"""Bound on the influence-function approximation error (Kang, Li, Liu & Wang (kang-pidp), Theorem 4).

    .. math:: E = \|(\theta^*_{-z}-\theta^*) - c_z\|_2 \le \frac{1}{\zeta^2 n^2}\Big(2LG + \frac{CG^2}{\zeta}\Big).

    Parameters
    ----------
    n : int
        Sample size.
    G, L : float
        Lipschitz and smoothness constants.
    zeta : float
        Lower bound ζ > 0 on the Hessian of the empirical risk (the paper writes ||H|| >= ζ; the proof uses
        ||H^{-1}|| <= 1/ζ, i.e. smallest eigenvalue >= ζ).
    C_hess : float, default 0
        Hessian-Lipschitz constant C (Definition 3); 0 for the squared loss (Remark 1).
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    L = v.check_positive("L", L)
    zeta = v.check_positive("zeta (Hessian lower bound)", zeta)
    C_hess = v.check_nonnegative("C_hess (Hessian-Lipschitz constant)", C_hess)
    return (2.0 * L * G + C_hess * G**2 / zeta) / (zeta**2 * n**2)


def _neighbouring(neighbouring) -> float:
    if neighbouring not in _NEIGHBOURING:
        raise ValueError(
            f"neighbouring must be 'replace-one' (the paper's convention, sensitivity 2G) or 'add-remove' "
            f"(sensitivity G), got {neighbouring!r}."
        )
    return _NEIGHBOURING[neighbouring]


def _accountant_kwargs(n, neighbouring, accountant):
    """The mechanism the accountant analyses: the paper's (one example per step drawn without replacement,
    replace-one: RDP of Wang, Balle & Kasiviswanathan) for ``neighbouring="replace-one"`` with RDP; Poisson sampling
    at rate 1/n otherwise (dp_accounting has no PLD for sampling without replacement).  Returns (kwargs for
    :func:`dpviz.accounting.noise_multiplier_general` / ``epsilon_general``, label)."""
    if neighbouring == "replace-one" and accountant == "rdp":
        return (dict(sampling_prob=1.0 / n, sampling="without-replacement", neighbouring="replace-one",
                     accountant="rdp"), "sampling without replacement, replace-one, RDP (the paper's mechanism)")
    return (dict(sampling_prob=1.0 / n, sampling="poisson", neighbouring=neighbouring, accountant=accountant),
            f"Poisson sampling, {neighbouring}, {accountant.upper()}")


def _training_sigma(n, eps, delta, T, G, c, neighbouring, accountant):
    """σ of eq. (2): with the accountant (c None) or with the paper's formula and the given c.

    Returns (sigma, c_used, notes, extras)."""
    factor = _neighbouring(neighbouring)
    sens = factor * G
    base = G * math.sqrt(T * _ld(delta)) / (n * eps)  # σ / c in eq. (2)
    notes, extras = [], {"sensitivity": sens, "neighbouring": neighbouring, "sampling_prob": 1.0 / n}
    if accountant not in accounting.ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(map(repr, accounting.ACCOUNTANTS))}, got {accountant!r}.")
    acc_kw, label = _accountant_kwargs(n, neighbouring, accountant)
    if c is None:
        z = accounting.noise_multiplier_general(eps=eps, delta=delta, steps=T, rtol=1e-6, **acc_kw)
        sigma = z * sens
        c_used = sigma / base
        extras.update({"noise_multiplier": z, "accountant": accountant, "c": c_used, "accountant_mechanism": label})
        notes.append(
            f"sigma from the {accountant.upper()} accountant: T = {T} steps, each using one example chosen with "
            f"probability 1/n = {1.0 / n:.3g} ({label}), "
            f"sensitivity {factor:g}G = {sens:g} ({neighbouring}); noise multiplier z = {z:.4g}."
        )
        notes.append(f"Implied constant of eq. (2): c = sigma n eps/(G sqrt(T log(1/delta))) = {c_used:.4g}.")
    else:
        c_used = v.check_positive("c (constant of eq. (2))", c)
        sigma = c_used * base
        eps_acc = accounting.epsilon_general(noise_multiplier=sigma / sens, delta=delta, steps=T, **acc_kw)
        extras.update({"noise_multiplier": sigma / sens, "accountant": accountant, "c": c_used,
                       "eps_accountant": eps_acc, "accountant_mechanism": label})
        notes.append(
            f"sigma from the paper's eq. (2) with the given c = {c_used:g} (no numerical accounting); the "
            f"{accountant.upper()} accountant certifies eps = {eps_acc:.4g} for this sigma at delta = {delta:g}."
        )
        if eps_acc > eps * (1 + 1e-9):
            z = accounting.noise_multiplier_general(eps=eps, delta=delta, steps=T, rtol=1e-6, **acc_kw)
            extras["c_needed"] = z * sens / base
            extras["too_small"] = (
                f"with c = {c_used:g}, eq. (2) gives sigma = {sigma:.4g}, for which the {accountant.upper()} "
                f"accountant certifies only eps = {eps_acc:.4g} > {eps:g}"
            )
            notes.append(
                f"With c = {c_used:g} the accountant's eps ({eps_acc:.4g}) exceeds the target {eps:g}: this c is too "
                f"small for the claimed guarantee (it needs c >= {extras['c_needed']:.4g}); leave c unset to "
                "calibrate it numerically."
            )
    # the c of eq. (2) dpviz's accountant needs (known when it calibrated sigma, or when a user c was too small)
    extras["c_implied"] = c_used if c is None else extras.get("c_needed")
    ma = moments_accountant_condition(n=n, eps=eps, T=T)
    extras.update({"ma_q2T": ma["q2T"], "ma_condition_holds": ma["holds"], "ma_condition": ma["text"]})
    notes.append(ma["text"])
    return sigma, c_used, notes, extras


def moments_accountant_condition(*, n, eps, T, c1=1.0) -> dict:
    r"""The hypothesis ε < c₁q²T of the moments-accountant theorem behind eq. (2) of Kang, Li, Liu & Wang (kang-pidp).

    Eq. (2) quotes Abadi et al. (2016), Theorem 1: there are constants c₁, c₂ such that for any ε < c₁q²T, DP-SGD
    with sampling ratio q is (ε, δ)-DP if σ >= c₂ q√(T log(1/δ))/ε.  With one example per step q = 1/n, so the
    condition is ε < c₁T/n²; e.g. n = 10⁴, T = 88: q²T = 88/10⁸ = 8.8e-7, far below any useful ε with c₁ = 1.  c₁ is
    unspecified; dpviz checks the condition with ``c1`` (default 1).  dpviz's own σ does not rely on it (the RDP
    accountant holds for every ε); it only tells whether eq. (2)'s form c G√(T log(1/δ))/(nε) is backed by the theorem
    it cites.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    T = v.check_int("T", T)
    c1 = v.check_positive("c1", c1)
    q2T = T / float(n) ** 2
    holds = eps < c1 * q2T
    text = (f"Moments-accountant condition behind eq. (2) (Abadi et al. 2016, Thm 1): eps < c1 q^2 T with q = 1/n, "
            f"q^2 T = {T}/{n}^2 = {q2T:.3g}; with c1 = {c1:g} it {'holds' if holds else 'fails'} at eps = {eps:g}"
            + ("" if holds else ", so eq. (2)'s form is not backed by that theorem here (dpviz's accountant sigma is "
               "still valid)") + ".")
    return {"q2T": q2T, "holds": holds, "text": text, "c1": c1}


def implied_c(*, n, eps, delta, G, T, neighbouring="replace-one", accountant="rdp") -> float:
    r"""The constant c of eq. (2) implied by dpviz's own calibration (Kang, Li, Liu & Wang (kang-pidp), §4, eq. (2)).

    c = σ n ε / (G √(T log(1/δ))) with σ the accountant's σ of ``dpsgd-pl``; e.g. c ≈ 457 at n = 10⁴, ε = 1,
    δ = 1e-8, T = 88 (replace-one, RDP).  Used by the "consistent constants" option of Theorems 1, 3 and 6.
    """
    return float(calibrate_dpsgd_pl(n=n, eps=eps, delta=delta, G=G, T=T, neighbouring=neighbouring,
                                    accountant=accountant).extras["c"])


def _flag(name, value) -> bool:
    """A yes/no switch: a bool, or (from the command line) one of true/false/yes/no/1/0."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise ValueError(f"{name} must be true or false, got {value!r}.")


def _consistent_c(c, consistent_constants, n, eps, delta, G, T):
    """(constant of the rate, extras): with ``consistent_constants`` the privacy term carries c_implied² (σ² ∝ c²)."""
    if not _flag("consistent_constants", consistent_constants):
        return c, {}
    ci = implied_c(n=n, eps=eps, delta=delta, G=G, T=T)
    return ci**2, {"c_implied": ci, "consistent_constants": True}


_CONSISTENT_NOTE = ("Consistent constants: the privacy term uses c = c_implied^2 = {c2:.4g} (c_implied = {ci:.4g}, "
                    "the constant of eq. (2) dpviz's accountant sigma implies; the term is m sigma^2-proportional, "
                    "so c enters squared). The other constants stay dropped.")


def _mark_too_small(cal: Calibration) -> Calibration:
    """A calibration whose user-given c of eq. (2) is below what the accountant needs is not private at the target."""
    if cal.extras.get("too_small"):
        cal.feasible = False
        cal.reason = cal.extras["too_small"]
        cal.fix = (f"use c >= {cal.extras['c_needed']:.4g}, or leave c unset so that the accountant calibrates "
                   "sigma")
    return cal


_PL_FORMULA = r"\sigma = c\,\frac{G\sqrt{T\log(1/\delta)}}{n\epsilon},\quad \eta = \frac1L,\quad T = O(\log n)"


# ----------------------------------------------------------------------------------------------------------------
# DP-SGD (eq. (1), (2))


def calibrate_dpsgd_pl(*, n, eps, delta, G, T=None, L=None, mu=None, eta=None, c=None,
                       neighbouring="replace-one", accountant="rdp") -> Calibration:
    r"""Noise of DP-SGD under the PL condition (Kang, Li, Liu & Wang (kang-pidp), §4, eq. (1) and eq. (2); Theorem 1).

    The iteration is :math:`\theta_{t+1} = \theta_t - \eta(\nabla\ell(\theta_t, z_t) + b)`,
    :math:`b\sim\mathcal N(0,\sigma^2 I_m)`, one uniformly chosen example per step, and eq. (2) states

    .. math:: \sigma \ge c\,\frac{G\sqrt{T\log(1/\delta)}}{n\epsilon}

    for an unspecified constant c (quoted from the moments accountant of Abadi et al.).  dpviz computes σ with the
    RDP accountant of the paper's own mechanism (:func:`dpviz.accounting.noise_multiplier_general`: T steps, one
    example per step drawn without replacement, replace-one neighbours, sensitivity 2G; with
    ``neighbouring="add-remove"`` or ``accountant="pld"``: Poisson sampling at rate 1/n) and reports the implied
    ``c`` in ``extras["c"]`` and the mechanism in ``extras["accountant_mechanism"]``.  If ``c`` is given, eq. (2)
    is used with that c instead (and the accountant's ε for it is reported).

    Parameters
    ----------
    n, eps, delta, G
        Sample size, privacy budget ε > 0, δ ∈ (0, 1), Lipschitz constant G > 0.
    T : int, optional
        Number of iterations; default :func:`schedule_T` (T = O(log n), Theorem 1).
    L, mu : float, optional
        Smoothness and PL constants; L gives the step size η = 1/L of Theorem 1, L and μ the default T.
    eta : float, optional
        Step size (default 1/L).
    c : float, optional
        The constant of eq. (2); None (default) calibrates σ with the accountant.
    neighbouring : {"replace-one", "add-remove"}
        Replace-one (paper, Remark 6; sensitivity 2G) or add/remove (sensitivity G).
    accountant : {"rdp", "pld"}
        Numerical accountant.

    Returns
    -------
    Calibration
        ``sigma`` (std of b per coordinate), ``T``, ``eta``; extras ``c``, ``noise_multiplier``, ``sensitivity``.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    G = v.check_positive("G (Lipschitz constant)", G)
    L, mu = _optional_L_mu(L, mu)
    notes = []
    if T is None:
        T = schedule_T(n=n, L=L, mu=mu)
        notes.append(f"T = {T} from the schedule T = O(log n) of Theorem 1 ((1 - mu/L)^T <= 1/n).")
    T = v.check_int("T", T)
    if eta is None and L is not None:
        eta = 1.0 / L
    elif eta is not None:
        eta = v.check_positive("eta", eta)
        if L is not None and not math.isclose(eta, 1.0 / L, rel_tol=1e-9):
            notes.append(f"Theorem 1 assumes the step size eta = 1/L = {1.0 / L:.4g}; eta = {eta:g} is used here.")
    sigma, c_used, more, extras = _training_sigma(n, eps, delta, T, G, c, neighbouring, accountant)
    notes = more + notes
    formula_numbers = (
        rf"\sigma = {c_used:.4g}\cdot\frac{{{G:g}\sqrt{{{T}\log(1/{delta:g})}}}}{{{n}\cdot{eps:g}}} = {sigma:.4g}"
    )
    return _mark_too_small(Calibration(
        id="dpsgd-pl",
        feasible=True,
        sigma=sigma,
        T=T,
        eta=eta,
        reason=f"(eps, delta) = ({eps:g}, {delta:g})-DP for T = {T} steps with one example per step",
        formula=r"\sigma = c\,\frac{G\sqrt{T\log(1/\delta)}}{n\epsilon}",
        formula_numbers=formula_numbers,
        notes=notes,
        extras=extras,
    ))


# ----------------------------------------------------------------------------------------------------------------
# PIDP-SGD (Algorithm 1, Theorem 5)


def rounds_and_local_steps(T, rounds=None, T_local=None):
    """Global rounds and local steps of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Algorithm 1) for T steps in all.

    Defaults (shared with the simulation engine): rounds = min(T, 10) when neither is given.
    """
    if rounds is None and T_local is None:
        rounds = min(T, 10)
    if rounds is None:
        T_local = v.check_int("T_local", T_local)
        rounds = max(1, T // T_local)
    rounds = v.check_int("rounds (global update rounds, the paper's R)", rounds)
    T_local = v.check_int("T_local", T_local if T_local is not None else max(1, T // rounds))
    return rounds, T_local


_PIDP_FORMULA = (
    r"\sigma \ge c\,\frac{G\sqrt{T\log(1/\delta_1)}}{n\epsilon_1},\quad "
    r"\sigma_{(c)} \ge c'\,\frac{G R\sqrt{\log(1.25R/\delta_2)}}{n\zeta\epsilon_2},\quad T = T_{local}R"
)


def calibrate_pidp_sgd(*, n, eps, delta, G, T=None, L=None, mu=None, eta=None, c=None, eps1=None, eps2=None,
                       delta1=None, delta2=None, zeta=None, rounds=None, T_local=None, c_prime=C_PRIME, R=None,
                       C_hess=0.0, neighbouring="replace-one", accountant="rdp", sigma_rule="private") -> Calibration:
    r"""Noises of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Algorithm 1 and Theorem 5).

    Algorithm 1 is :math:`(\epsilon_1+\epsilon_2, \delta_1+\delta_2)`-DP with

    .. math:: \sigma \ge c\,\frac{G\sqrt{T\log(1/\delta_1)}}{n\epsilon_1},\qquad
              \sigma_{(c)} \ge c'\,\frac{G R\sqrt{\log(1.25R/\delta_2)}}{n\zeta\epsilon_2},\qquad T = T_{local}R,

    where R is the number of global rounds (``rounds`` here), ζ the Hessian lower bound, and c' = 2√2 ≈ 2.83 (the
    proof: the contribution c_t^(o) has sensitivity 2G/(nζ), each of the R rounds gets (ε₂/R, δ₂/R) of the Gaussian
    mechanism of Lemma 3).  Line 9 releases c_t = 2c_t^(o) + b^(c) (the factor 2 of Remark 6), whose data-dependent
    part has sensitivity 4G/(nζ): the proof calibrates σ_c for half the sensitivity of what is released.  dpviz
    calibrates and checks σ_c (also the printed one) against 4G/(nζ) and records the slip in the notes, with what
    it cannot certify (:data:`PIDP_NOT_CERTIFIED`).  The training noise σ is calibrated like ``dpsgd-pl`` at (ε₁, δ₁) (accountant, or eq. (2)
    with ``c``).  Default split as in §7: ε₁ = 3ε/4, ε₂ = ε/4; §7 does not split δ, dpviz uses δ₁ = 3δ/4, δ₂ = δ/4.

    Parameters
    ----------
    n, eps, delta, G
        Sample size, total budget ε, total δ, Lipschitz constant.
    T : int, optional
        Total number of steps (default :func:`schedule_T`).
    L, mu, eta
        Smoothness, PL constant and step size (default η = 1/L).  ``L`` also enters E of Theorem 4.
    c : float, optional
        Constant of the training noise (None: accountant).
    eps1, eps2, delta1, delta2 : float, optional
        The budget split (given together with, or instead of, eps / delta: eps1 + eps2 = eps is not enforced).
    zeta : float, optional
        Hessian lower bound ζ (default: ``mu``, exact for μ-strongly convex risks; Remark 5: add ζ to the diagonal).
    rounds, T_local : int, optional
        Global rounds R and local steps (T = rounds·T_local); default rounds = min(T, 10) as in the simulation engine.
    c_prime : float, default 2√2
        The constant c' of Theorem 5.
    R : float, optional
        Radius r of the parameter space (line 9's threshold 2 r e^{ε₁} δ₁/(e^{ε₁} − 1)); stored as extras["r"].
    C_hess : float, default 0
        Hessian-Lipschitz constant C of Theorem 4 (for E).
    sigma_rule : {"private", "printed"}
        Which contribution noise σ_c is released.  Theorem 5's σ_c is the classical Gaussian mechanism (Lemma 3,
        σ = Δ√(2 ln(1.25/δ))/ε, proved for ε < 1 only) at (ε₂/R, δ₂/R) per round.  ``"private"`` (default) releases
        the smallest σ_c for which the R releases (sensitivity Δ_c = 4G/(nζ) each) are (ε₂, δ₂)-DP by the exact
        check: R Gaussian releases compose exactly into one with sensitivity √R·Δ_c (Dong, Roth & Su 2019), whose
        exact δ(ε) is that of the analytic Gaussian mechanism (Balle & Wang 2018, Thm 8; :mod:`dpviz.gaussian`).
        ``"printed"`` releases the paper's σ_c; the calibration is then feasible only if it passes that check.

    Returns
    -------
    Calibration
        ``sigma`` (training noise), ``T``, ``eta``; extras ``eps1, delta1, eps2, delta2, sigma_c, r, E, rounds,
        T_local, zeta, c, c_prime`` (read by the simulation engine; ``sigma_c`` is the released contribution noise)
        and, for the contribution noise, ``sigma_rule``, ``sigma_c_private`` (exact check), ``sigma_c_paper``
        (Theorem 5 as printed), ``sigma_c_paper_exact_delta`` (exact δ of the printed σ_c at ε₂),
        ``sigma_c_paper_private`` (bool) and ``sigma_c_privacy_check``.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    G = v.check_positive("G (Lipschitz constant)", G)
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    eps1 = 0.75 * eps if eps1 is None else v.check_eps(eps1, "eps1")
    eps2 = 0.25 * eps if eps2 is None else v.check_eps(eps2, "eps2")
    delta1 = 0.75 * delta if delta1 is None else v.check_delta(delta1, "delta1")
    delta2 = 0.25 * delta if delta2 is None else v.check_delta(delta2, "delta2")
    if zeta is None:
        if mu is None:
            raise ValueError(
                "PIDP-SGD needs zeta, the lower bound on the Hessian of the empirical risk (Theorem 4/5); "
                "give zeta, or mu (then zeta = mu)."
            )
        zeta_note = f"zeta = mu = {v.check_positive('mu (PL constant)', mu):g} (exact for a mu-strongly convex risk)."
        zeta = mu
    else:
        zeta_note = ""
    zeta = v.check_positive("zeta (Hessian lower bound)", zeta)
    c_prime = v.check_positive("c_prime (constant of Theorem 5)", c_prime)
    r = None if R is None else v.check_positive("R (radius of the parameter space, the paper's r)", R)
    L, mu = _optional_L_mu(L, mu)
    if eps1 + eps2 > eps * (1.0 + 1e-12) or delta1 + delta2 > delta * (1.0 + 1e-12):
        return Calibration(
            id="pidp-sgd",
            feasible=False,
            reason=(f"the split (eps1 + eps2, delta1 + delta2) = ({eps1 + eps2:.4g}, {delta1 + delta2:.3g}) exceeds "
                    f"the total budget (eps, delta) = ({eps:g}, {delta:g}) (Theorem 5 composes the two parts)"),
            fix=(f"choose eps1 + eps2 <= {eps:g} and delta1 + delta2 <= {delta:g}, e.g. the split of Section 7: "
                 f"eps1 = {0.75 * eps:.4g}, eps2 = {0.25 * eps:.4g}, delta1 = {0.75 * delta:.3g}, "
                 f"delta2 = {0.25 * delta:.3g}"),
            formula=_PIDP_FORMULA,
            extras={"eps1": eps1, "eps2": eps2, "delta1": delta1, "delta2": delta2},
        )
    notes = []
    if T is None and rounds is not None and T_local is not None:
        T = v.check_int("rounds", rounds) * v.check_int("T_local", T_local)
    if T is None:
        T = schedule_T(n=n, L=L, mu=mu)
        notes.append(f"T = {T} from T = O(log n) (Theorems 6-7).")
    T = v.check_int("T", T)
    rounds, T_local = rounds_and_local_steps(T, rounds, T_local)
    if rounds * T_local != T:
        notes.append(f"T = {T} is not rounds x T_local = {rounds} x {T_local}; the simulation runs "
                     f"{rounds * T_local} steps.")
    if eta is None and L is not None:
        eta = 1.0 / L
    elif eta is not None:
        eta = v.check_positive("eta", eta)
    sigma, c_used, more, extras = _training_sigma(n, eps1, delta1, T, G, c, neighbouring, accountant)
    notes += more
    # line 9 releases c_t = 2 c_t^(o) + b^(c): the released data-dependent part 2 c_t^(o) has sensitivity
    # 2 x 2G/(n zeta) = 4G/(n zeta) (the proof of Theorem 5 bounds c_t^(o)'s, 2G/(n zeta), and calibrates for that)
    sens_c = 4.0 * G / (n * zeta)
    sigma_c_paper = c_prime * G * rounds * math.sqrt(math.log(1.25 * rounds / delta2)) / (n * zeta * eps2)
    check_c = (f"exact composition of the R = {rounds} Gaussian releases of c_t = 2 c_t^(o) + b^(c) (line 9; "
               f"sensitivity 2 x 2G/(n zeta) = 4G/(n zeta) = {sens_c:.4g} each) = one Gaussian mechanism with "
               f"sensitivity sqrt(R) 4G/(n zeta) at (eps2, delta2) = ({eps2:.4g}, {delta2:.3g})")
    cmp_c = _gauss.compare_with_paper(eps=eps2, delta=delta2, sensitivity=math.sqrt(rounds) * sens_c,
                                      sigma_paper=sigma_c_paper, check=check_c)
    pick_c = _gauss.choose_sigma(cmp_c, sigma_rule, eps=eps2, delta=delta2,
                                 what="PIDP-SGD contribution noise sigma_c (Theorem 5)")
    sigma_c = pick_c["sigma"]
    E = if_error_bound(n=n, G=G, L=L, zeta=zeta, C_hess=C_hess) if L is not None else 0.0
    if zeta_note:
        notes.append(zeta_note)
    notes.append(
        f"Contribution noise as printed (Theorem 5): sigma_c = c' G R sqrt(log(1.25 R/delta2))/(n zeta eps2) = "
        f"{sigma_c_paper:.4g} with R = {rounds} rounds, c' = {c_prime:.4g}: each round releases the contribution "
        f"once at (eps2/R, delta2/R) = ({eps2 / rounds:.4g}, {delta2 / rounds:.3g}). dpviz releases "
        + (f"the private sigma_c = {cmp_c['sigma_private']:.4g} (exact check, sensitivity 4G/(n zeta)) by default."
           if sigma_rule == "private" else "the printed sigma_c (sigma_rule = 'printed').")
    )
    notes.append(
        f"Sensitivity of the released contribution (dpviz's correction): line 9 releases c_t = 2 c_t^(o) + b^(c) "
        f"(the factor 2 of Remark 6), but the proof of Theorem 5 bounds the sensitivity of c_t^(o) alone, "
        f"S <= 2G/(n zeta) = {2.0 * G / (n * zeta):.4g}, and calibrates sigma_c for that. The released 2 c_t^(o) "
        f"has sensitivity 4G/(n zeta) = {sens_c:.4g}; dpviz calibrates and checks sigma_c (also the printed one) "
        f"against 4G/(n zeta)."
    )
    notes.append(PIDP_NOT_CERTIFIED)
    if eps2 / rounds >= 1.0:
        notes.append(
            f"Lemma 3 (the classical Gaussian mechanism) is proved for a per-release eps < 1; here eps2/R = "
            f"{eps2 / rounds:.3g} >= 1, so the printed sigma_c relies on the formula beyond its proven range."
        )
    notes += pick_c["notes"]
    if L is None:
        notes.append("E (Theorem 4) needs L; E = 0 is used.")
    else:
        notes.append(f"E = (2LG + C G^2/zeta)/(zeta^2 n^2) = {E:.4g} (Theorem 4, C = {C_hess:g}).")
    if r is None:
        notes.append("The radius r of the parameter space (line 9) is not set: give R to run the decision rule.")
    extras.update({
        "eps1": eps1, "delta1": delta1, "eps2": eps2, "delta2": delta2, "sigma_c": sigma_c, "r": r, "E": E,
        "rounds": rounds, "T_local": T_local, "zeta": zeta, "c_prime": c_prime, "sensitivity_c": sens_c,
        "sigma_rule": sigma_rule, "sigma_c_private": cmp_c["sigma_private"], "sigma_c_paper": sigma_c_paper,
        "sigma_c_paper_exact_delta": cmp_c["paper_exact_delta"],
        "sigma_c_paper_private": cmp_c["paper_sigma_private"], "sigma_c_privacy_check": check_c,
        "privacy_check": ("as Theorem 5 claims, under its proof's counting; dpviz certifies only the Gaussian "
                          "releases it counts: the training noise over all T steps at (eps1, delta1) and R releases "
                          "of the contribution at (eps2, delta2), not the per-step b^(c) nor the whole-data Hessian "
                          "(see the notes)"),
    })
    formula_numbers = (
        rf"\sigma = {c_used:.4g}\cdot\frac{{{G:g}\sqrt{{{T}\log(1/{delta1:.3g})}}}}{{{n}\cdot{eps1:.4g}}} = {sigma:.4g},"
        rf"\quad \sigma_{{(c)}}^{{\rm printed}} = {c_prime:.4g}\cdot\frac{{{G:g}\cdot{rounds}\sqrt{{\log(1.25\cdot{rounds}/{delta2:.3g})}}}}"
        rf"{{{n}\cdot{zeta:g}\cdot{eps2:.4g}}} = {sigma_c_paper:.4g}"
    )
    reason = (f"(eps1 + eps2, delta1 + delta2) = ({eps1 + eps2:.4g}, {delta1 + delta2:.3g})-DP as claimed by "
              f"Theorem 5 (dpviz certifies only the Gaussian releases it counts, see the notes) with "
              f"{rounds} rounds of {T_local} local steps; contribution noise sigma_c = {sigma_c:.4g} "
              + ("from the exact (analytic) Gaussian mechanism" if sigma_rule == "private" else "as printed"))
    return _mark_too_small(Calibration(
        id="pidp-sgd",
        feasible=pick_c["feasible"],
        sigma=sigma,
        T=T,
        eta=eta,
        reason=reason if pick_c["feasible"] else f"contribution noise: {pick_c['reason']}",
        fix=pick_c["fix"].replace("(sigma = ", "(sigma_c = "),
        formula=_PIDP_FORMULA,
        formula_numbers=formula_numbers,
        notes=notes,
        extras=extras,
    ))


# ----------------------------------------------------------------------------------------------------------------
# bounds


def _result(theorem, terms, *, eta=None, T=None, notes=(), extras=None, explicit=False, complexity=None):
    return BoundResult.of(theorem, terms, eta=eta, T=T, gradient_complexity=complexity, notes=notes, extras=extras,
                          explicit=explicit)


def _common(n, d, eps, delta=None):
    n = v.check_n(n)
    d = v.check_int("d (model dimension, the paper's m)", d)
    eps = v.check_eps(eps)
    delta = None if delta is None else v.check_delta(delta)
    return n, d, eps, delta


def _eta_of(L):
    return None if L is None else 1.0 / v.check_positive("L (smoothness constant)", L)


def _emp_rate(n, d, eps, delta, G, c):
    """c m G² log(1/δ) log n / (n² ε²): the rate of Theorem 1."""
    return c * d * G**2 * _ld(delta) * math.log(n) / (n**2 * eps**2)


def bound_thm1(*, n, d, eps, delta, G=1.0, L=None, mu=None, c=1.0, consistent_constants=False) -> BoundResult:
    r"""Excess empirical risk of DP-SGD under the PL condition (Kang, Li, Liu & Wang (kang-pidp), Theorem 1).

    .. math:: \mathbb E[L(\theta_{priv};D) - L^*] \le O\Big(\frac{mG^2\log(1/\delta)\log n}{n^2\epsilon^2}\Big),
              \quad \eta = 1/L,\ T = O(\log n),

    one term ``privacy`` with the constant set to ``c``; T from :func:`schedule_T`.  ``consistent_constants=True``
    replaces c by c_implied² (:func:`implied_c`, the constant of eq. (2) that dpviz's calibration implies; σ² ∝ c²).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    T = schedule_T(n=n, L=L, mu=mu)
    c, extras = _consistent_c(c, consistent_constants, n, eps, delta, G, T)
    term = Term("privacy", _emp_rate(n, d, eps, delta, G, c), -2.0, -2.0,
                r"\frac{mG^2\log(1/\delta)\log n}{n^2\epsilon^2}")
    notes = ["Excess empirical risk; m is the model dimension d.", _schedule_note_thm1(n, L, mu, T)]
    if extras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=extras["c_implied"]))
    return _result("kang-pidp-thm1", [term], eta=_eta_of(L), T=T, notes=notes, extras=extras)


def _schedule_note_thm1(n, L, mu, T) -> str:
    """What Theorem 1's schedule T (:func:`schedule_T`) leaves of the optimisation term (dpviz's reading)."""
    if L is None or mu is None or mu >= L:
        return ("Schedule (dpviz's reading): T = O(log n) is taken so that (1 - mu/L)^T <= 1/n, which leaves an "
                "optimisation term Delta0/n above the claimed n^-2 rate; (1 - mu/L)^T <= 1/n^2 (twice the T, still "
                "O(log n)) would be needed for the rate. Give L and mu for the numbers.")
    q = 1.0 - mu / L
    T2 = max(1, math.ceil(2.0 * math.log(n) / -math.log1p(-mu / L)))
    return (f"Schedule (dpviz's reading): T = {T} makes (1 - mu/L)^T = {q**T:.3g} <= 1/n = {1.0 / n:.3g}, which leaves "
            f"an optimisation term (1 - mu/L)^T Delta0 of order Delta0/n, above the claimed n^-2 rate; the rate needs "
            f"(1 - mu/L)^T <= 1/n^2, i.e. T = {T2} (still O(log n)).")


def explicit_bound_thm1(*, n, d, eps, delta, G, L, mu, T=None, Delta0=1.0, sigma=None, c=None,
                        neighbouring="replace-one") -> BoundResult:
    r"""Theorem 1's recursion with explicit constants (Kang, Li, Liu & Wang (kang-pidp), proof of Theorem 1).

    .. math:: \mathbb E[L(\theta_T;D) - L^*] \le \Big(1-\frac{\mu}{L}\Big)^T \Delta_0 + \frac{m\sigma^2}{2\mu},

    with Δ₀ = L(θ₀; D) − L* (default 1) and σ the calibrated noise of ``dpsgd-pl`` (accountant; eq. (2) with ``c``
    if given) unless ``sigma`` is given.  Terms ``optimisation`` and ``privacy``.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Delta0 = v.check_nonnegative("Delta0 (initial excess empirical risk)", Delta0)
    scheduled = T is None
    T = schedule_T(n=n, L=L, mu=mu) if scheduled else v.check_int("T", T)
    extras = {}
    if sigma is None:
        cal = calibrate_dpsgd_pl(n=n, eps=eps, delta=delta, G=G, T=T, L=L, mu=mu, c=c, neighbouring=neighbouring)
        sigma = cal.sigma
        extras["c"] = cal.extras["c"]
    sigma = v.check_nonnegative("sigma", sigma)
    extras["sigma"] = sigma
    q = 1.0 - mu / L
    terms = [
        Term("optimisation", q**T * Delta0, -1.0 if scheduled else 0.0, 0.0, r"(1-\mu/L)^T\Delta_0"),
        Term("privacy", d * sigma**2 / (2.0 * mu), -2.0, -2.0, r"\frac{m\sigma^2}{2\mu}"),
    ]
    notes = ["The proof's sum (m sigma^2/(2L)) sum_{i<T} (1-mu/L)^i is bounded by m sigma^2/(2 mu), as printed."]
    return _result("kang-pidp-thm1", terms, eta=1.0 / L, T=T, notes=notes, extras=extras, explicit=True)


def _thm3_terms(e, n, G, L, mu, tau, Lstar):
    b = 16.0 * G**2 / (n**2 * mu**2)
    if tau is None:
        tau = math.sqrt(L * (e + Lstar) / (8.0 * e / mu + b))
    else:
        tau = v.check_positive("tau", tau)
    return tau, [
        Term("optimisation", (tau + L) * (8.0 * tau + mu) / (mu * tau) * e, -2.0, -2.0,
             r"(\tau+L)\frac{8\tau+\mu}{\mu\tau}\mathbb E[L(\theta_{priv};D)-L^*]"),
        Term("stability", (tau + L) * b, -2.0, 0.0, r"(\tau+L)\frac{16G^2}{n^2\mu^2}"),
        Term("statistical", L * Lstar / tau, -1.0, 0.0, r"\frac{L}{\tau}\mathbb E[L^*]"),
    ]


_TAU_NOTE = ("tau = argmin of the bound, sqrt(L (e + E[L*]) / (8 e/mu + 16 G^2/(n^2 mu^2))) with e the excess "
             "empirical risk (the bound is tau (8e/mu + b) + L (e + E[L*])/tau + const).")


def bound_thm3(*, n, d, eps, delta, L, mu, G=1.0, tau=None, Lstar=None, c=1.0,
               consistent_constants=False) -> BoundResult:
    r"""Excess population risk of DP-SGD under the PL condition (Kang, Li, Liu & Wang (kang-pidp), Theorem 3, Theorem 2).

    .. math:: \mathbb E[L_P(\theta_{priv}) - \min L_P] \le (\tau+L)\Big(\frac{8\tau+\mu}{\mu\tau}\,e
              + \frac{16G^2}{n^2\mu^2}\Big) + \frac{L}{\tau}\mathbb E[L^*],

    with e the excess empirical risk at the rate of Theorem 1 (constant ``c``), E[L*] = ``Lstar`` (default 1/n, the
    assumption of Remark 4) and τ > 0 free; ``tau=None`` takes the minimising τ (Theorem 2's inf over τ).
    Terms ``optimisation``, ``stability``, ``statistical`` (exponents for fixed τ).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    c = v.check_positive("c", c)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    T = schedule_T(n=n, L=L, mu=mu)
    c, cextras = _consistent_c(c, consistent_constants, n, eps, delta, G, T)
    e = _emp_rate(n, d, eps, delta, G, c)
    tau_given = tau is not None
    tau, terms = _thm3_terms(e, n, G, L, mu, tau, Lstar)
    notes = [] if tau_given else [_TAU_NOTE]
    if cextras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=cextras["c_implied"]))
    return _result("kang-pidp-thm3", terms, eta=1.0 / L, T=T, notes=notes,
                   extras={"tau": tau, "Lstar": Lstar, "excess_empirical": e, **cextras})


def explicit_bound_thm3(*, n, d, eps, delta, L, mu, G=1.0, tau=None, Lstar=None, T=None, Delta0=1.0,
                        sigma=None, c=None) -> BoundResult:
    r"""Theorem 3 with the explicit excess empirical risk of Theorem 1's recursion (Kang, Li, Liu & Wang (kang-pidp),
    Theorem 3 and proof of Theorem 1).

    e = (1 − μ/L)^T Δ₀ + mσ²/(2μ) (:func:`explicit_bound_thm1`) in
    :math:`(\tau+L)\big(\frac{8\tau+\mu}{\mu\tau}e + \frac{16G^2}{n^2\mu^2}\big) + \frac{L}{\tau}\mathbb E[L^*]`.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    emp = explicit_bound_thm1(n=n, d=d, eps=eps, delta=delta, G=G, L=L, mu=mu, T=T, Delta0=Delta0, sigma=sigma, c=c)
    e = emp.total
    tau_given = tau is not None
    tau, terms = _thm3_terms(e, n, G, L, mu, tau, Lstar)
    notes = [] if tau_given else [_TAU_NOTE]
    return _result("kang-pidp-thm3", terms, eta=1.0 / L, T=emp.T, notes=notes, explicit=True,
                   extras={"tau": tau, "Lstar": Lstar, "excess_empirical": e, **emp.extras})


def _branches(n, d, eps, k, c, which):
    """Rate branches (term lists) of Remark 4 (k = None) or Theorem 7; k = None means k = n in Theorem 7."""
    def term(name, coef, a, b, e, latex):
        # coef * k^a n^b eps^e; with k defaulting to n the n-exponent is b + a
        kk = n if k is None else k
        return Term(name, c * coef * kk**a * n**b * eps**e, b + (a if k is None else 0.0), e, latex)

    if which == "remark4":
        return [
            [Term("privacy", c * d / (n**2 * eps**2), -2.0, -2.0, r"\frac{m}{n^2\epsilon^2}"),
             Term("statistical", c / n, -1.0, 0.0, r"\frac1n")],
            [Term("privacy", c * math.sqrt(d) / (n**1.5 * eps), -1.5, -1.0, r"\frac{\sqrt m}{n^{1.5}\epsilon}"),
             Term("privacy-cubic", c * d**1.5 / (n**2.5 * eps**3), -2.5, -3.0, r"\frac{m^{1.5}}{n^{2.5}\epsilon^3}")],
        ]
    return [
        [term("privacy", d, 1.0, -3.0, -2.0, r"\frac{km}{n^3\epsilon^2}"),
         Term("statistical", c / n, -1.0, 0.0, r"\frac1n")],
        [term("privacy", d, 1.0, -2.5, -2.0, r"\frac{km}{n^{2.5}\epsilon^2}"),
         Term("statistical", c / n**1.5, -1.5, 0.0, r"\frac1{n^{1.5}}")],
        [term("privacy", math.sqrt(d), 0.5, -2.0, -1.0, r"\frac{\sqrt{km}}{n^2\epsilon}"),
         term("privacy-cubic", d**1.5, 1.5, -4.0, -3.0, r"\frac{(km)^{1.5}}{n^4\epsilon^3}")],
    ]


def _with_stability(n, c, totals, taus):
    """Branch values with Theorem 3's stability term (tau + L) 16 G^2/(n^2 mu^2), which Remark 4's template drops,
    kept at the rate level (constants dropped as in the template: (tau + 1)/n^2).  Returns (values, index of min)."""
    vals = [t + c * (tau + 1.0) / n**2 for t, tau in zip(totals, taus)]
    return vals, min(range(len(vals)), key=vals.__getitem__)


def _stability_note(which, i, totals, vals, j, taus):
    shown = ", ".join(f"branch {b + 1} (tau = {taus[b]:.4g}): {vals[b]:.3g}" for b in range(len(vals)))
    return (f"Keeping Theorem 3's stability term (tau + L) 16G^2/(n^2 mu^2), which {which} drops (dpviz's "
            f"correction; constants dropped as in the template: (tau + 1)/n^2): {shown}. The minimum is then branch "
            f"{j + 1} at {vals[j]:.3g}, beside the template's branch {i + 1} at {totals[i]:.3g}.")


def bound_remark4(*, n, d, eps, c=1.0) -> BoundResult:
    r"""Excess population risk rate of DP-SGD (Kang, Li, Liu & Wang (kang-pidp), Remark 4), with E[L*] = O(1/n):

    .. math:: O\Big(\min\Big\{\frac{m}{n^2\epsilon^2}+\frac1n,\ \frac{\sqrt m}{n^{1.5}\epsilon}
              + \frac{m^{1.5}}{n^{2.5}\epsilon^3}\Big\}\Big)

    (τ = O(1) and τ = √n ε/√m in m/(τn²ε²) + τm/(n²ε²) + 1/(τn); logs and constants dropped, constant ``c``).
    Returns the terms of the smaller branch; ``extras`` has both branch values.
    """
    n, d, eps, _ = _common(n, d, eps)
    c = v.check_positive("c", c)
    branches = _branches(n, d, eps, None, c, "remark4")
    totals = [sum(t.value for t in b) for b in branches]
    i = min(range(2), key=totals.__getitem__)
    taus = [1.0, math.sqrt(n) * eps / math.sqrt(d)]
    vals, j = _with_stability(n, c, totals, taus)
    return _result("kang-pidp-remark4", branches[i], T=max(1, math.ceil(math.log(n))),
                   notes=[f"branch {i + 1} (tau = {taus[i]:.4g}) is the smaller one; logs and constants dropped.",
                          _stability_note("Remark 4's template", i, totals, vals, j, taus)],
                   extras={"branch": i + 1, "branch_values": totals, "tau": taus[i],
                           "corrected_branch_values": vals, "corrected_branch": j + 1, "corrected_total": vals[j]})


def _k(k, n):
    if k is None:
        return None
    k = v.check_int("k (number of data instances that affect the model significantly)", k)
    if k > n:
        raise ValueError(f"k (instances that affect the model significantly) cannot exceed n = {n}, got k = {k}.")
    return k


def bound_thm6(*, n, d, eps, delta, G=1.0, L=None, k=None, eps1=None, delta1=None, c=1.0,
               consistent_constants=False) -> BoundResult:
    r"""Excess empirical risk of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Theorem 6).

    .. math:: \mathbb E[L(\theta_{priv};D) - L^*] \le O\Big(\frac{kmG^2\log(1/\delta_1)\log n}{n^3\epsilon_1^2}\Big),
              \quad \eta = 1/L,\ T = O\Big(\log\frac{n^3\epsilon_1^2}{kmG^2}\Big),

    with k the number of significant instances (default k = n, which recovers Theorem 1) and (ε₁, δ₁) the training
    budget (default 3ε/4, 3δ/4 as in ``pidp-sgd``).  One term ``privacy``; T = max(1, ⌈log(n³ε₁²/(kmG²))⌉).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    k_in = _k(k, n)
    k = n if k_in is None else k_in
    eps1 = 0.75 * eps if eps1 is None else v.check_eps(eps1, "eps1")
    delta1 = 0.75 * delta if delta1 is None else v.check_delta(delta1, "delta1")
    T = max(1, math.ceil(math.log(n**3 * eps1**2 / (k * d * G**2)))) if n**3 * eps1**2 > k * d * G**2 else 1
    c, cextras = _consistent_c(c, consistent_constants, n, eps1, delta1, G, T)
    val = c * k * d * G**2 * _ld(delta1) * math.log(n) / (n**3 * eps1**2)
    term = Term("privacy", val, -3.0 if k_in is not None else -2.0, -2.0,
                r"\frac{kmG^2\log(1/\delta_1)\log n}{n^3\epsilon_1^2}")
    notes = ["k = n (every instance significant) recovers Theorem 1." if k_in is None else
             f"k = {k} of n = {n} instances get noise (probability k/n per step).",
             f"Schedule (dpviz's reading): T = ceil(log(n^3 eps1^2/(k m G^2))) = {T} uses the proof's constant 1 and "
             f"ignores mu/L, so (1 - mu/L)^T need not be small; at k = n it is not Theorem 1's T (dpviz: the "
             f"smallest T with (1 - mu/L)^T <= 1/n)."]
    if cextras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=cextras["c_implied"]))
    return _result("kang-pidp-thm6", [term], eta=_eta_of(L), T=T, notes=notes,
                   extras={"k": k, "eps1": eps1, "delta1": delta1, **cextras})


def bound_thm7(*, n, d, eps, k=None, c=1.0) -> BoundResult:
    r"""Excess population risk of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Theorem 7; Remark 4's τ-template).

    Printed: :math:`O(\min\{\frac{km}{n^3\epsilon^2}+\frac1n, \frac{km}{n^{2.5}\epsilon^2}+\frac1{n^{1.5}},
    \frac{(km)^{1.5}}{n^2\epsilon^3}+\frac{\epsilon}{\sqrt{kmn}}\})` from τ = O(1), O(√n), O(nε/√(km)).  The third
    branch does not follow from its τ: with e = km/(n³ε²), e/τ + τe + 1/(τn) at τ = nε/√(km) is
    :math:`\frac{(km)^{1.5}}{n^4\epsilon^3} + \frac{2\sqrt{km}}{n^2\epsilon}`; dpviz uses that (constants dropped,
    see the theorem's discrepancy).  k defaults to n.  Returns the smallest branch's terms.
    """
    n, d, eps, _ = _common(n, d, eps)
    c = v.check_positive("c", c)
    k_in = _k(k, n)
    kk = n if k_in is None else k_in
    branches = _branches(n, d, eps, k_in, c, "thm7")
    totals = [sum(t.value for t in b) for b in branches]
    i = min(range(3), key=totals.__getitem__)
    taus = [1.0, math.sqrt(n), n * eps / math.sqrt(kk * d)]
    printed3 = c * ((kk * d) ** 1.5 / (n**2 * eps**3) + eps / math.sqrt(kk * d * n))
    vals, j = _with_stability(n, c, totals, taus)
    notes = [f"branch {i + 1} (tau = {taus[i]:.4g}) is the smallest; logs and constants dropped.",
             f"Third branch: printed (km)^1.5/(n^2 eps^3) + eps/sqrt(kmn) = {printed3:.3g}; derived from its tau "
             f"(dpviz's correction) (km)^1.5/(n^4 eps^3) + sqrt(km)/(n^2 eps) (constant 2 dropped) = {totals[2]:.3g}; "
             f"with the "
             f"stability term {vals[2]:.3g}.",
             _stability_note("Remark 4's template (used by Theorem 7)", i, totals, vals, j, taus)]
    return _result("kang-pidp-thm7", branches[i], T=max(1, math.ceil(math.log(n))), notes=notes,
                   extras={"branch": i + 1, "branch_values": totals, "tau": taus[i], "k": kk,
                           "printed_branch3": printed3, "corrected_branch_values": vals,
                           "corrected_branch": j + 1, "corrected_total": vals[j]})


def bound_thm2(*, n, L, mu, G=1.0, excess_empirical=None, Lstar=None, tau=None, d=None, eps=None, delta=None,
               T=None, Delta0=1.0) -> BoundResult:
    r"""Generalization error of DP-SGD under the PL condition, Kang, Li, Liu & Wang (kang-pidp), Theorem 2, eq. (5).

    .. math:: \mathbb E[L_P(\theta_{priv}) - L(\theta_{priv};D)] \le \inf_{\tau>0}\Big\{\frac{8(\tau+L)}{\mu}e
              + \frac{16G^2(\tau+L)}{n^2\mu^2} + \frac{L\,\mathbb E[L(\theta_{priv};D)]}{\tau}\Big\},

    with e = E[L(θ_priv; D) − L*] and E[L(θ_priv; D)] = e + E[L*].  Explicit constants as printed.  ``e`` is
    ``excess_empirical`` if given, else Theorem 1's explicit bound (:func:`explicit_bound_thm1`, needs d, eps, delta);
    E[L*] = ``Lstar`` (default 1/n).  ``tau=None`` takes the minimiser τ* = √(L(e + E[L*])/(8e/μ + 16G²/(n²μ²))) of
    the τ-dependent part.  Bounds the generalization gap, not an excess risk.
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    extras = {}
    if excess_empirical is None:
        if d is None or eps is None or delta is None:
            raise ValueError("Theorem 2 needs the excess empirical risk: give excess_empirical, or d, eps and delta "
                             "to take Theorem 1's explicit bound.")
        emp = explicit_bound_thm1(n=n, d=d, eps=eps, delta=delta, G=G, L=L, mu=mu, T=T, Delta0=Delta0)
        e = emp.total
        extras.update(emp.extras)
    else:
        e = v.check_nonnegative("excess_empirical", excess_empirical)
    b = 16.0 * G**2 / (n**2 * mu**2)
    if tau is None:
        A = 8.0 * e / mu + b
        tau = math.sqrt(L * (e + Lstar) / A) if A > 0 and e + Lstar > 0 else 1.0
    else:
        tau = v.check_positive("tau", tau)
    terms = [
        Term("optimisation", 8.0 * (tau + L) / mu * e, -2.0, -2.0, r"\frac{8(\tau+L)}{\mu}\mathbb E[L(\theta_{priv};D)-L^*]"),
        Term("stability", b * (tau + L), -2.0, 0.0, r"\frac{16G^2(\tau+L)}{n^2\mu^2}"),
        Term("statistical", L * (e + Lstar) / tau, -1.0, 0.0, r"\frac{L\,\mathbb E[L(\theta_{priv};D)]}{\tau}"),
    ]
    extras.update({"tau": tau, "Lstar": Lstar, "excess_empirical": e})
    return _result("kang-pidp-thm2", terms, eta=1.0 / L, notes=["Generalization gap E[L_P - L_D], eq. (5)."],
                   extras=extras, explicit=True)


def bound_thm4(*, n, G, L, zeta=None, mu=None, C_hess=0.0) -> BoundResult:
    r"""Influence-function approximation error, Kang, Li, Liu & Wang (kang-pidp), Theorem 4.

    .. math:: E = \|(\theta^*_{-z}-\theta^*) - c_z\|_2 \le \frac{1}{\zeta^2 n^2}\Big(2LG + \frac{CG^2}{\zeta}\Big)

    (:func:`if_error_bound`), as two terms ``smoothness`` 2LG/(ζ²n²) and ``hessian-lipschitz`` CG²/(ζ³n²).  Not a
    risk: how far the one-step influence estimate c_z of eq. (11) is from the true leave-one-out change.  ζ defaults
    to μ (as in ``pidp-sgd``).
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    L = v.check_positive("L", L)
    if zeta is None:
        if mu is None:
            raise ValueError("Theorem 4 needs zeta, the lower bound on the Hessian (or mu, then zeta = mu).")
        zeta = mu
    zeta = v.check_positive("zeta (Hessian lower bound)", zeta)
    C_hess = v.check_nonnegative("C_hess (Hessian-Lipschitz constant)", C_hess)
    terms = [
        Term("smoothness", 2.0 * L * G / (zeta**2 * n**2), -2.0, 0.0, r"\frac{2LG}{\zeta^2n^2}"),
        Term("hessian-lipschitz", C_hess * G**2 / (zeta**3 * n**2), -2.0, 0.0, r"\frac{CG^2}{\zeta^3n^2}"),
    ]
    return _result("kang-pidp-thm4", terms, notes=["O(1/n^2): the influence estimate c_z is precise (Section 5.3)."],
                   explicit=True)


def bound_remark3(*, n, d, eps, delta, G=1.0, c=1.0) -> BoundResult:
    r"""The earlier excess empirical risk bound that Remark 3 of Kang, Li, Liu & Wang (kang-pidp) improves on.

    .. math:: O\Big(\frac{mG^2\log(1/\delta)\log^2 n}{n^2\epsilon^2}\Big)\quad\text{(their reference [43])},

    one factor log n above Theorem 1's :math:`O(mG^2\log(1/\delta)\log n/(n^2\epsilon^2))` ("T multiplied rudely to the
    noise term" vs a geometric sum).  ``extras['theorem1']`` is Theorem 1's rate at the same constant c and
    ``extras['factor']`` = log n.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    val = c * d * G**2 * _ld(delta) * math.log(n) ** 2 / (n**2 * eps**2)
    term = Term("privacy", val, -2.0, -2.0, r"\frac{mG^2\log(1/\delta)\log^2n}{n^2\epsilon^2}")
    return _result("kang-pidp-remark3", [term], notes=["Rate of reference [43] quoted in Remark 3; constants dropped."],
                   extras={"theorem1": _emp_rate(n, d, eps, delta, G, c), "factor": math.log(n)})


def time_complexity(*, n, d, rounds, T_local, efficient=False) -> float:
    r"""Time complexity of PIDP-SGD, Kang, Li, Liu & Wang (kang-pidp), Remark 8 (operations, constants dropped).

    :math:`R n m^2 + R T_{local} m` (the Hessian of each round costs n m²), or :math:`R n m + R T_{local} m` with the
    efficient influence-function computation Remark 8 cites (``efficient=True``).  m = d.
    """
    n = v.check_n(n)
    d = v.check_int("d (model dimension, the paper's m)", d)
    rounds = v.check_int("rounds (the paper's R)", rounds)
    T_local = v.check_int("T_local", T_local)
    per = n * d if efficient else n * d * d
    return float(rounds * per + rounds * T_local * d)


# ----------------------------------------------------------------------------------------------------------------
# catalogue entries

ALGORITHMS = [
    Algorithm(
        id="dpsgd-pl",
        name="DP-SGD under the PL condition",
        paper=PAPER,
        place="Section 4, eq. (1)-(2)",
        setting="pointwise",
        perturbation="gradient",
        assumptions=_ASSUME,
        calibrate=calibrate_dpsgd_pl,
        affects=("n", "eps", "delta", "T", "G", "c"),
        description=(
            "SGD with one uniformly chosen example per step and Gaussian noise on its gradient, "
            "theta <- theta - eta (grad + b), b ~ N(0, sigma^2 I), eta = 1/L, T = O(log n), last iterate. The paper's "
            "noise (2) has an unspecified constant c; dpviz calibrates sigma with an RDP accountant."
        ),
        noise="gaussian",
        formula=_PL_FORMULA,
    ),
    Algorithm(
        id="pidp-sgd",
        name="PIDP-SGD (Performance Improving DP-SGD)",
        paper=PAPER,
        place="Algorithm 1",
        setting="pointwise",
        perturbation="gradient",
        assumptions=_ASSUME,
        calibrate=calibrate_pidp_sgd,
        affects=("n", "eps", "delta", "T", "G", "mu", "c"),
        description=(
            "DP-SGD that adds gradient noise only for examples whose (noised) influence-function contribution "
            "H^{-1} grad / n is large: R rounds of T_local steps; each round inverts the Hessian at the round's model; "
            "the contribution gets its own Gaussian noise sigma_c (Theorem 5), calibrated by dpviz for the sensitivity "
            "4G/(n zeta) of the released 2 c_t^(o) (the proof uses 2G/(n zeta)); see the notes for what dpviz "
            "cannot certify."
        ),
        noise="gaussian",
        formula=_PIDP_FORMULA,
    ),
]

_DISCREPANCY_REMARK4 = (
    "Remark 4 prints tau = O(sqrt(n eps)/sqrt(m)) for the second branch, but the printed rate sqrt(m)/(n^1.5 eps) + "
    "m^1.5/(n^2.5 eps^3) follows from tau = sqrt(n) eps/sqrt(m) (with sqrt(n eps) the eps-powers would be 1.5 and "
    "2.5). dpviz uses tau = sqrt(n) eps/sqrt(m). The template m/(tau n^2 eps^2) + tau m/(n^2 eps^2) + 1/(tau n) also "
    "drops Theorem 3's stability term (tau + L) 16 G^2/(n^2 mu^2)."
)

_DISCREPANCY_THM1 = (
    "The proof of Theorem 1 replaces the second moment E||grad l(theta_t, z_t)||^2 of the sampled gradient by the "
    "squared full gradient ||grad L(theta_t)||^2 (eq. (4) onward), so the bound has no SGD variance floor: it is "
    "exact for full-batch noisy GD, and for one-example SGD it omits a term of order eta E||grad l - grad L||^2/mu. "
    "The explicit bound (1 - mu/L)^T Delta0 + m sigma^2/(2 mu) follows the proof as printed and inherits this. "
    "Schedule: dpviz's T = O(log n) makes (1 - mu/L)^T <= 1/n, which leaves an optimisation term Delta0/n above the "
    "claimed n^-2 rate (the rate needs (1 - mu/L)^T <= 1/n^2, twice the T)."
)

_DISCREPANCY_THM6 = (
    "The statement of Theorem 6 takes T = O(log n); its proof takes T = O(log(n^3 eps1^2/(k m G^2))). dpviz uses the "
    "proof's T = max(1, ceil(log(n^3 eps1^2/(k m G^2)))) (both are logarithmic in n). This T takes the proof's "
    "constant as 1 and ignores mu/L, so it does not make (1 - mu/L)^T small, and at k = n it is not Theorem 1's T "
    "(the smallest T with (1 - mu/L)^T <= 1/n): the two schedules are inconsistent where Theorem 6 should recover "
    "Theorem 1."
)

_DISCREPANCY_THM7 = (
    "The third branch is printed as (km)^1.5/(n^2 eps^3) + eps/sqrt(kmn) 'from tau = O(n eps/sqrt(km))', but "
    "substituting that tau into Remark 4's template e/tau + tau e + 1/(tau n) with e = km/(n^3 eps^2) (Theorem 6) "
    "gives (km)^1.5/(n^4 eps^3) + 2 sqrt(km)/(n^2 eps). dpviz follows the derivation (constants dropped); the printed "
    "value is in extras['printed_branch3']. With k = n this branch coincides with Remark 4's second branch. Like "
    "Remark 4, the template drops Theorem 3's stability term (tau + L) 16G^2/(n^2 mu^2), which dominates at small k; "
    "the notes give the branches with it (extras['corrected_branch_values'])."
)


THEOREMS = [
    Theorem(
        id="kang-pidp-thm1",
        paper=PAPER,
        number="Theorem 1",
        algorithm="dpsgd-pl",
        assumptions=_ASSUME,
        bound=bound_thm1,
        explicit_bound=explicit_bound_thm1,
        statement=r"\mathbb E[L(\theta_{priv};D)-L^*]\le O\Big(\frac{mG^2\log(1/\delta)\log n}{n^2\epsilon^2}\Big)",
        schedule=r"\eta=\frac1L,\ T=O(\log n)",
        notes=("Explicit form: (1 - mu/L)^T Delta0 + m sigma^2/(2 mu) with the calibrated sigma.",),
        discrepancy=_DISCREPANCY_THM1,
        risk=Risk("excess empirical risk (optimality gap)", "expectation", "E[L(θ_priv; D) − L*]"),
        schedule_affects=("n", "L", "mu"),
    ),
    Theorem(
        id="kang-pidp-thm3",
        paper=PAPER,
        number="Theorem 3",
        algorithm="dpsgd-pl",
        assumptions=_ASSUME,
        bound=bound_thm3,
        explicit_bound=explicit_bound_thm3,
        statement=(
            r"(\tau+L)\Big(\frac{8\tau+\mu}{\mu\tau}\mathbb E[L(\theta_{priv};D)-L^*]+\frac{16G^2}{n^2\mu^2}\Big)"
            r"+\frac{L}{\tau}\mathbb E[L^*]"
        ),
        schedule=r"\eta=\frac1L,\ T=O(\log n),\ \tau>0",
        notes=("E[L*] defaults to 1/n (Remark 4's assumption); tau defaults to the minimiser.",),
        schedule_affects=("n", "L", "mu"),
    ),
    Theorem(
        id="kang-pidp-thm2",
        paper=PAPER,
        number="Theorem 2",
        algorithm="dpsgd-pl",
        assumptions=_ASSUME,
        bound=bound_thm2,
        statement=(
            r"\inf_{\tau>0}\Big\{\frac{8(\tau+L)}{\mu}\mathbb E[L(\theta_{priv};D)-L^*]+\frac{16G^2(\tau+L)}{n^2\mu^2}"
            r"+\frac{L\,\mathbb E[L(\theta_{priv};D)]}{\tau}\Big\}"
        ),
        schedule=r"\tau>0\ \text{free (inf)}",
        risk=Risk("generalization gap", "expectation", "E[L_P(θ_priv) − L(θ_priv; D)], not an excess risk"),
        form="explicit",
        schedule_affects=("L",),
    ),
    Theorem(
        id="kang-pidp-thm4",
        paper=PAPER,
        number="Theorem 4",
        algorithm="pidp-sgd",
        assumptions=_ASSUME,
        bound=bound_thm4,
        statement=r"\|(\theta^*_{-z}-\theta^*)-c_z\|_2\le\frac{1}{\zeta^2n^2}\Big(2LG+\frac{CG^2}{\zeta}\Big)",
        risk=Risk("influence-function approximation error", "deterministic", "||(θ*_{-z} − θ*) − c_z||, not a risk"),
        form="explicit",
    ),
    Theorem(
        id="kang-pidp-remark3",
        paper=PAPER,
        number="Remark 3",
        algorithm="dpsgd-pl",
        assumptions=_ASSUME,
        bound=bound_remark3,
        statement=r"O\Big(\frac{mG^2\log(1/\delta)\log^2n}{n^2\epsilon^2}\Big)\ \text{(reference [43]; Theorem 1 removes one }\log n)",
        risk=Risk("excess empirical risk (optimality gap)", "expectation",
                  "E[L(θ_priv; D) − L*]; earlier bound, reference [43]"),
    ),
    Theorem(
        id="kang-pidp-remark4",
        paper=PAPER,
        number="Remark 4",
        algorithm="dpsgd-pl",
        assumptions=_ASSUME,
        bound=bound_remark4,
        statement=(
            r"O\Big(\min\Big\{\frac{m}{n^2\epsilon^2}+\frac1n,\frac{\sqrt m}{n^{1.5}\epsilon}"
            r"+\frac{m^{1.5}}{n^{2.5}\epsilon^3}\Big\}\Big)"
        ),
        schedule=r"T=O(\log n),\ \tau\in\{O(1),\ \sqrt n\epsilon/\sqrt m\}",
        discrepancy=_DISCREPANCY_REMARK4,
        notes=("Assumes E[L*] = O(1/n); ignores constants and logarithmic factors.",),
        schedule_affects=("n",),
    ),
    Theorem(
        id="kang-pidp-thm6",
        paper=PAPER,
        number="Theorem 6",
        algorithm="pidp-sgd",
        assumptions=_ASSUME,
        bound=bound_thm6,
        statement=r"\mathbb E[L(\theta_{priv};D)-L^*]\le O\Big(\frac{kmG^2\log(1/\delta_1)\log n}{n^3\epsilon_1^2}\Big)",
        schedule=r"\eta=\frac1L,\ T=O\Big(\log\frac{n^3\epsilon_1^2}{kmG^2}\Big)",
        notes=("k = number of instances that affect the model significantly (default n).",),
        risk=Risk("excess empirical risk (optimality gap)", "expectation", "E[L(θ_priv; D) − L*]"),
        discrepancy=_DISCREPANCY_THM6,
        schedule_affects=("n", "d", "eps", "G", "L"),
    ),
    Theorem(
        id="kang-pidp-thm7",
        paper=PAPER,
        number="Theorem 7",
        algorithm="pidp-sgd",
        assumptions=_ASSUME,
        bound=bound_thm7,
        statement=(
            r"O\Big(\min\Big\{\frac{km}{n^3\epsilon^2}+\frac1n,\frac{km}{n^{2.5}\epsilon^2}+\frac1{n^{1.5}},"
            r"\frac{(km)^{1.5}}{n^4\epsilon^3}+\frac{\sqrt{km}}{n^2\epsilon}\Big\}\Big)"
        ),
        schedule=r"\eta=\frac1L,\ T=O(\log n),\ \tau\in\{O(1),O(\sqrt n),O(n\epsilon/\sqrt{km})\}",
        discrepancy=_DISCREPANCY_THM7,
        notes=("Remark 10: eps and eps1 are not distinguished.",),
        schedule_affects=("n",),
    ),
]


# ----------------------------------------------------------------------------------------------------------------
# Table 1


def _optimal_convex(*, n, d, eps):
    return math.sqrt(d) / (n * eps) + 1.0 / math.sqrt(n)


TABLES = [
    ComparisonTable(
        id="kang-pidp-table1",
        paper=PAPER,
        number="Table 1",
        caption=(
            "Excess population risk bounds (m = model dimension d, k = number of significant instances, default n); "
            "assumptions: G-Lipschitz, L-smooth, strongly convex (S.C.), convex (C), PL."
        ),
        rows=(
            ComparisonRow(
                method="DP-SGD (convex, smooth)",
                reference="Bassily, Feldman, Talwar & Thakurta (2019)",
                assumptions="G, L, convex",
                rate_latex=r"O\Big(\frac{\sqrt m}{n\epsilon}+\frac1{\sqrt n}\Big)",
                rate=_optimal_convex,
            ),
            ComparisonRow(
                method="Phased algorithms (strongly convex)",
                reference="Feldman, Koren & Talwar (2020)",
                assumptions="G, strongly convex",
                rate_latex=r"O\Big(\frac{m}{n^2\epsilon^2}+\frac1n\Big)",
                rate=lambda *, n, d, eps: d / (n**2 * eps**2) + 1.0 / n,
            ),
            ComparisonRow(
                method="Phased algorithms (convex)",
                reference="Feldman, Koren & Talwar (2020)",
                assumptions="G, convex",
                rate_latex=r"O\Big(\frac{\sqrt m}{n\epsilon}+\frac1{\sqrt n}\Big)",
                rate=_optimal_convex,
            ),
            ComparisonRow(
                method="DP-SGD under PL (this paper, Remark 4)",
                reference="Kang, Li, Liu & Wang",
                assumptions="G, L, PL",
                rate_latex=(r"O\Big(\min\Big\{\frac{m}{n^2\epsilon^2}+\frac1n,\frac{\sqrt m}{n^{1.5}\epsilon}"
                            r"+\frac{m^{1.5}}{n^{2.5}\epsilon^3}\Big\}\Big)"),
                rate=lambda *, n, d, eps: bound_remark4(n=n, d=d, eps=eps).total,
            ),
            ComparisonRow(
                method="PIDP-SGD (this paper, Theorem 7)",
                reference="Kang, Li, Liu & Wang",
                assumptions="G, L, PL",
                rate_latex=(r"O\Big(\min\Big\{\frac{km}{n^3\epsilon^2}+\frac1n,\frac{km}{n^{2.5}\epsilon^2}"
                            r"+\frac1{n^{1.5}},\frac{(km)^{1.5}}{n^2\epsilon^3}+\frac{\epsilon}{\sqrt{kmn}}\Big\}\Big)"),
                rate=lambda *, n, d, eps, k=None: bound_thm7(n=n, d=d, eps=eps, k=k).total,
                extra={"note": "third branch evaluated as derived from its tau (see Theorem 7's discrepancy)"},
            ),
        ),
    ),
]
