"""Catalogue-wide checks: structure of every entry, and property tests of every calibration over the valid domain.

The per-paper test files check the numbers by hand; here hypothesis checks the shape of the answer everywhere:
finite positive noise (or a reported infeasibility, or a ValueError for invalid input), sigma non-increasing in eps
and non-decreasing in T.
"""
import inspect
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dpviz.theory import catalog

FIXED_IDS = {
    "dpsgd-rdp", "dpsgd-rdp-pairwise", "dpsgd-output", "pairwise-sgd-output", "dpsgd-pl", "pidp-sgd", "dpgd-sc",
    "dpgd-c", "dp-epoch-gd", "sgd", "pairwise-sgd", "gd", "dpgdc",
}

#: A typical parameter point; call_with_params passes each calibration the names it takes.
BASE = dict(n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1,
            kappa=1.0)

PRIVATE = [a for a in catalog.algorithms() if a.calibrate is not None]


def test_algorithm_ids_are_the_fixed_contract():
    ids = {a.id for a in catalog.algorithms()}
    assert ids <= FIXED_IDS, f"unexpected ids {ids - FIXED_IDS}"


@pytest.mark.parametrize("alg", catalog.algorithms(), ids=lambda a: a.id)
def test_algorithm_entries_are_complete(alg):
    assert alg.setting in ("pointwise", "pairwise")
    assert alg.perturbation in ("gradient", "output", "objective", "none")
    assert set(alg.assumptions) <= set(catalog.ASSUMPTIONS), set(alg.assumptions) - set(catalog.ASSUMPTIONS)
    assert ".txt" not in alg.paper.cite()
    if alg.calibrate is not None:
        params = inspect.signature(alg.calibrate).parameters
        assert all(p.kind is p.KEYWORD_ONLY for p in params.values()), "calibrations are keyword-only"
        assert "eps" in params
        doc = alg.calibrate.__doc__ or ""
        assert f"({alg.paper.key})" in doc and ".txt" not in doc, "docstring must cite the paper by its key"


@pytest.mark.parametrize("thm", catalog.theorems(), ids=lambda t: t.id)
def test_theorem_entries_are_complete(thm):
    catalog.get_algorithm(thm.algorithm)
    assert set(thm.assumptions) <= set(catalog.ASSUMPTIONS), set(thm.assumptions) - set(catalog.ASSUMPTIONS)
    assert thm.id.startswith(thm.paper.key + "-")
    doc = thm.bound.__doc__ or ""
    assert f"({thm.paper.key})" in doc and ".txt" not in doc, "bound docstring must cite the paper by its key"
    assert thm.form in ("rate", "explicit") and thm.risk
    assert all(p.kind is p.KEYWORD_ONLY for p in inspect.signature(thm.bound).parameters.values())


@pytest.mark.parametrize("thm", catalog.theorems(), ids=lambda t: t.id)
def test_every_theorem_evaluates_at_a_typical_point(thm):
    res = catalog.bound(thm.id, **BASE)
    assert res.terms, "a bound has at least one named term"
    for term in res.terms:
        assert math.isfinite(term.value) and term.value >= 0, term
        assert math.isfinite(term.n_exp) and math.isfinite(term.eps_exp)
    assert res.total == pytest.approx(sum(t.value for t in res.terms), rel=1e-9) or res.total >= max(
        t.value for t in res.terms)


@pytest.mark.parametrize("table", catalog.tables(), ids=lambda t: t.id)
def test_tables_evaluate(table):
    rows = table.evaluate(**BASE)
    assert rows
    for row in rows:
        v = row["rate value"]
        assert v is None or (math.isfinite(v) and v > 0)


def noise_level(cal):
    """The noise magnitude of a calibration (Gaussian sigma, Laplace scale, or the largest per-epoch sigma)."""
    if cal.sigma is not None:
        return cal.sigma
    if cal.laplace_scale is not None:
        return cal.laplace_scale
    if cal.sigma_schedule:
        return max(cal.sigma_schedule)
    return None


def _cal(alg, **over):
    return catalog.call_with_params(alg.calibrate, {**BASE, **over})


@pytest.mark.parametrize("alg", PRIVATE, ids=lambda a: a.id)
def test_typical_point_gives_finite_positive_noise(alg):
    cal = _cal(alg)
    assert cal.id == alg.id
    if cal.feasible:
        level = noise_level(cal)
        assert level is not None and math.isfinite(level) and level > 0
    else:
        assert cal.reason, "an infeasible calibration must say why"


@pytest.mark.parametrize("alg", PRIVATE, ids=lambda a: a.id)
@pytest.mark.parametrize("bad", [dict(eps=0.0), dict(eps=-1.0), dict(delta=1.0), dict(delta=-0.5), dict(n=1),
                                 dict(eps=float("nan"))])
def test_invalid_inputs_raise_value_error(alg, bad):
    with pytest.raises(ValueError):
        _cal(alg, **bad)


PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("alg", PRIVATE, ids=lambda a: a.id)
@PROPERTY
@given(
    eps=st.floats(0.05, 10.0),
    ratio=st.floats(1.05, 4.0),
    n=st.integers(100, 100_000),
    delta_exp=st.floats(3.0, 10.0),
)
def test_sigma_non_increasing_in_eps(alg, eps, ratio, n, delta_exp):
    params = dict(n=n, delta=10.0 ** -delta_exp, T=n)
    try:
        lo = _cal(alg, eps=eps, **params)
        hi = _cal(alg, eps=eps * ratio, **params)
    except ValueError:
        return  # a documented precondition of the paper is violated: the answer is a clear error
    if lo.feasible:
        # more budget can only relax the constraints
        assert hi.feasible, (lo, hi)
    assume(lo.feasible and hi.feasible)
    a, b = noise_level(lo), noise_level(hi)
    assume(a is not None and b is not None)
    assert math.isfinite(a) and math.isfinite(b) and a > 0 and b > 0
    assert b <= a * (1 + 1e-6), (a, b)


TAKES_T = [a for a in PRIVATE if "T" in inspect.signature(a.calibrate).parameters]


@pytest.mark.parametrize("alg", TAKES_T, ids=lambda a: a.id)
@PROPERTY
@given(T=st.integers(10, 10_000), ratio=st.floats(1.1, 10.0), eps=st.floats(0.1, 10.0))
def test_sigma_non_decreasing_in_T(alg, T, ratio, eps):
    try:
        short = _cal(alg, T=T, eps=eps)
        long = _cal(alg, T=int(T * ratio), eps=eps)
    except ValueError:
        return
    assume(short.feasible and long.feasible)
    a, b = noise_level(short), noise_level(long)
    assume(a is not None and b is not None)
    assert b >= a * (1 - 1e-6), (a, b)


@pytest.mark.parametrize("thm", catalog.theorems(), ids=lambda t: t.id)
def test_theorem_form_matches_the_bound_it_returns(thm):
    """Theorem.form says whether bound() is a rate or explicit; the BoundResult agrees, and carries the risk."""
    try:
        res = catalog.bound(thm.id, **BASE)
    except ValueError:
        pytest.skip("not defined at the typical point")
    assert res.form == thm.form and res.risk == thm.risk
    assert res.to_dict()["form"] == thm.form and res.to_dict()["risk"] == thm.risk
    if thm.explicit_bound is not None:
        try:
            ex = catalog.bound(thm.id, explicit=True, **BASE)
        except ValueError:
            return
        assert ex.form == "explicit"


def test_no_seed_file_names_cited_in_the_library():
    """Citations are 'authors (key), place' with the references of docs/papers.md: no file name of a paper's text
    (nor the field that held it, nor the developers' folder of the texts) in the code, the docs or the tests."""
    import pathlib
    import re

    root = pathlib.Path(catalog.__file__).parents[2]  # the repository (the catalogue is dpviz/theory/catalog.py)
    pat = re.compile(r"_[0-9a-f]{16}\.txt|seed_file|shared/seeds")
    files = [*(root / "dpviz").rglob("*.py"), *(root / "dpviz_ui").rglob("*.py"), *root.glob("*.py"), *(root / "pages").glob("*.py"), *root.glob("*.md"),
             *(root / "docs").glob("*.md")]
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not pat.search(line), f"{path.name}: {line.strip()}"
    assert not hasattr(catalog.get_paper("kang-pidp"), "seed_file")


def test_every_theorem_has_a_structured_risk():
    # issue 9: quantity + guarantee type, never a bare string compared exactly
    for thm in catalog.theorems():
        r = thm.risk
        assert isinstance(r, catalog.Risk) and r.quantity and r.guarantee in catalog.GUARANTEES
        assert str(r).startswith(r.quantity) and catalog.GUARANTEES[r.guarantee] in str(r)
        assert thm.summary()["risk_quantity"] == r.quantity and thm.summary()["risk_guarantee"] == r.guarantee
    by_id = {t.id: t.risk for t in catalog.theorems()}
    # the papers' own wording: E[...] (Wang, Lei, Ying & Zhou Theorems 3-7; Kang et al. Theorems 1, 3; Xue et al.),
    # "with probability 1 - gamma" (Yang et al. Theorems 2-5, Corollaries; Wang, Lei, Ying & Zhang Theorems 9-12)
    assert by_id["wang-lownoise-thm3a"].guarantee == "expectation"
    assert by_id["yang-pairwise-thm2"].guarantee == "high-probability"
    assert by_id["wang-nonsmooth-thm9"].guarantee == "high-probability"
    assert by_id["kang-pidp-thm1"].quantity == "excess empirical risk (optimality gap)"
    assert by_id["kang-pidp-thm3"].quantity == by_id["yang-pairwise-thm2"].quantity == "excess population risk"
    assert by_id["kang-pidp-thm4"].guarantee == "deterministic"


def test_risk_parse_and_comparison():
    r = catalog.Risk.parse("excess population risk (with probability 1 - gamma)")
    assert (r.quantity, r.guarantee) == ("excess population risk", "high-probability")
    r = catalog.Risk.parse("expected excess population risk")
    assert (r.quantity, r.guarantee) == ("excess population risk", "expectation")
    assert catalog.Risk.parse(r) is r
    with pytest.raises(ValueError):
        catalog.Risk("excess population risk", "almost surely")
    pop_e = catalog.get_theorem("wang-lownoise-thm3a").risk
    pop_p = catalog.get_theorem("yang-pairwise-thm2").risk
    emp = catalog.get_theorem("kang-pidp-thm1").risk
    assert catalog.risk_comparison([pop_e, pop_e]) == []
    # same quantity, different guarantee: only a note
    assert [lvl for lvl, _ in catalog.risk_comparison([pop_e, pop_p])] == ["note"]
    # different quantities: flagged
    assert [lvl for lvl, _ in catalog.risk_comparison([pop_e, emp])] == ["flag"]
    res = catalog.bound("yang-pairwise-thm2", **BASE)
    d = res.to_dict()
    assert d["risk_quantity"] == "excess population risk" and d["risk_guarantee"] == "high-probability"
    import json
    import pickle

    assert json.loads(json.dumps(d))["risk"] == str(pop_p)
    assert pickle.loads(pickle.dumps(pop_p)).guarantee == "high-probability"


#: BASE plus the parameters some explicit bounds and PIDP-SGD need
FORMULA_POINT = {**BASE, "Fstar": 0.1, "zeta": 0.1}


def test_no_formula_contains_a_control_character():
    """issue 19: LaTeX in non-raw strings turned \\frac into a form feed and \\text / \\tau / \\theta into a tab."""
    import re

    found = catalog.formulas(FORMULA_POINT)
    assert len(found) > len(catalog.formulas()) > 100
    bad = [(where, tex) for where, tex in found if re.search(r"[\x00-\x1f\x7f]", tex)]
    assert not bad, bad
    # the two formulas that had them (Kang et al. Theorems 2 and 4, Remark 3; Xue et al. Theorem 4) as intended
    assert r"\frac{1}{\zeta^2n^2}" in catalog.get_theorem("kang-pidp-thm4").statement
    assert r"\inf_{\tau>0}" in catalog.get_theorem("kang-pidp-thm2").statement
    thm4 = catalog.get_theorem("xue-pairwise-thm4")
    assert r"+\frac{G^2\eta T}{n}" in thm4.statement and r"\text{free (no schedule given)}" in thm4.schedule


def test_library_sources_have_no_control_characters():
    """No tab, form feed or other control character in the library's source (where a LaTeX escape was lost)."""
    import pathlib
    import re

    root = pathlib.Path(catalog.__file__).parents[1]  # dpviz/ (the catalogue is dpviz/theory/catalog.py)
    for path in root.rglob("*.py"):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", line), f"{path.name}:{i}: {line.strip()!r}"


def test_catalogue_strings_with_a_backslash_are_raw():
    """Every string literal of the catalogue (dpviz/theory/catalog.py, dpviz/theory/papers/*.py) that contains a backslash is a raw
    string, so LaTeX such as \\frac or \\text keeps its backslash."""
    import pathlib
    import re
    import tokenize

    root = pathlib.Path(catalog.__file__).parent
    for path in [root / "catalog.py", *sorted((root / "papers").rglob("*.py"))]:
        with path.open("rb") as f:
            for tok in tokenize.tokenize(f.readline):
                if tok.type != tokenize.STRING or "\\" not in tok.string:
                    continue
                prefix = re.match(r"[A-Za-z]*", tok.string).group(0).lower()
                assert "r" in prefix, f"{path.name}:{tok.start[0]}: non-raw string with a backslash {tok.string[:60]!r}"
