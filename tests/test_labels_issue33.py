"""Issue 33, "Labels that are not quite true": each label checked against the paper by hand.

Every expected number below is computed from the paper's printed formulas with the arithmetic written out here.
"""

from __future__ import annotations

import math

import pytest

from dpviz.theory import catalog

E = math.e
LN = math.log
SQ = math.sqrt


# ----------------------------------------------------------------------------------------------------------------
# 1. Yang, Lei, Lyu & Ying (yang-pairwise), Theorems 2 and 5: the two readings of the sampling term


def _c1(G, gamma):
    # c_1 = 100 sqrt(6) e^{3/2} G max{1, G} ln(6e/gamma)  (Theorem 2)
    return 100.0 * SQ(6.0) * E**1.5 * G * max(1.0, G) * LN(6.0 * E / gamma)


def test_yang_thm2_explicit_both_readings_by_hand():
    n, T, eta, gamma = 1000, 10_000, 1e-3, 0.05
    res = catalog.bound("yang-pairwise-thm2", explicit=True, n=n, T=T, eta=eta, G=1.0, R=1.0)
    c1 = _c1(1.0, gamma)
    cl = math.ceil(LN(1000))  # 7
    assert cl == 7
    # proof's eq. (9): sqrt(T + 3 T^2 ln^2(eT) ln^2/n^2) <= sqrt(T) + sqrt(3) T ln(eT) ln / n
    used = c1 * eta * cl * SQ(3) * T * LN(E * T) * LN(6 / gamma) / n
    printed = c1 * eta * cl * SQ(3 * T * LN(E * T) * LN(6 / gamma)) / n  # Theorem 2 as printed
    assert used == pytest.approx(37654, rel=1e-4)
    assert printed == pytest.approx(53.86, rel=1e-3)
    t = {x.name: x for x in res.terms}
    assert t["stability-sampling"].value == pytest.approx(used, rel=1e-12)
    r = {x["label"]: x["value"] for x in res.extras["sampling_readings"]}
    assert r["from the proof, eq. (9) (used)"] == pytest.approx(used, rel=1e-12)
    assert r["as printed in Theorem 2"] == pytest.approx(printed, rel=1e-12)
    note = " ".join(res.notes)
    assert "3.765e+04" in note and "53.86" in note and "eq. (9)" in note and "Yang, Lei, Lyu & Ying" in note


def test_yang_thm5_explicit_printed_reading_is_sqrt3T():
    n, d, eps, delta = 1000, 10, 1.0, 1e-5
    res = catalog.bound("yang-pairwise-thm5", explicit=True, n=n, d=d, eps=eps, delta=delta, G=1.0, R=1.0)
    T, eta = n * n, n**-1.5
    c1 = _c1(1.0, 0.05)
    # Theorem 5 prints sqrt(3T) ln(eT) ln(2/delta) / n
    printed = c1 * eta * 7 * SQ(3 * T) * LN(E * T) * LN(2 / delta) / n
    used = c1 * eta * 7 * SQ(3) * T * LN(E * T) * LN(2 / delta) / n
    r = {x["label"]: x["value"] for x in res.extras["sampling_readings"]}
    assert r["as printed in Theorem 5"] == pytest.approx(printed, rel=1e-12)
    assert r["from the proof, eq. (9) (used)"] == pytest.approx(used, rel=1e-12)
    assert used / printed == pytest.approx(SQ(T), rel=1e-12)


@pytest.mark.parametrize("tid,extra", [("yang-pairwise-thm2", {}),
                                        ("yang-pairwise-thm5", {"d": 10, "eps": 1.0, "delta": 1e-5})])
def test_yang_rate_form_labels_show_ln_6e_over_gamma(tid, extra):
    n, gamma = 1000, 0.05
    res = catalog.bound(tid, n=n, gamma=gamma, **extra)
    t = {x.name: x for x in res.terms}
    T, eta = n * n, n**-1.5
    # rate form: c_1 = c ln(6e/gamma) with c = 1, kept in the value ...
    assert t["stability"].value == pytest.approx(LN(6 * E / gamma) * eta * 7 * SQ(T), rel=1e-12)
    # ... and shown in the label
    for name in ("stability", "stability-sampling"):
        assert r"\ln\frac{6e}{\gamma}" in t[name].latex
    # the rate form's other labels are the values computed (1/sqrt(T), 1/(T eta) + eta), not the explicit ones
    assert t["generalisation"].value == pytest.approx(1 / SQ(T)) and t["generalisation"].latex == r"\frac{1}{\sqrt T}"
    assert t["optimisation"].value == pytest.approx(1 / (T * eta) + eta)
    assert "D^2" not in t["optimisation"].latex
    assert any("ln(6e/gamma)" in x for x in res.notes)


# ----------------------------------------------------------------------------------------------------------------
# 2. the formula field is the formula that produced the released sigma


def test_yang_sigma_rule_printed_formula_reproduces_sigma():
    # Yang, Lei, Lyu & Ying, eq. (5) as printed: sigma^2 = 8 eta^2 G^2 ln(2.5/delta)/eps^2 (T + 3T^2 ln^2(eT) ln^2(2/delta)/n^2)
    n, eps, delta, T, eta, G = 100, 1.0, 1e-4, 10_000, 1e-3, 1.0
    a = LN(2 / delta)
    bracket = T + 3 * T**2 * LN(E * T) ** 2 * a**2 / n**2
    printed = SQ(8 * eta**2 * G**2 * LN(2.5 / delta) / eps**2 * bracket)
    proof = SQ(8 * E * eta**2 * G**2 * LN(2.5 / delta) / eps**2 * bracket)
    cal = catalog.calibrate("pairwise-sgd-output", n=n, eps=eps, delta=delta, T=T, eta=eta, G=G, sigma_rule="printed")
    assert cal.sigma == pytest.approx(printed, rel=1e-12)
    assert cal.formula.startswith(r"\sigma^2=\frac{8\,\eta^2G^2")  # no factor e
    assert "8e" not in cal.formula
    assert r"\frac{8\cdot0.001^2" in cal.formula_numbers
    cal = catalog.calibrate("pairwise-sgd-output", n=n, eps=eps, delta=delta, T=T, eta=eta, G=G, sigma_rule="proof")
    assert cal.sigma == pytest.approx(proof, rel=1e-12)
    assert "8e" in cal.formula
    cal = catalog.calibrate("pairwise-sgd-output", n=n, eps=eps, delta=delta, T=T, eta=eta, G=G)
    # the private sigma is the exact-Gaussian one: its formula names that rule and Delta_T, not eq. (5)
    assert r"\delta_{\rm exact}" in cal.formula and r"\Delta_T^2=4e" in cal.formula
    assert cal.sigma < proof


def test_xue_private_rule_formula_names_the_rule():
    cal = catalog.calibrate("dpgd-sc", n=1000, eps=1.0, delta=1e-5, G=1.0, mu=1.0)
    # printed sigma = 8 sqrt(2 ln(1.25/delta)) G/(mu n eps) = 8 * 4.8454 / 1000
    assert cal.extras["sigma_paper"] == pytest.approx(8 * SQ(2 * LN(1.25e5)) / 1000, rel=1e-12)
    assert r"\delta_{\rm exact}" in cal.formula
    cal = catalog.calibrate("dpgd-sc", n=1000, eps=1.0, delta=1e-5, G=1.0, mu=1.0, sigma_rule="printed")
    assert cal.sigma == pytest.approx(8 * SQ(2 * LN(1.25e5)) / 1000, rel=1e-12)
    assert r"\delta_{\rm exact}" not in cal.formula


def test_wang_nonsmooth_output_formula_is_the_one_that_produced_sigma():
    # Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1 with Lemma 2: n = T = 1000, eta = 0.01, alpha = 1/2,
    # M = L = R = 1, eps = 1, delta = 1e-5.  gamma = delta/2 = 5e-6; c_{gamma,T} = 3 n log(n/gamma)/T = 3 log(2e8)
    # = 57.3415 (> its square root); g = M + L R^alpha = 2; sampling term 4 g^2 eta^2 (1 + k) k with k = 1 + c
    from scipy.optimize import brentq
    from scipy.stats import norm

    p = dict(n=1000, eps=1.0, delta=1e-5, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5)
    cal = catalog.calibrate("dpsgd-output", **p)
    c = 3.0 * LN(1000 / 5e-6)
    k = 1.0 + c
    sampling = 4.0 * 4.0 * 1e-4 * (1.0 + k) * k
    assert cal.extras["c_gamma_T"] == pytest.approx(c, rel=1e-12)
    assert cal.extras["sampling_term"] == pytest.approx(sampling, rel=1e-12)
    delta_s = SQ(E * (cal.extras["c_alpha_2_sq_T_eta_pow"] + sampling))
    # printed sigma (Lemma 2): sqrt(2 log(2.5/delta)) Delta / eps
    assert cal.extras["sigma_paper"] == pytest.approx(SQ(2 * LN(2.5e5)) * delta_s, rel=1e-12)

    # released (sigma_rule = "private"): the smallest sigma whose exact Gaussian delta (Balle & Wang 2018, Thm 8)
    # is <= delta/2, solved here with scipy
    def exact_delta(sig):
        a, b = delta_s / (2 * sig), sig / delta_s
        return norm.cdf(a - b) - E * norm.cdf(-a - b)

    want = brentq(lambda sg: exact_delta(sg) - 5e-6, 1.0, 100.0, xtol=1e-12)
    assert cal.sigma == pytest.approx(want, rel=1e-6)
    # the formula and its numbers are those of the released sigma, not only the printed one
    assert r"\text{released}:\ \sigma_{\rm private}=\min" in cal.formula
    assert cal.formula_numbers.endswith(rf"\sigma_{{\rm private}}={want:.4g}\ (\text{{released}})")
    printed = catalog.calibrate("dpsgd-output", **p, sigma_rule="printed")
    assert printed.sigma == pytest.approx(SQ(2 * LN(2.5e5)) * delta_s, rel=1e-12)
    assert "released" not in printed.formula and printed.formula_numbers.endswith(rf"\sigma={printed.sigma:.4g}")


# ----------------------------------------------------------------------------------------------------------------
# 4. "rounded up" schedules are exact integers


def test_wang_lownoise_thm4a_T_is_n_squared_exactly():
    # Wang, Lei, Ying & Zhou, Theorem 4(a), alpha = 0 < 1/2: T = ceil(n^((2 - 0)/(1 + 0))) = n^2 = 10^12 exactly
    res = catalog.bound("wang-lownoise-thm4a", n=10**6, alpha=0.0, eps=1.0, delta=1e-5, d=10, G=1.0, L=1.0)
    assert res.T == 10**12
    res = catalog.bound("wang-lownoise-thm4a", n=10**6, alpha=0.0, eps=1.0, delta=1e-5, d=10, G=1.0, L=1.0,
                        R=1.0, Fstar=0.0, M=1.0, explicit=True)
    assert res.T == 10**12


@pytest.mark.parametrize("tid", ["wang-lownoise-thm4b", "wang-lownoise-thm7b"])
def test_wang_lownoise_lownoise_T_exact(tid):
    # T = ceil(n^(2/(1+alpha))): alpha = 0.5 gives n^(4/3) = 10^8 at n = 10^6; alpha = 0.25 gives n^(8/5) = 10^9.6
    kw = dict(eps=1.0, delta=1e-5, d=10, G=1.0, L=1.0)
    assert catalog.bound(tid, n=10**6, alpha=0.5, **kw).T == 10**8
    assert catalog.bound(tid, n=10**6, alpha=0.0, **kw).T == 10**12
    # 10^9.6 = 3 981 071 705.53...: the smallest integer T with T^5 >= 10^48 is 3 981 071 706
    T = catalog.bound(tid, n=10**6, alpha=0.25, **kw).T
    assert T == 3_981_071_706
    assert T**5 >= 10**48 > (T - 1) ** 5


def test_ceil_pow_exact_at_integers_and_between():
    from fractions import Fraction

    from dpviz.theory.papers._common import ceil_pow
    assert ceil_pow(10**6, 2) == 10**12
    assert ceil_pow(1000, Fraction(4, 3)) == 10_000          # 1000^(4/3) = 10^4 (float: 9999.999999999995)
    assert ceil_pow(1001, Fraction(4, 3)) == 10_014          # 1001^(4/3) = 10013.3355...
    assert ceil_pow(10**9, 3) == 10**27                       # beyond float precision
    assert ceil_pow(8, Fraction(1, 3)) == 2 and ceil_pow(9, Fraction(1, 3)) == 3
    assert ceil_pow(5, 0) == 1
    with pytest.raises(ValueError):
        ceil_pow(0, 2)


def test_yang_thm3_T_and_nonsmooth_T_exact():
    # Yang, Lei, Lyu & Ying, Theorem 3: T = ceil(n^(4/3)); n = 10^6 -> 10^8 exactly, n = 1000 -> 10^4
    assert catalog.bound("yang-pairwise-thm3", n=10**6).T == 10**8
    assert catalog.bound("yang-pairwise-thm3", n=1000).T == 10**4
    # Wang, Lei, Ying & Zhang, Theorem 10: T = ceil(n^((2 - alpha)/(1 + alpha))), alpha = 0 -> n^2
    res = catalog.bound("wang-nonsmooth-thm10", n=10**6, d=10, eps=1.0, delta=1e-5, alpha=0.0)
    assert res.T == 10**12
    # Theorem 9: T = ceil(n^((6 - 3a - a^2)/((1+a)(3+a)))), a = 0: n^2 -> 10^12 at n = 10^6
    res = catalog.bound("wang-nonsmooth-thm9", n=10**6, d=10, eps=1.0, delta=1e-5, alpha=0.0)
    assert res.T == 10**12


def test_xue_epoch_count_exact_floor_log2():
    from dpviz.theory.papers.xue_pairwise.calibration import epoch_sizes
    assert len(epoch_sizes(2**20)) == 20
    assert len(epoch_sizes(2**20 - 1)) == 19
    n = 2**53 - 1  # math.log2 rounds this to 53.0
    assert len(epoch_sizes(n)) == 52


# ----------------------------------------------------------------------------------------------------------------
# 5. Kang, Li, Liu & Wang: Remark 4 / Theorem 7's T, Theorem 6 at k = n


def test_kang_remark4_and_thm7_note_their_T():
    # Remark 4: "Combining the result given in Theorem 1, ... taking T = O(log(n))"; Theorem 7: T = O(log(n)).
    # The rate forms take T = ceil(ln 1000) = ceil(6.9078) = 7; Theorem 1 with mu/L = 0.1:
    # ceil(ln 1000 / -ln(0.9)) = ceil(6.9078 / 0.10536) = ceil(65.56) = 66.
    assert math.ceil(LN(1000)) == 7 and math.ceil(LN(1000) / -LN(0.9)) == 66
    for tid in ("kang-pidp-remark4", "kang-pidp-thm7"):
        res = catalog.bound(tid, n=1000, d=10, eps=1.0)
        assert res.T == 7
        note = next(x for x in res.notes if x.startswith("T = ceil(ln n) = 7"))
        assert "O(log(n))" in note and "66 at n = 1000" in note and "Theorem 1" in note


def test_kang_thm6_k_equals_n_rate_not_value():
    n, d, eps, delta = 1000, 10, 1.0, 1e-5
    res = catalog.bound("kang-pidp-thm6", n=n, d=d, eps=eps, delta=delta)
    # Theorem 6 at k = n: k m G^2 log(1/delta1) log n / (n^3 eps1^2), eps1 = 0.75, delta1 = 7.5e-6
    thm6 = n * d * LN(1 / 7.5e-6) * LN(n) / (n**3 * 0.75**2)
    # Theorem 1: m G^2 log(1/delta) log n / (n^2 eps^2)
    thm1 = d * LN(1e5) * LN(n) / n**2
    assert thm6 == pytest.approx(1.449e-3, rel=1e-3) and thm1 == pytest.approx(7.953e-4, rel=1e-3)
    assert res.total == pytest.approx(thm6, rel=1e-12)
    assert catalog.bound("kang-pidp-thm1", n=n, d=d, eps=eps, delta=delta).total == pytest.approx(thm1, rel=1e-12)
    note = res.notes[0]
    assert "rate" in note and "not its value" in note and "0.001449" in note and "0.0007953" in note


# ----------------------------------------------------------------------------------------------------------------
# 3. reproductions report the eps under the paper's own relation (Definition 1: replace-one, sensitivity 2G)


def _dp_accounting_wor_replace_one(z, n, T, delta):
    """dp_accounting called directly: T x (1 of n drawn without replacement) Gaussian, replace-one, RDP."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.SampledWithoutReplacementDpEvent(n, 1, dp_accounting.GaussianDpEvent(z)), T))
    return acc.get_epsilon(delta)


def test_paper_relation_privacy_against_dp_accounting():
    from dpviz.studies import reproduce as R
    # Fig. 1 at target eps = 0.5: n = 5000, T = 1000, delta = 1/n^2 = 4e-8, G = 1.5; the paper's rule sigma = 0.5903
    # (beta = 0.5036); replace-one moves the gradient by 2G = 3, so the noise multiplier is 0.5903/3 = 0.1968
    p = R.paper_relation_privacy(sigma=0.5902838337177532, G=1.5, eps=0.5, n=5000, T=1000, delta=4e-8)
    ref = _dp_accounting_wor_replace_one(0.5902838337177532 / 3.0, 5000, 1000, 4e-8)
    assert p["eps_run_paper"] == pytest.approx(ref, rel=1e-6)
    assert p["eps_run_paper"] == pytest.approx(9504.27, rel=1e-5)
    assert not p["private_paper"] and "replace-one" in p["accountant_paper"] and "2G" in p["accountant_paper"]
    # the private calibration's sigma = 20.48 at the same point: private under the paper's relation; dpviz's RDP
    # (denser orders) may only be tighter than dp_accounting's default orders, both upper bounds
    q = R.paper_relation_privacy(sigma=20.481068013986228, G=1.5, eps=0.5, n=5000, T=1000, delta=4e-8)
    ref = _dp_accounting_wor_replace_one(20.481068013986228 / 3.0, 5000, 1000, 4e-8)
    assert q["private_paper"] and q["eps_run_paper"] <= ref * (1 + 1e-9) and ref < 0.5


def test_reproduce_fig1_reports_both_relations(tmp_path):
    from dpviz.studies import reproduce as R
    import pandas as pd
    out = R.reproduce("wang-lownoise-fig1", reps=2, seed=0, out_dir=tmp_path)
    df = pd.read_csv(out["csv"])
    assert {"eps_run", "accountant", "eps_run_paper", "private_paper", "accountant_paper"} <= set(df.columns)
    rule = df[df.method == "dp-paper-rule"]
    at = rule[rule.eps == 0.5].iloc[0]
    assert at["eps_run"] == pytest.approx(7.12, abs=0.01)          # Poisson add/remove, sensitivity G (tight PLD)
    assert at["eps_run_paper"] == pytest.approx(9504.27, rel=1e-5)  # the paper's Definition 1 (RDP upper bound)
    assert "add/remove" in at["accountant"] and "replace-one" in at["accountant_paper"]
    cal = df[df.method == "dp-private"]
    assert cal["private_paper"].all() and cal["private"].all()
    title = out["figure"].layout.title.text
    assert "Definition 1" in title and "add/remove" in title and "9504" in title
    md = out["md"].read_text(encoding="utf-8")
    assert "Definition 1" in md and "2G" in md and "ε = 9504" in md


# ----------------------------------------------------------------------------------------------------------------
# 8. exports and progress


class _Stream:
    def __init__(self, tty):
        self.tty, self.parts = tty, []

    def isatty(self):
        return self.tty

    def write(self, s):
        self.parts.append(s)

    def flush(self):
        pass

    @property
    def text(self):
        return "".join(self.parts)


def test_progress_one_line_per_tenth_when_not_a_terminal():
    from dpviz.cli.audit import _Progress
    s = _Stream(False)
    with _Progress("audit", stream=s) as bar:
        for f in (0.0, 0.05, 0.12, 0.13, 0.5, 0.9, 0.95, 1.0):
            bar(f)
    lines = s.text.split("\n")
    assert "\r" not in s.text
    assert lines == ["audit:   0.0 %", "audit:  10.0 %", "audit:  50.0 %", "audit:  90.0 %", "audit: 100.0 %", ""]


def test_progress_rewrites_in_place_on_a_terminal():
    from dpviz.cli.audit import _Progress
    s = _Stream(True)
    with _Progress("audit", stream=s) as bar:
        bar(0.9)
        bar(1.0)
    assert s.text == "\raudit:  90.0 %\raudit: 100.0 %\n"


def test_audit_json_returns_the_pages_accountant_eps(capsys):
    import json

    from dpviz.cli.commands import main
    from dpviz.labs import canary_audit as A
    # the Audit page's exported command (pages/audit.py command()) ends with --json; it must return the accountant's
    # eps the page shows (res.eps_accountant of dpviz.labs.canary_audit.audit on the same settings)
    argv = ["audit", "--algorithm", "dpsgd-rdp", "--trials", "40", "--seed", "0", "--n", "100", "--T", "100",
            "--eta", "0.1", "--eps", "1.0", "--sigma", "0.05", "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    ds, loss, p = A.default_setting("dpsgd-rdp", {"n": 100, "T": 100, "eta": 0.1, "eps": 1.0, "sigma": 0.05})
    page = A.audit("dpsgd-rdp", ds, loss, params=p, trials=40, seed=0)
    assert d["eps_accountant"] is not None and d["eps_accountant"] == pytest.approx(page.eps_accountant, rel=1e-12)
    assert d["eps_accountant"] > 1e5  # sigma/(2G) = 0.0125: a huge eps, still a number, not null
    assert d["sigma"] == 0.05 and d["accountant_note"].startswith("matched")
    assert "\r" not in err and err.strip().splitlines()[-1] == "audit: 100.0 %"


# ----------------------------------------------------------------------------------------------------------------
# 6. Xue, Yang, Huai & Wang, Section 5 report: one rule (1.96 combined standard errors) for every claim


def _xue_df(x, means, ses):
    import pandas as pd

    from dpviz.studies import xue as X
    rows = []
    for m in X.METHODS:
        for i, xv in enumerate((0.5, 1.0, 2.0) if x == "eps" else (32, 64, 128)):
            rows.append({"method": m, x: xv, "mean": means.get(m, means["*"])[i], "se": ses.get(m, ses["*"])[i]})
    return pd.DataFrame(rows)


def test_xue_claim_b_a_mean_difference_within_noise_is_not_shown():
    from dpviz.studies import xue as X
    # the case: DPEGD ahead by +0.001 on average with standard errors about 0.02, behind at two points
    means = {"*": [0.6, 0.65, 0.7], "dpegd": [0.590, 0.640, 0.723], "dpgdc2": [0.600, 0.650, 0.700]}
    ses = {"*": [0.005, 0.005, 0.005], "dpegd": [0.02, 0.02, 0.02], "dpgdc2": [0.02, 0.02, 0.02]}
    f = X.study_findings(_xue_df("eps", means, ses), "eps")
    # mean difference (−0.010 − 0.010 + 0.023)/3 = +0.001; its SE = sqrt(6 * 0.02^2)/3 = 0.01633; band 0.0320
    assert (-0.010 - 0.010 + 0.023) / 3 == pytest.approx(0.001)
    assert SQ(6 * 0.02**2) / 3 * 1.959963984540054 == pytest.approx(0.0320, abs=1e-4)
    b = f[1]
    assert b["claim"].startswith("(b)") and not b["shown"] and "+0.001 vs ±0.032" in b["numbers"]
    assert "within noise" in b["numbers"]
    # (a): every private method rises by 0.1 with SE 0.005 -> band 1.96 * sqrt(2) * 0.005 = 0.0139: shown, except
    # DPEGD (+0.133 vs 1.96 sqrt(2) 0.02 = 0.0554: shown too) and DPGDC2 (+0.1 vs 0.0554: shown)
    a = f[0]
    assert a["claim"].startswith("(a)") and a["shown"] and a["failing"] == []
    assert X.RULE.startswith("Rule for every claim") and "1.96" in X.RULE


def test_xue_claim_a_names_the_failing_entry():
    from dpviz.studies import xue as X
    means = {"*": [0.6, 0.65, 0.7], "dpgdsc-lap": [0.6, 0.58, 0.55]}
    ses = {"*": [0.005, 0.005, 0.005]}
    a = X.study_findings(_xue_df("eps", means, ses), "eps")[0]
    # DPGDSC, delta = 0 falls by 0.05 beyond 1.96 sqrt(2) 0.005 = 0.0139: contradicted
    assert not a["shown"] and a["failing"] == ["DPGDSC, δ = 0 (Alg. 1, Laplace)"]
    assert "NOT shown for: DPGDSC, δ = 0 (Alg. 1, Laplace) (contradicted)" in a["numbers"]
    # vs n: (a) the gap to the baseline shrinks beyond noise; the baseline is deterministic (se NaN counts as 0)
    means = {"*": [0.6, 0.65, 0.7], "non-private-sc": [0.8, 0.8, 0.8], "non-private-c": [0.8, 0.8, 0.8]}
    ses = {"*": [0.01, 0.01, 0.01], "non-private-sc": [float("nan")] * 3, "non-private-c": [float("nan")] * 3}
    f = X.study_findings(_xue_df("n", means, ses), "n")
    # gap 0.2 -> 0.1: shrinks by 0.1 vs 1.96 sqrt(2) 0.01 = 0.0277
    assert f[0]["shown"] and "gap shrinks by +0.100 vs ±0.028" in f[0]["numbers"]
    assert [x["claim"][:3] for x in f] == ["(a)", "(b)"]


# ----------------------------------------------------------------------------------------------------------------
# 7. citations name their paper


def test_name_citations_names_bare_references_only():
    from dpviz.theory.papers._common import name_citations as nc
    W = "Wang, Lei, Ying & Zhou"
    assert nc("the feasible beta of Theorem 2 (order 12)", W) == "the feasible beta of Wang, Lei, Ying & Zhou's Theorem 2 (order 12)"
    assert nc("Eq. (5) as printed", "Yang, Lei, Lyu & Ying") == "Yang, Lei, Lyu & Ying's Eq. (5) as printed"
    for same in ("its exact delta (Balle & Wang 2018, Theorem 8) is 0.1", "Yang, Lei, Lyu & Ying, Theorem 1, eq. (9)",
                 "Theorem 2 of the low-noise paper", "the paper's Theorem 2", "RDP of Mironov 2017, Proposition 3"):
        assert nc(same, W) == same
    once = nc("Lemma 1 and Theorem 3 give", W)
    assert once == "Wang, Lei, Ying & Zhou's Lemma 1 and Theorem 3 give" and nc(once, W) == once  # idempotent


def test_calibrate_dpsgd_rdp_names_the_low_noise_paper():
    # Wang, Lei, Ying & Zhou, Algorithm 1 / Theorem 2, used with G = M + L R^alpha (the non-smooth paper's setting)
    cal = catalog.calibrate("dpsgd-rdp", n=1000, eps=1.0, delta=1e-5, T=1000, eta=0.01, M=1.0, L=1.0, R=1.0,
                            alpha=0.5)
    assert "Wang, Lei, Ying & Zhou's Theorem 2" in cal.reason
    assert any("Wang, Lei, Ying & Zhou's Theorem 2" in n for n in cal.notes)


def test_every_calibration_and_bound_text_names_its_paper():
    import inspect

    from dpviz.theory.papers._common import name_citations
    base = dict(n=1000, eps=1.0, delta=1e-5, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1, d=10)
    checked = 0
    for a in catalog.algorithms():
        if a.calibrate is None:
            continue
        names = set(inspect.signature(a.calibrate).parameters)
        for extra in ({}, {"eps": 1e-3}):
            p = {k: v for k, v in {**base, **extra}.items() if k in names}
            try:
                cal = a.calibrate(**p)
            except ValueError:
                continue
            for t in [cal.reason, cal.fix, *cal.notes]:
                assert name_citations(t, a.paper.short) == t, (a.id, t)
                checked += 1
    for th in catalog.theorems():
        names = set(inspect.signature(th.bound).parameters)
        p = {k: v for k, v in base.items() if k in names}
        try:
            res = th.bound(**p)
        except (ValueError, TypeError):
            continue
        for t in res.notes:
            assert name_citations(t, th.paper.short) == t, (th.id, t)
            checked += 1
    assert checked > 50


# ----------------------------------------------------------------------------------------------------------------
# 9. plain words at the edges


def test_negative_right_hand_side_is_explained():
    # Wang, Lei, Ying & Zhou, Theorem 2 at n = 100, eps = 0.1, delta = 1e-5, T = 100, beta = 0.5, G = 1:
    # lambda = log(1e5)/(0.5 * 0.1) + 1 = 231.26; sigma^2 = 14 * 100/(0.5 * 100^2 * 0.1) * (230.26 + 1) = 647.5;
    # (ii) right-hand side = 647.5/6 * log(100/(231.26 * (1 + 647.5/4))) = 107.9 * log(100/37 671) = -640.1 < 0
    lam = LN(1e5) / 0.05 + 1
    s2 = 14 * 100 / (0.5 * 100**2 * 0.1) * (lam - 1 + 1)
    inside = lam * (1 + s2 / 4)
    rhs = s2 / 6 * LN(100 / inside)
    assert lam - 1 == pytest.approx(230.26, abs=0.01) and rhs == pytest.approx(-640.1, abs=0.1)
    cal = catalog.calibrate("dpsgd-rdp", n=100, eps=0.1, delta=1e-5, T=100, G=1.0, beta=0.5)
    assert not cal.feasible
    assert f"lambda - 1 = {lam - 1:.4g} > {rhs:.4g}" in cal.reason
    assert f"negative because n = 100 is smaller than lambda (1 + sigma^2/(4G^2)) = {inside:.4g}" in cal.reason
    assert "cannot hold at this beta" in cal.reason


def test_lesson_status_is_two_sentences():
    from dpviz_ui.lessons import views
    state = {"algorithm": "dpsgd-rdp", "n": 100, "d": 10, "eps": 0.1, "T": 100, "eta": 0.1, "G": 1.0, "L": 1.0,
             "M": 1.0, "R": 1.0, "alpha": 1.0, "mu": 0.1, "c": 1.0, "kappa": 0.0, "delta_auto": False,
             "log10_delta": -5.0, "sweep": "eps"}
    kind, text = views._live_calibrate(state)["status"]
    # "Not private here: <reason>. Fix: <fix>." -- two sentences, each with its full stop
    assert kind == "error" and text.startswith("Not private here: ") and ". Fix: increase eps" in text
    assert text.endswith(".") and ".." not in text
