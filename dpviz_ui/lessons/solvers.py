r"""The solvers: each computes a question's answer at the step's state with dpviz and explains it (formula and the
numbers plugged in).  :data:`SOLVERS` collects every ``solve_*`` function of this module by name (a question names
its solver without the prefix); :func:`answer` runs a step's solver; :func:`check_prediction` marks a student's
prediction.  The solution notebooks print a solver's own source (``inspect.getsource``), so each solver imports
what it uses inside its body.

Imports :mod:`.model` only.
"""

from __future__ import annotations

import math
from typing import Callable

from dpviz_ui.lessons.model import (Question, Step, calibrated_noise, number_text, only_params, params_of,
                                    smallest_feasible_eps, tex_number)

#: "≤" in a formula
LE = r"\le"


def solve_classical_eps_halves(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.classical_sigma(p["eps"] / 2, p["delta"], p["G"])
    return {"answer": b / a, "text": "The classical σ is proportional to 1/ε, so halving ε doubles it.",
            "tex": rf"\frac{{\sigma(\epsilon/2)}}{{\sigma(\epsilon)}} = \frac{{{tex_number(b)}}}{{{tex_number(a)}}} = {tex_number(b / a)}"}


def solve_classical_delta(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    d2 = p["delta"] ** 2
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.classical_sigma(p["eps"], d2, p["G"])
    return {"answer": b / a, "text": "δ enters only through √(2 ln(1.25/δ)): squaring δ (many more zeros) raises σ "
                                     "by much less than a factor 2.",
            "tex": rf"\sqrt{{\frac{{\ln(1.25/{tex_number(d2)})}}{{\ln(1.25/{tex_number(p['delta'])})}}}} = {tex_number(b / a)}"}


def solve_exact_ratio(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.sigma_for(p["eps"], p["delta"], p["G"], rtol=1e-9)
    return {"answer": b / a, "text": "The exact σ solves Balle & Wang's Theorem 8 with equality: "
                                     "Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ.",
            "tex": rf"\frac{{\sigma_{{\rm exact}}}}{{\sigma_{{\rm classical}}}} = \frac{{{tex_number(b)}}}{{{tex_number(a)}}} = "
                   rf"{tex_number(b / a)}"}


def solve_classical_private(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    d = gaussian.delta_of(a, p["G"], p["eps"])
    yes = d <= p["delta"]
    return {"answer": "yes" if yes else "no",
            "text": f"The exact δ of the classical σ at ε = {p['eps']:g} is {number_text(d)}, "
                    f"{'at most' if yes else 'above'} the target δ = {number_text(p['delta'])}.",
            "tex": rf"\delta(\sigma_{{\rm classical}}) = {tex_number(d)}\ {LE if yes else '>'}\ {tex_number(p['delta'])}"}


def ratio_of(state: dict, name: str, factor: float, what: str) -> tuple[float, float, float]:
    p = params_of(state)
    q = {**p, name: p[name] * factor if name != "n" else int(round(p[name] * factor))}
    if name == "n" and state["delta_auto"]:
        q["delta"] = 1.0 / float(q["n"]) ** 2
    a, b = calibrated_noise(state["algorithm"], p), calibrated_noise(state["algorithm"], q)
    if a is None or b is None:
        raise ValueError(f"the calibration is not feasible at both values of {what}")
    return a, b, b / a


def fixed_beta_change(state: dict, name: str, factor: int) -> dict:
    """Line 5 of Wang, Lei, Ying & Zhou's Algorithm 1 at the β dpviz chose for ``state``, before and after ``name``
    ("n" or "T") is multiplied by ``factor`` (the other settings fixed): both σ, their ratio, whether Theorem 2's
    conditions hold at that β after the change, and the calibrated σ there (β searched again; None if infeasible)."""
    from dpviz.theory import catalog
    from dpviz.theory.papers import wang_lownoise as wl

    p = params_of(state)
    kw = only_params(p, catalog.get_algorithm("dpsgd-rdp").calibrate)
    kw.pop("c", None)
    cal = catalog.calibrate("dpsgd-rdp", **kw)
    if not cal.feasible or cal.beta is None:
        raise ValueError("the calibration is not feasible at this step's settings: no β to hold fixed")
    q = {**p, name: int(p[name] * factor)}
    if name == "n" and state["delta_auto"]:
        q["delta"] = 1.0 / float(q["n"]) ** 2
    before = wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=cal.beta)
    after = wl.sigma_of_beta(n=q["n"], eps=q["eps"], delta=q["delta"], T=q["T"], G=q["G"], beta=cal.beta)
    cond = wl.conditions_at_beta(n=q["n"], eps=q["eps"], delta=q["delta"], T=q["T"], beta=cal.beta)
    return {"beta": cal.beta, "before": before, "after": after, "ratio": after / before,
            "private": cond["feasible"], "conditions": cond, "calibrated_after": calibrated_noise("dpsgd-rdp", q),
            "calibrated_before": cal.sigma}


def fixed_beta_text(ch: dict, what: str) -> str:
    """The explanation of a :func:`fixed_beta_change`: the fixed-β rule, whether that σ is private, the calibrated
    σ's own change."""
    c = ch["conditions"]
    verdict = ("That σ is private: Theorem 2's conditions still hold at this β." if ch["private"] else
               "That σ is NOT private: at this β Theorem 2's condition "
               + ("(i) σ² ≥ 2.68G²" if not c["cond1"] else "(ii) on the Rényi order")
               + f" fails after the change (λ − 1 = {number_text(c['cond2_lhs'])} against "
               f"{number_text(c['cond2_rhs'])}), so dpviz searches β again.")
    cal = ch["calibrated_after"]
    moved = (f" The calibrated (private) σ goes from {number_text(ch['calibrated_before'])} to {number_text(cal)}: "
             f"the factor {number_text(cal / ch['calibrated_before'])} on the chart." if cal is not None else
             " No β is feasible after the change.")
    return f"At β = {number_text(ch['beta'])}, {what}. " + verdict + moved


def solve_sigma_n_doubles(state: dict, values: dict | None = None) -> dict:
    ch = fixed_beta_change(state, "n", 2)
    return {"answer": ch["ratio"],
            "text": fixed_beta_text(ch, "line 5 gives σ ∝ √T/n, so doubling n halves σ"),
            "tex": rf"\frac{{\sigma_\beta(2n)}}{{\sigma_\beta(n)}} = \frac{{{tex_number(ch['after'])}}}"
                   rf"{{{tex_number(ch['before'])}}} = {tex_number(ch['ratio'])}"}


def solve_sigma_T_quadruples(state: dict, values: dict | None = None) -> dict:
    ch = fixed_beta_change(state, "T", 4)
    return {"answer": ch["ratio"],
            "text": fixed_beta_text(ch, "line 5 gives σ² ∝ T, so four times T doubles σ"),
            "tex": rf"\frac{{\sigma_\beta(4T)}}{{\sigma_\beta(T)}} = \frac{{{tex_number(ch['after'])}}}"
                   rf"{{{tex_number(ch['before'])}}} = {tex_number(ch['ratio'])}"}


def solve_sigma_half_beta(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory.papers import wang_lownoise as wl

    p = params_of(state)
    s = wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=0.5)
    c = wl.conditions_at_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], beta=0.5)
    fails = [k for k, ok in (("(i) σ² ≥ 2.68G²", c["cond1"]), ("(ii) on the Rényi order λ", c["cond2"])) if not ok]
    verdict = ("This σ is private: β = ½ meets both conditions of Theorem 2." if not fails else
               "This σ is NOT private: at β = ½ Theorem 2's condition" + ("s " if len(fails) > 1 else " ")
               + " and ".join(fails) + (" fail" if len(fails) > 1 else " fails")
               + f" (σ²/G² = {number_text(c['sigma2_over_G2'])}, λ − 1 = {number_text(c['cond2_lhs'])} against "
               f"{number_text(c['cond2_rhs'])}); that is why dpviz's β search chose another β.")
    return {"answer": s, "text": "Algorithm 1, line 5 of Wang, Lei, Ying & Zhou at β = ½. " + verdict,
            "tex": rf"\sigma^2 = \frac{{14G^2T}}{{\beta n^2\epsilon}}\Big(\frac{{\log(1/\delta)}}{{(1-\beta)\epsilon}}"
                   rf"+1\Big) = \frac{{14\cdot {tex_number(p['G'])}^2\cdot {p['T']}}}{{0.5\cdot {p['n']}^2\cdot "
                   rf"{tex_number(p['eps'])}}}\Big(\frac{{\log(1/{tex_number(p['delta'])})}}{{0.5\cdot {tex_number(p['eps'])}}}+1\Big),"
                   rf"\quad \sigma = {tex_number(s)}"}


def solve_smallest_eps(state: dict, values: dict | None = None) -> dict:
    p = params_of(state)
    e = smallest_feasible_eps(state["algorithm"], p)
    if e is None:
        raise ValueError("no ε up to 1000 makes this calibration feasible")
    return {"answer": e, "text": "Found by bisection on ε of dpviz's feasibility check (the β search of the "
                                 "paper's conditions) at the other settings of this step.",
            "tex": rf"\epsilon_{{\min}} \approx {tex_number(e)}"}


def solve_smallest_eps_T_n(state: dict, values: dict | None = None) -> dict:
    n = state["n"]
    e = smallest_feasible_eps("dpsgd-rdp", {**params_of(state), "T": n, "delta": 1.0 / n**2})
    if e is None:
        raise ValueError("no ε up to 1000 makes this calibration feasible")
    return {"answer": e, "text": "Bisection on ε of dpviz's β search for DP-SGD with T = n and δ = 1/n² (the "
                                 "setting of Lemma 13).", "tex": rf"\epsilon_{{\min}} \approx {tex_number(e)}\quad (n = {n})"}


def solve_paper_over_tight(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog
    from dpviz.labs import privacy_lab

    alg = catalog.get_algorithm(state["algorithm"])
    p = {k: v for k, v in only_params(params_of(state), alg.calibrate).items() if k != "c"}
    res = privacy_lab.evaluate(alg.id, names=("rdp",), **p)
    row = next(r for r in res["accountants"] if r["matches_paper"])
    r = res["paper_sigma"] / row["sigma_for_eps"]
    return {"answer": r, "text": "The closed form is a sufficient condition; a numerical RDP accountant of the same "
                                 "mechanism (same sampling and neighbouring) certifies the same (ε, δ) with less "
                                 f"noise. Both σ are private (the paper's {number_text(res['paper_sigma'])} by Theorem "
                                 f"2, the accountant's {number_text(row['sigma_for_eps'])} by the accountant); the "
                                 "accountant is not tight either, so the least private σ is smaller still.",
            "tex": rf"\frac{{\sigma_{{\rm paper}}}}{{\sigma_{{\rm RDP}}}} = \frac{{{tex_number(res['paper_sigma'])}}}"
                   rf"{{{tex_number(row['sigma_for_eps'])}}} = {tex_number(r)}"}


def solve_dominant(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    b = catalog.bound(thm.id, **only_params(params_of(state), thm.bound))
    d = b.dominant()
    return {"answer": d.name, "text": "The term with the largest value at this step's n, d, ε, δ dominates.",
            "tex": r",\ ".join(rf"{{\rm {t.name}}} = {tex_number(t.value)}" for t in b.terms)}


def solve_total_n_times_10(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    q = {**p, "n": p["n"] * 10}
    if state["delta_auto"]:
        q["delta"] = 1.0 / float(q["n"]) ** 2
    a = catalog.bound(thm.id, **only_params(p, thm.bound)).total
    b = catalog.bound(thm.id, **only_params(q, thm.bound)).total
    return {"answer": b / a, "text": "Each term scales with its own power of n; the total follows the slowest one.",
            "tex": rf"\frac{{{{\rm bound}}(10n)}}{{{{\rm bound}}(n)}} = \frac{{{tex_number(b)}}}{{{tex_number(a)}}} = {tex_number(b / a)}"}


def solve_privacy_n_exponent(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    b = catalog.bound(thm.id, **only_params(params_of(state), thm.bound))
    t = next(t for t in b.terms if t.name == "privacy")
    return {"answer": t.n_exp, "text": "Read off the rate of the privacy term at this α.",
            "tex": rf"n^{{-2/(3+\alpha)}} = n^{{{t.n_exp:.4g}}}\quad(\alpha = {state['alpha']:g})"}


def solve_T_alpha(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    a = catalog.bound(thm.id, **only_params({**p, "alpha": 1.0}, thm.bound)).T
    b = catalog.bound(thm.id, **only_params({**p, "alpha": 0.0}, thm.bound)).T
    return {"answer": b / a, "text": "The theorem's schedule asks for more iterations when the gradient is less "
                                     "smooth.", "tex": rf"\frac{{T(\alpha=0)}}{{T(\alpha=1)}} = \frac{{{tex_number(b)}}}"
                                                      rf"{{{tex_number(a)}}} = {tex_number(b / a)}"}


def solve_slope_vs_theory(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("slope") is None:
        raise ValueError("run the simulation of this step first")
    s, th = values["slope"], values["theory_eps_exp"]
    ans = "flatter" if abs(s) < abs(th) else "steeper"
    return {"answer": ans, "text": f"The fitted slope {s:.3g} against the privacy term's ε exponent {th:g}: the "
                                   "simulated risk also holds an error that does not shrink with ε (optimisation and "
                                   "statistical error), so it falls more slowly.",
            "tex": rf"|b| = {abs(s):.3g}\ {'<' if ans == 'flatter' else '>'}\ {abs(th):g}"}


def solve_iteration_T4(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    a = catalog.bound(thm.id, **only_params(p, thm.bound))
    b = catalog.bound(thm.id, **only_params({**p, "T": p["T"] * 4}, thm.bound))
    ta = next(t.value for t in a.terms if t.name == "iteration")
    tb = next(t.value for t in b.terms if t.name == "iteration")
    return {"answer": tb / ta, "text": "The iteration term of Yang, Lei, Lyu & Ying's Theorem 1 is η√T.",
            "tex": rf"\frac{{\eta\sqrt{{4T}}}}{{\eta\sqrt T}} = \frac{{{tex_number(tb)}}}{{{tex_number(ta)}}} = {tex_number(tb / ta)}"}


def solve_below_bound(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("max") is None:
        raise ValueError("run the measurement of this step first")
    below = values["max"] <= values["bound"]
    return {"answer": "below" if below else "above",
            "text": f"Measured max {values['max']:.4g} against the bound {values['bound']:.4g}.",
            "tex": rf"\max\|A(S)-A(S')\| = {tex_number(values['max'])}\ {LE if below else '>'}\ {tex_number(values['bound'])}"}


def solve_paper_sigma(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    alg = catalog.get_algorithm(state["algorithm"])
    p = {k: v for k, v in only_params(params_of(state), alg.calibrate).items() if k != "c"}
    cal = catalog.calibrate(alg.id, **p)
    s = float(cal.extras["sigma_paper"])
    ok = cal.extras.get("paper_sigma_private")
    verdict = ("" if ok is None else " It is private: the exact (analytic) Gaussian check holds at this (ε, δ)."
               if ok else " It is NOT private: the exact (analytic) Gaussian check fails at this (ε, δ).")
    if cal.sigma is not None:
        verdict += f" dpviz releases σ = {number_text(cal.sigma)}, the smallest σ that passes the exact check."
    return {"answer": s, "text": "The σ the paper prints, at this step's settings." + verdict,
            "tex": cal.formula_numbers or rf"\sigma_{{\rm paper}} = {tex_number(s)}"}


def solve_private_sigma_n_doubles(state: dict, values: dict | None = None) -> dict:
    a, b, r = ratio_of(state, "n", 2, "n")
    return {"answer": r, "text": "The exact Gaussian σ is proportional to the sensitivity 8G/(μn), which halves "
                                 f"when n doubles. Both σ ({number_text(a)} and {number_text(b)}) are private: each "
                                 "is the exact (analytic) Gaussian calibration of its sensitivity.",
            "tex": rf"\frac{{\sigma(2n)}}{{\sigma(n)}} = \frac{{{tex_number(b)}}}{{{tex_number(a)}}} = {tex_number(r)}"}


def solve_sigma_c_private(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    p = {k: v for k, v in only_params(params_of(state), catalog.get_algorithm("pidp-sgd").calibrate).items() if k != "c"}
    ex = catalog.calibrate("pidp-sgd", **p).extras
    yes = bool(ex["sigma_c_paper_private"])
    return {"answer": "yes" if yes else "no",
            "text": f"Theorem 5's σ_c = {number_text(ex['sigma_c_paper'])}; the exact Gaussian composition of the R releases "
                    f"gives a true δ of {number_text(ex['sigma_c_paper_exact_delta'])} at (ε₂, δ₂) = ({number_text(ex['eps2'])}, "
                    f"{number_text(ex['delta2'])}).",
            "tex": rf"\delta(\sigma_c) = {tex_number(ex['sigma_c_paper_exact_delta'])}\ {LE if yes else '>'}\ "
                   rf"\delta_2 = {tex_number(ex['delta2'])}"}


def solve_max_certifiable(state: dict, values: dict | None = None) -> dict:
    from dpviz.labs import canary_audit

    m = canary_audit.evaluation_trials_per_side(state["aud_trials"])
    e = canary_audit.max_certifiable(m, 1e-5)
    p = 1 - 0.025 ** (1 / m)
    return {"answer": e, "text": "With no error on either side, the Clopper–Pearson 95 % upper bound on each error "
                                 "rate is 1 − 0.025^(1/m); the most ε it allows is log((1 − δ − p̄)/p̄).",
            "tex": rf"\bar p = 1-0.025^{{1/{m}}} = {tex_number(p)},\ \epsilon_{{\max}} = \log\frac{{1-10^{{-5}}-\bar p}}"
                   rf"{{\bar p}} = {tex_number(e)}"}


def solve_certifiable_times_10(state: dict, values: dict | None = None) -> dict:
    from dpviz.labs import canary_audit

    m = canary_audit.evaluation_trials_per_side(state["aud_trials"])
    a, b = canary_audit.max_certifiable(m, 1e-5), canary_audit.max_certifiable(10 * m, 1e-5)
    return {"answer": b - a, "text": "p̄ ≈ 3.7/m, so ε_max ≈ log(m/3.7): ten times the trials add about log 10 ≈ 2.3.",
            "tex": rf"\epsilon_{{\max}}(10m) - \epsilon_{{\max}}(m) = {tex_number(b)} - {tex_number(a)} = {tex_number(b - a)}"}


def solve_audit_exceeds(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("eps_lower") is None:
        raise ValueError("run the audit of this step first")
    yes = values["eps_lower"] > values["eps_claimed"]
    return {"answer": "yes" if yes else "no",
            "text": f"The audit certifies ε ≥ {values['eps_lower']:.3g} against the claim ε = "
                    f"{values['eps_claimed']:.3g}" + (": the claim is refuted." if yes else
                                                      ": no contradiction (which does not prove the claim)."),
            "tex": rf"\hat\epsilon_{{\rm lower}} = {tex_number(values['eps_lower'])}\ {'>' if yes else LE}\ "
                   rf"\epsilon = {tex_number(values['eps_claimed'])}"}


def solve_claim_b_shown(state: dict, values: dict | None = None) -> dict:
    if not values or "shown_each" not in values:
        raise ValueError("run the study of this step first")
    yes = bool(values["shown_each"][1])
    return {"answer": "yes" if yes else "no",
            "text": "The study compares DPEGD's and DPGDC2's test AUC at every n of the grid; the finding counts as "
                    "shown only if DPEGD is ahead beyond the noise of the repetitions. The notes above give the "
                    "numbers and the likely reason.",
            "tex": rf"\text{{claim (b) shown: }}{'yes' if yes else 'no'}"}


SOLVERS: dict[str, Callable[..., dict]] = {name[len("solve_"):]: f for name, f in list(globals().items())
                                           if name.startswith("solve_") and callable(f)}


def answer(step: Step, state: dict, values: dict | None = None) -> dict:
    """The answer of the step's question at ``state`` (``values``: the step's live values, for simulation steps):
    ``{"answer", "text", "tex"}``."""
    if step.question is None:
        raise ValueError("this step has no question")
    try:
        return SOLVERS[step.question.solver](state, values)
    except (TypeError, ZeroDivisionError, StopIteration, KeyError) as exc:  # a number the question needs is missing
        raise ValueError("this question has no answer at these settings (a quantity it compares is not defined "
                         "here, e.g. the calibration is not private); try the lesson's own values") from exc


def check_prediction(question: Question, prediction, correct) -> bool:
    """Whether a student's prediction counts as right: within ``rtol`` of a number, equal to a choice."""
    if question.kind == "choice":
        return str(prediction) == str(correct)
    try:
        p = float(prediction)
    except (TypeError, ValueError):
        return False
    c = float(correct)
    return math.isfinite(p) and abs(p - c) <= question.rtol * max(abs(c), 1e-12)
