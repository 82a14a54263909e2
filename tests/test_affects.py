"""The "*" of the sidebar marks only the inputs that change the numbers shown (issue 20).

The catalogue declares them once: ``Algorithm.affects`` (the calibration's numbers), ``Theorem.affects`` (where a
bound function takes inputs that change no number of the bound; otherwise every input it takes) and
``Theorem.schedule_affects`` (the η, T and gradient complexity Calibrate takes from the theorem); a loss says which of
κ, R and q set each of its constants (``Loss.constant_inputs``).  Here every declaration is probed: at several points
(typical values and edges: small and large n, tiny and large ε, α = 0 and 1, infeasible settings), each input is moved
up and down; a declared input must change at least one number at some point, and an undeclared input none at any
point.  "The numbers" are those the pages show: σ or the Laplace scale, feasibility, β and its interval, the T and η
a calibration returns (an input merely echoed back does not count), the paper's σ and the contribution noise, the
smallest private ε of the fix, the gradient count; a bound's total, terms, η, T and gradient complexity, and the
explicit-constant bound at the theorem's own schedule.
"""

import math

import pytest

from dpviz.theory import catalog
from dpviz.engine import losses, simulate as S

#: the dashboard's sidebar inputs (δ as a number; the sidebar shows log10 δ); F(w*) of the explicit bounds is passed
#: as Bounds passes it, not probed
SIDEBAR = ("n", "d", "eps", "delta", "T", "eta", "G", "L", "M", "R", "alpha", "mu", "c")
POINTS = [
    dict(n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1, c=1.0, Fstar=0.1),
    dict(n=50, d=3, eps=0.3, delta=1 / 2500, T=50, eta=0.1, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.0, mu=0.5, c=1.0, Fstar=0.0),
    dict(n=100000, d=100, eps=8.0, delta=1e-10, T=100000, eta=0.001, G=2.0, L=2.0, M=0.5, R=3.0, alpha=1.0, mu=0.01,
         c=2.0, Fstar=1.0),
    dict(n=10000, d=20, eps=0.05, delta=1e-8, T=10000, eta=0.05, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.3, mu=1.0,
         c=1.0, Fstar=0.1),
    dict(n=10000, d=10, eps=4.0, delta=1e-8, T=10000, eta=0.02, G=1.5, L=0.8, M=0.7, R=2.0, alpha=0.6, mu=0.2,
         c=1.0, Fstar=0.2),
]
#: the extras Calibrate shows (pages/calibrate.py main_numbers)
SHOWN_EXTRAS = ("accountant_sigma", "sigma_paper", "paper_sigma_private", "sigma_c_paper", "sigma_c", "eps2",
                "delta2", "sigma_c_paper_exact_delta", "sigma_c_paper_private", "eps_min")


def moved(name: str, x, up: bool):
    """``x`` moved up (or down) by about a third, within the input's range."""
    if name == "alpha":
        return x + 0.3 if x <= 0.7 else x - 0.3
    if name == "delta":
        return x * (0.1 if up else 0.5)
    f = 1.37 if up else 0.73
    if name in ("n", "T", "d"):
        return max(2 if name == "n" else 1, int(round(x * f)))
    return x * f


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-12 * max(abs(a), abs(b)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def calibration_numbers(alg, p: dict):
    """The numbers Calibrate shows for ``alg`` at ``p`` (manual schedule), or None where the inputs are refused."""
    takes = catalog.parameters_of(alg.calibrate)
    q = {k: v for k, v in p.items() if k in takes}
    if "accountant_extra" in takes:  # the accountant's σ depends on n, ε, δ, T, G only, all of which change σ too
        q["accountant_extra"] = False
    try:
        cal = catalog.calibrate(alg.id, **q)
    except ValueError:
        return None
    ex = cal.extras or {}
    out = dict(sigma=cal.sigma, laplace=cal.laplace_scale, schedule=cal.sigma_schedule, beta=cal.beta,
               interval=cal.beta_interval, half=cal.beta_half, feasible=cal.feasible,
               T=cal.T if cal.T is not None and cal.T != p["T"] else "echo",
               eta=cal.eta if cal.eta is not None and cal.eta != p["eta"] else "echo",
               readings=[(r["sigma"], r["private"]) for r in ex.get("sigma_readings") or []],
               **{k: ex.get(k) for k in SHOWN_EXTRAS})
    if alg.id in S.SPECS:  # the "gradient evaluations" metric
        out["gradients"] = S.gradient_evaluations(alg.id, n=p["n"], T=int(cal.T if cal.T is not None else p["T"]))
    return out


def bound_numbers(thm, p: dict):
    """The numbers Bounds shows for ``thm`` at ``p``: its bound and, where the paper gives them, its explicit-constant
    bound (at the theorem's own schedule: T and η only if the main bound takes them, as pages/bounds.py does)."""
    main = catalog.parameters_of(thm.bound)
    out = {}
    try:
        b = catalog.bound(thm.id, **{k: v for k, v in p.items() if k in main})
        out.update(total=b.total, terms=[t.value for t in b.terms], T=b.T, eta=b.eta, gc=b.gradient_complexity)
    except ValueError:  # refused here: no numbers to compare
        pass
    if thm.explicit_bound is not None:
        takes = set(main) | set(catalog.parameters_of(thm.explicit_bound))
        try:
            e = catalog.bound(thm.id, explicit=True, **{k: v for k, v in p.items()
                                                        if k in takes and (k not in ("T", "eta") or k in main)})
            out.update(explicit=e.total, explicit_terms=[t.value for t in e.terms], explicit_T=e.T,
                       explicit_eta=e.eta)
        except ValueError:
            pass
    return out


def schedule_numbers(thm, p: dict):
    """The schedule Calibrate takes from ``thm`` (pages/calibrate.py): T rounded to a whole number, η, the gradient
    complexity, or None where it is not defined."""
    try:
        b = catalog.bound(thm.id, **{k: v for k, v in p.items() if k in catalog.parameters_of(thm.bound)})
    except ValueError:
        return None
    return dict(T=max(1, int(round(b.T))) if b.T is not None else None, eta=b.eta, gc=b.gradient_complexity)


def changing(numbers, names) -> set:
    """The inputs among ``names`` whose move (up or down) changes ``numbers(p)`` at some point of :data:`POINTS`.

    Only numbers computed on both sides are compared: an input whose move only makes the inputs refused (a range
    check, e.g. L >= μ) changes no number, it is merely validated."""
    found = set()
    for p in POINTS:
        here = numbers(p)
        if not here:
            continue
        for name in names:
            if name in found:
                continue
            for up in (True, False):
                there = numbers({**p, name: moved(name, p[name], up)})
                if there and any(not _same(here[k], there[k]) for k in here.keys() & there.keys()):
                    found.add(name)
                    break
    return found


CALIBRATED = [a for a in catalog.algorithms() if a.calibrate is not None]


@pytest.mark.parametrize("alg", CALIBRATED, ids=lambda a: a.id)
def test_algorithm_declares_exactly_the_inputs_that_change_its_numbers(alg):
    takes = [k for k in SIDEBAR if k in catalog.parameters_of(alg.calibrate)]
    assert alg.affects, f"{alg.id} declares no affects"
    assert set(alg.affects) <= set(takes), f"{alg.id} declares inputs it does not take"
    assert changing(lambda p: calibration_numbers(alg, p), takes) == set(alg.affects)


def test_dpsgd_sigma_is_starred_only_for_n_eps_delta_T_G():
    """The case of issue 20: DP-SGD (Wang, Lei, Ying & Zhou) stars neither d, η, L, M, R nor α."""
    assert set(catalog.get_algorithm("dpsgd-rdp").affects) == {"n", "eps", "delta", "T", "G"}


@pytest.mark.parametrize("thm", [t for t in catalog.theorems() if t.affects is not None], ids=lambda t: t.id)
def test_theorem_declares_exactly_the_inputs_that_change_its_bound(thm):
    takes = set(catalog.parameters_of(thm.bound))
    if thm.explicit_bound is not None:
        takes |= set(catalog.parameters_of(thm.explicit_bound))
    names = [k for k in SIDEBAR if k in takes]
    assert changing(lambda p: bound_numbers(thm, p), names) == set(thm.affects)


@pytest.mark.parametrize("thm", [t for t in catalog.theorems() if t.affects is None], ids=lambda t: t.id)
def test_undeclared_theorem_uses_every_input_it_takes(thm):
    names = [k for k in SIDEBAR if k in thm.inputs_affecting()]
    assert changing(lambda p: bound_numbers(thm, p), names) == set(names)


SCHEDULES = [t for t in catalog.theorems() if catalog.get_algorithm(t.algorithm).calibrate is not None]


@pytest.mark.parametrize("thm", SCHEDULES, ids=lambda t: t.id)
def test_theorem_declares_exactly_the_inputs_that_change_its_schedule(thm):
    names = [k for k in SIDEBAR if k in catalog.parameters_of(thm.bound)]
    assert changing(lambda p: schedule_numbers(thm, p), names) == set(thm.schedule_affects)


LOSS_POINTS = [dict(kappa=1.0, R=1.0, q=1.5), dict(kappa=0.3, R=0.0, q=1.2), dict(kappa=2.0, R=5.0, q=2.0)]


@pytest.mark.parametrize("loss_id", losses.loss_ids())
@pytest.mark.parametrize("l2", [0.0, 0.01])
def test_loss_declares_the_inputs_that_set_each_constant(loss_id, l2):
    takes_q = losses.get_loss(loss_id).q is not None

    def make(q):
        loss = losses.get_loss(loss_id, q=q) if takes_q else losses.get_loss(loss_id)
        return losses.get_loss(loss_id, **({"q": q} if takes_q else {}), l2=l2) if l2 else loss

    declared = make(1.5).constant_inputs()
    for const in ("G", "L", "M", "alpha"):
        found = set()
        for pt in LOSS_POINTS:
            here = make(pt["q"]).constants(kappa=pt["kappa"], R=pt["R"])[const]
            for name in ("kappa", "R") + (("q",) if takes_q else ()):
                for x in ({"kappa": (pt["kappa"] * 1.37, pt["kappa"] * 0.73), "R": (pt["R"] * 1.37 + 0.5, pt["R"] * 0.73),
                           "q": (1.0 + (pt["q"] - 1.0) * 0.73, min(2.0, pt["q"] * 1.1))}[name]):
                    moved_pt = {**pt, name: x}
                    there = make(moved_pt["q"]).constants(kappa=moved_pt["kappa"], R=moved_pt["R"])[const]
                    if not _same(float(here), float(there)):
                        found.add(name)
        assert found == set(declared[const]), (loss_id, l2, const)
