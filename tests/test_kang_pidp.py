"""Kang, Li, Liu & Wang (kang-pidp): DP-SGD under PL (eq. (2)), PIDP-SGD (Theorem 5), Theorems 1/3/6/7, Remark 4 and
Table 1, checked against values computed by hand from the paper's formulas."""
import math

import pytest

from dpviz.theory import accounting, catalog
from dpviz.theory.papers import kang_pidp as k

LOG = math.log


def test_schedule_T():
    # (1 - mu/L)^T <= 1/n: T = ceil(log(1000)/-log(0.9)) = ceil(6.907755/0.1053605) = ceil(65.56) = 66
    assert k.schedule_T(n=1000, L=1.0, mu=0.1) == 66
    # without L, mu: ceil(log 100) = ceil(4.605) = 5; mu = L: one step
    assert k.schedule_T(n=100) == 5
    assert k.schedule_T(n=100, L=2.0, mu=2.0) == 1
    with pytest.raises(ValueError):
        k.schedule_T(n=100, L=1.0, mu=2.0)  # mu > L is impossible for a smooth PL function


def test_if_error_bound():
    # Theorem 4: (2LG + C G^2/zeta)/(zeta^2 n^2) = (2*2*1 + 0.1*1/0.5)/(0.25*1e4) = 4.2/2500 = 0.00168
    assert k.if_error_bound(n=100, G=1, L=2, zeta=0.5, C_hess=0.1) == pytest.approx(0.00168)
    # C = 0 (squared loss): 2*1*3/(1*1000^2) = 6e-6
    assert k.if_error_bound(n=1000, G=3, L=1, zeta=1) == pytest.approx(6e-6)
    with pytest.raises(ValueError):
        k.if_error_bound(n=100, G=1, L=2, zeta=0.0)


# ---------------------------------------------------------------------------------------------------------------
# dpsgd-pl


def test_dpsgd_pl_with_given_c_uses_eq2():
    # sigma = c G sqrt(T log(1/delta))/(n eps) = 3*2*sqrt(100*13.815511)/(1000*1) = 6*37.16922/1000 = 0.2230153
    cal = k.calibrate_dpsgd_pl(n=1000, eps=1, delta=1e-6, T=100, G=2, c=3, L=4)
    assert cal.sigma == pytest.approx(3 * 2 * math.sqrt(100 * LOG(1e6)) / 1000)
    assert cal.sigma == pytest.approx(0.2230153, rel=1e-6)
    assert cal.T == 100 and cal.eta == 0.25 and cal.extras["c"] == 3
    assert any("given c" in note for note in cal.notes)
    # 1*1*sqrt(50*11.512925)/(500*0.5) = sqrt(575.6463)/250 = 23.99263/250 = 0.0959705
    cal = catalog.calibrate("dpsgd-pl", n=500, eps=0.5, delta=1e-5, T=50, G=1.0, c=1.0)
    assert cal.sigma == pytest.approx(0.0959705, rel=1e-5)
    # c = 1 is far too small for the claimed guarantee: the accountant says so
    assert cal.extras["eps_accountant"] > 0.5 and any("too small" in note for note in cal.notes)


def test_dpsgd_pl_accountant():
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    cal = k.calibrate_dpsgd_pl(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0, mu=0.1)

    def eps_wor(z):  # independent dp_accounting call: the paper's mechanism, one example of 1000 per step drawn
        # without replacement, replace-one neighbours, T = 1000 steps, noise multiplier z = sigma/(2G)
        # the orders of the matched accountant (WOR_ORDERS); dp_accounting computes each order's RDP itself
        a = RdpAccountant(orders=accounting.WOR_ORDERS,
                          neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        a.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.SampledWithoutReplacementDpEvent(
            1000, 1, dp_accounting.GaussianDpEvent(z)), 1000))
        return a.get_epsilon(1e-6)

    # replace-one: sensitivity 2G = 2 (the calibration solves for z to a relative precision of 1e-6)
    z = cal.sigma / 2.0
    assert eps_wor(z) <= 1.0 + 1e-9 < eps_wor(z * (1 - 1e-4))
    assert cal.extras["sensitivity"] == 2.0 and cal.extras["noise_multiplier"] == pytest.approx(z, rel=1e-9)
    assert "without replacement" in cal.extras["accountant_mechanism"]
    # implied c = sigma n eps/(G sqrt(T log(1/delta))) = sigma * 1000/sqrt(1000*13.815511) = sigma * 8.50778
    assert cal.extras["c"] == pytest.approx(cal.sigma * 1000 / math.sqrt(1000 * LOG(1e6)))
    assert 1.0 < cal.extras["c"] < 100.0
    assert cal.eta == 1.0 and cal.T == 1000 and cal.formula and cal.formula_numbers
    # add/remove: Poisson sampling at rate 1/n (the moments-accountant setting), sensitivity G
    cal2 = k.calibrate_dpsgd_pl(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, neighbouring="add-remove")
    z2 = accounting.noise_multiplier_for(eps=1.0, delta=1e-6, steps=1000, sampling_prob=1 / 1000)
    assert cal2.sigma == pytest.approx(z2, rel=1e-5) and "Poisson" in cal2.extras["accountant_mechanism"]
    # the paper's mechanism needs more noise than Poisson add/remove (sensitivity 2G instead of G)
    assert cal.sigma > 2 * cal2.sigma * 0.9


def test_dpsgd_pl_sane_monotone():
    s = [k.calibrate_dpsgd_pl(n=2000, eps=e, delta=1e-6, T=500, G=1.0).sigma for e in (0.25, 0.5, 1.0, 4.0)]
    assert all(a > b for a, b in zip(s, s[1:]))
    s = [k.calibrate_dpsgd_pl(n=2000, eps=1.0, delta=1e-6, T=T, G=1.0).sigma for T in (100, 1000, 10_000)]
    assert all(a < b for a, b in zip(s, s[1:]))
    # T from the schedule of Theorem 1 when not given: 66 steps at n = 1000, L = 1, mu = 0.1
    cal = k.calibrate_dpsgd_pl(n=1000, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1)
    assert cal.T == 66


@pytest.mark.parametrize("bad", [dict(eps=0.0), dict(delta=1.0), dict(G=0.0), dict(T=0), dict(n=1), dict(c=-1.0),
                                 dict(neighbouring="swap"), dict(accountant="moments"), dict(L=1.0, mu=2.0)])
def test_dpsgd_pl_invalid(bad):
    params = dict(n=1000, eps=1.0, delta=1e-6, T=100, G=1.0)
    params.update(bad)
    with pytest.raises(ValueError):
        k.calibrate_dpsgd_pl(**params)


# ---------------------------------------------------------------------------------------------------------------
# pidp-sgd


def test_pidp_contribution_noise_by_hand():
    # eps2 = eps/4 = 0.25, delta2 = delta/4 = 2.5e-7, R = 10 rounds, c' = 2 sqrt 2:
    # sigma_c = 2.828427*1*10*sqrt(log(1.25*10/2.5e-7))/(1000*0.1*0.25) = 28.28427*sqrt(17.727534)/25
    #         = 28.28427*4.210408/25 = 4.763535
    cal = k.calibrate_pidp_sgd(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0, mu=0.1, zeta=0.1, rounds=10, R=2.0)
    assert cal.feasible
    assert cal.extras["sigma_c_paper"] == pytest.approx(4.763535, rel=1e-6)
    # released by default: the private sigma_c (exact check), far below the printed one here
    assert cal.extras["sigma_rule"] == "private" and cal.extras["sigma_c"] == cal.extras["sigma_c_private"]
    assert cal.extras["sigma_c_paper_private"] and cal.extras["sigma_c"] < 4.763535
    printed = k.calibrate_pidp_sgd(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0, mu=0.1, zeta=0.1, rounds=10,
                                   R=2.0, sigma_rule="printed")
    assert printed.feasible and printed.extras["sigma_c"] == pytest.approx(4.763535, rel=1e-6)
    assert (cal.extras["eps1"], cal.extras["eps2"]) == (0.75, 0.25)
    assert cal.extras["delta1"] == pytest.approx(7.5e-7) and cal.extras["delta2"] == pytest.approx(2.5e-7)
    assert cal.extras["rounds"] == 10 and cal.extras["T_local"] == 100 and cal.extras["r"] == 2.0
    # E = (2 L G + 0)/(zeta^2 n^2) = 2/(0.01*1e6) = 2e-4
    assert cal.extras["E"] == pytest.approx(2e-4)
    # the training noise is dpsgd-pl at (eps1, delta1)
    pl = k.calibrate_dpsgd_pl(n=1000, eps=0.75, delta=7.5e-7, T=1000, G=1.0)
    assert cal.sigma == pytest.approx(pl.sigma)
    # second point: n = 500, eps = 2, delta = 1e-5, G = 2, zeta = 0.5, R = 4, c' = 2.83:
    # 2.83*2*4*sqrt(log(1.25*4/2.5e-6))/(500*0.5*0.5) = 22.64*sqrt(14.508658)/125 = 22.64*3.809023/125 = 0.689890
    cal = k.calibrate_pidp_sgd(n=500, eps=2.0, delta=1e-5, T=40, G=2.0, zeta=0.5, rounds=4, c_prime=2.83, c=2.0)
    assert cal.extras["sigma_c_paper"] == pytest.approx(0.689890, rel=1e-5)
    assert cal.extras["E"] == 0.0 and cal.extras["T_local"] == 10
    # training sigma with c = 2 at eps1 = 1.5, delta1 = 7.5e-6: 2*2*sqrt(40*log(1/7.5e-6))/(500*1.5)
    #   = 4*sqrt(40*11.800607)/750 = 4*21.72614/750 = 0.1158727
    assert cal.sigma == pytest.approx(0.1158727, rel=1e-6)


def test_pidp_zeta_defaults_to_mu_and_simulation_keys():
    cal = catalog.calibrate("pidp-sgd", n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, R=1.0,
                            mu=0.1)
    assert cal.extras["zeta"] == 0.1 and cal.eta == 0.01
    for key in ("eps1", "delta1", "sigma_c", "r", "E"):
        assert key in cal.extras
    assert ".txt" not in " ".join(cal.notes) + cal.reason
    with pytest.raises(ValueError):
        k.calibrate_pidp_sgd(n=1000, eps=1.0, delta=1e-6, T=100, G=1.0)  # neither zeta nor mu


def test_pidp_split_exceeding_budget_is_infeasible():
    cal = k.calibrate_pidp_sgd(n=1000, eps=1.0, delta=1e-6, T=100, G=1.0, zeta=0.1, eps1=0.9, eps2=0.3)
    assert not cal.feasible and cal.sigma is None
    assert "1.2" in cal.reason and "0.75" in cal.fix


@pytest.mark.parametrize("bad", [dict(eps=0.0), dict(delta=0.0), dict(zeta=-1.0), dict(rounds=0), dict(c_prime=0.0),
                                 dict(R=-1.0), dict(eps1=0.0), dict(delta2=1.0), dict(C_hess=-1.0, L=1.0)])
def test_pidp_invalid(bad):
    params = dict(n=1000, eps=1.0, delta=1e-6, T=100, G=1.0, zeta=0.1)
    params.update(bad)
    with pytest.raises(ValueError):
        k.calibrate_pidp_sgd(**params)


# ---------------------------------------------------------------------------------------------------------------
# theorems


def test_thm1_rate():
    # m G^2 log(1/delta) log n/(n^2 eps^2) = 10*1*13.815511*6.907755/(1e6*1) = 9.543417e-4
    res = catalog.bound("kang-pidp-thm1", n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1)
    assert res.total == pytest.approx(9.543417e-4, rel=1e-6)
    assert res.T == 66 and res.eta == 1.0
    assert res.exponents == {"privacy": {"n": -2.0, "eps": -2.0}}
    # c = 2, n = 100, d = 5, eps = 0.5, delta = 1e-4, G = 2: 2*5*4*9.210340*4.605170/(1e4*0.25) = 0.678643
    res = k.bound_thm1(n=100, d=5, eps=0.5, delta=1e-4, G=2.0, c=2.0)
    assert res.total == pytest.approx(2 * 5 * 4 * LOG(1e4) * LOG(100) / (1e4 * 0.25))
    assert res.total == pytest.approx(0.678643, rel=1e-6)


def test_thm1_explicit():
    # (1 - 0.1)^20 * 2 = 0.1215767*2 = 0.2431533; m sigma^2/(2 mu) = 10*0.25/0.2 = 12.5
    res = catalog.bound("kang-pidp-thm1", explicit=True, n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1,
                        T=20, Delta0=2.0, sigma=0.5)
    t = {term.name: term.value for term in res.terms}
    assert t["optimisation"] == pytest.approx(0.2431533, rel=1e-6)
    assert t["privacy"] == pytest.approx(12.5)
    assert res.explicit and res.T == 20
    # with the calibrated sigma (eq. (2), c = 3): sigma = 3*sqrt(66*13.815511)/(1000*1) = 3*30.19613/1000 = 0.0905884
    res = k.explicit_bound_thm1(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1, c=3.0)
    assert res.T == 66
    assert res.extras["sigma"] == pytest.approx(0.0905884, rel=1e-5)
    # optimisation: 0.9^66 = 9.55004e-4 <= 1/n
    assert {t.name: t.value for t in res.terms}["optimisation"] == pytest.approx(0.9**66)


def test_thm3_with_tau():
    # e = 9.543417e-4 (test_thm1_rate), tau = 2, L = 1, mu = 0.1, G = 1, n = 1000, E[L*] = 1/n:
    # optimisation (tau + L)(8 tau + mu)/(mu tau) e = 3*16.1/0.2*e = 241.5*e = 0.2304757
    # stability (tau + L)*16 G^2/(n^2 mu^2) = 3*16/(1e6*0.01) = 0.0048; statistical L E[L*]/tau = 0.001/2 = 0.0005
    res = catalog.bound("kang-pidp-thm3", n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1, tau=2.0)
    t = {term.name: term.value for term in res.terms}
    assert t["optimisation"] == pytest.approx(241.5 * 9.543417e-4, rel=1e-6)
    assert t["stability"] == pytest.approx(0.0048) and t["statistical"] == pytest.approx(0.0005)
    # tau = None: the minimiser sqrt(L (e + L*)/(8 e/mu + b)) beats its neighbours
    best = k.bound_thm3(n=1000, d=10, eps=1.0, delta=1e-6, L=1.0, mu=0.1)
    tau = best.extras["tau"]
    e, b = 9.543417e-4, 16 / (1e6 * 0.01)
    assert tau == pytest.approx(math.sqrt((e + 1e-3) / (8 * e / 0.1 + b)), rel=1e-5)
    for other in (tau * 1.05, tau / 1.05):
        assert best.total < k.bound_thm3(n=1000, d=10, eps=1.0, delta=1e-6, L=1.0, mu=0.1, tau=other).total


def test_thm3_explicit():
    # e = 0.2431533 + 12.5 = 12.7431533 (test_thm1_explicit); tau = 1: (1+1)(8+0.1)/(0.1*1) e = 162 e = 2064.3908
    # stability 2*16/(1e6*0.01) = 0.0032; statistical 1*(1/1000)/1 = 0.001
    res = catalog.bound("kang-pidp-thm3", explicit=True, n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1,
                        T=20, Delta0=2.0, sigma=0.5, tau=1.0)
    t = {term.name: term.value for term in res.terms}
    assert t["optimisation"] == pytest.approx(162 * 12.7431533, rel=1e-7)
    assert t["stability"] == pytest.approx(0.0032) and t["statistical"] == pytest.approx(0.001)
    assert res.explicit


def test_remark4_branches():
    # n = 1000, d = 10, eps = 1: branch 1 = 10/1e6 + 1e-3 = 0.00101; branch 2 = sqrt(10)/1000^1.5 + 10^1.5/1000^2.5
    #   = 1e-4 + 1e-6 = 1.01e-4 -> branch 2, tau = sqrt(n) eps/sqrt(m) = 31.62278/3.162278 = 10
    res = catalog.bound("kang-pidp-remark4", n=1000, d=10, eps=1.0)
    assert res.extras["branch"] == 2 and res.total == pytest.approx(1.01e-4)
    assert res.extras["tau"] == pytest.approx(10.0)
    assert res.exponents["privacy"] == {"n": -1.5, "eps": -1.0}
    # n = 100, d = 100, eps = 0.1: branch 1 = 100/(1e4*0.01) + 0.01 = 1.01; branch 2 = 10/(1000*0.1) +
    #   1000/(1e5*1e-3) = 0.1 + 10 = 10.1 -> branch 1
    res = k.bound_remark4(n=100, d=100, eps=0.1)
    assert res.extras["branch"] == 1 and res.total == pytest.approx(1.01)
    assert catalog.get_theorem("kang-pidp-remark4").discrepancy


def test_thm6():
    # k = 50, eps1 = 0.75, delta1 = 7.5e-7: 50*10*log(1/7.5e-7)*log(1000)/(1e9*0.5625)
    #   = 500*14.103200*6.907755/5.625e8 = 8.65968e-5; T = ceil(log(1e9*0.5625/500)) = ceil(13.93320) = 14
    res = catalog.bound("kang-pidp-thm6", n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=2.0, k=50)
    assert res.total == pytest.approx(500 * LOG(1 / 7.5e-7) * LOG(1000) / 5.625e8)
    assert res.total == pytest.approx(8.65968e-5, rel=1e-5)
    assert res.T == 14 and res.eta == 0.5
    assert res.exponents["privacy"] == {"n": -3.0, "eps": -2.0}
    # k = n = 1000 (default) with eps1 = eps, delta1 = delta: exactly Theorem 1's rate
    res = k.bound_thm6(n=1000, d=10, eps=1.0, delta=1e-6, eps1=1.0, delta1=1e-6)
    assert res.total == pytest.approx(9.543417e-4, rel=1e-6)
    with pytest.raises(ValueError):
        k.bound_thm6(n=100, d=10, eps=1.0, delta=1e-6, k=101)


def test_thm7():
    # n = 1000, d = 10, eps = 1, k = 100 (km = 1000):
    # branch 1 = 1000/1e9 + 1e-3 = 0.001001; branch 2 = 1000/1000^2.5 + 1000^-1.5 = 3.162278e-5*2 = 6.324555e-5
    # branch 3 (derived) = sqrt(1000)/1e6 + 1000^1.5/1e12 = 3.162278e-5 + 3.162278e-8 = 3.165440e-5 -> branch 3
    res = catalog.bound("kang-pidp-thm7", n=1000, d=10, eps=1.0, k=100)
    assert res.extras["branch"] == 3
    assert res.extras["branch_values"][0] == pytest.approx(0.001001)
    assert res.extras["branch_values"][1] == pytest.approx(6.324555e-5, rel=1e-6)
    assert res.total == pytest.approx(3.165440e-5, rel=1e-6)
    # printed third branch (km)^1.5/(n^2 eps^3) + eps/sqrt(kmn) = 0.0316228 + 0.001 = 0.0326228
    assert res.extras["printed_branch3"] == pytest.approx(0.0326228, rel=1e-5)
    assert res.extras["tau"] == pytest.approx(1000 / math.sqrt(1000))
    # k = n: the bound is Remark 4's
    assert k.bound_thm7(n=1000, d=10, eps=1.0).total == pytest.approx(k.bound_remark4(n=1000, d=10, eps=1.0).total)
    assert "n^4" in catalog.get_theorem("kang-pidp-thm7").discrepancy


def test_table1():
    rows = {r["method"]: r for r in catalog.get_table("kang-pidp-table1").evaluate(n=1000, d=10, eps=1.0)}
    assert len(rows) == 5
    # sqrt(10)/1000 + 1/sqrt(1000) = 0.00316228 + 0.0316228 = 0.0347851
    assert rows["DP-SGD (convex, smooth)"]["rate value"] == pytest.approx(0.0347851, rel=1e-5)
    # 10/1e6 + 1/1000 = 0.00101
    assert rows["Phased algorithms (strongly convex)"]["rate value"] == pytest.approx(0.00101)
    assert rows["DP-SGD under PL (this paper, Remark 4)"]["rate value"] == pytest.approx(1.01e-4)
    assert all(".txt" not in r["reference"] for r in rows.values())


def test_catalogue_entries():
    for alg_id in ("dpsgd-pl", "pidp-sgd"):
        alg = catalog.get_algorithm(alg_id)
        assert alg.paper.key == "kang-pidp" and ".txt" not in alg.paper.cite()
    ids = {t.id for t in catalog.theorems()}
    assert {"kang-pidp-thm1", "kang-pidp-thm3", "kang-pidp-thm6", "kang-pidp-thm7", "kang-pidp-remark4"} <= ids
    assert catalog.get_theorem("kang-pidp-thm1").explicit_bound is not None
    assert catalog.get_theorem("kang-pidp-thm3").explicit_bound is not None


def test_given_c_too_small_is_infeasible_with_a_fix():
    # eq. (2) with c = 1 at n = T = 1000, eps = 1, delta = 1e-6, G = 1: sigma = sqrt(1000 log(1e6))/1000 = 0.11754,
    # a noise multiplier of 0.11754/(2G) = 0.0588 over 1000 steps at rate 1/1000 -- far from (1, 1e-6)-DP
    from dpviz.theory import catalog

    sigma = math.sqrt(1000 * math.log(1e6)) / 1000
    cal = catalog.calibrate("dpsgd-pl", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0, c=1.0)
    assert cal.sigma == pytest.approx(sigma)
    assert not cal.feasible and "accountant certifies only eps" in cal.reason
    assert "leave c unset" in cal.fix
    # at the c the accountant needs, it is feasible again
    ok = catalog.calibrate("dpsgd-pl", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0,
                           c=cal.extras["c_needed"] * 1.001)
    assert ok.feasible
    pidp = catalog.calibrate("pidp-sgd", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0, L=1.0, mu=0.1, R=1.0, c=1.0)
    assert not pidp.feasible


# ---------------------------------------------------------------------------------------------------------------
# Issue 9: eq. (2)'s implied constant, "consistent constants", the moments-accountant condition


def test_implied_c_and_moments_accountant_condition():
    from dpviz.theory.papers import kang_pidp as kp

    # n = 1e4, eps = 1, delta = 1e-8, T = 88: the Poisson RDP sigma 1.8402 (sensitivity 2G) gave
    # c = sigma n eps / (G sqrt(T ln 1e8)) = 1.8402 * 1e4 / sqrt(88 * 18.42068) = 18402 / 40.262 = 457 (the issue's
    # figure); the paper's own mechanism (one example per step without replacement, replace-one; the matched
    # accountant dpviz now uses) needs sigma = 1.8447, so c = 18447 / 40.262 = 458.2
    cal = kp.calibrate_dpsgd_pl(n=10_000, eps=1.0, delta=1e-8, G=1.0, T=88)
    assert cal.extras["c_implied"] == pytest.approx(cal.sigma * 1e4 / math.sqrt(88 * math.log(1e8)), rel=1e-9)
    assert cal.extras["c_implied"] == pytest.approx(458.2, rel=2e-3)
    # q = 1/n: q^2 T = 88 / 1e8 = 8.8e-7 < eps = 1, so eps < c1 q^2 T fails with c1 = 1
    assert cal.extras["ma_q2T"] == pytest.approx(8.8e-7)
    assert cal.extras["ma_condition_holds"] is False and "fails" in cal.extras["ma_condition"]
    # the condition holds when eps is below q^2 T: n = 10, T = 100 -> q^2 T = 1 > eps = 0.5
    assert kp.moments_accountant_condition(n=10, eps=0.5, T=100)["holds"] is True
    with pytest.raises(ValueError):
        kp.moments_accountant_condition(n=10, eps=0.5, T=100, c1=0.0)


def test_consistent_constants_option():
    from dpviz.theory.papers import kang_pidp as kp

    # Theorem 1 at n = 1e4, d = 10, eps = 1, delta = 1e-8, L = 1, mu = 0.1 (T = 88):
    # rate with c = 1: 10 * ln(1e8) * ln(1e4) / 1e8 = 10 * 18.42068 * 9.21034 / 1e8 = 1.69661e-5
    plain = kp.bound_thm1(n=10_000, d=10, eps=1.0, delta=1e-8, L=1.0, mu=0.1)
    assert plain.total == pytest.approx(1.69661e-5, rel=1e-5)
    cons = kp.bound_thm1(n=10_000, d=10, eps=1.0, delta=1e-8, L=1.0, mu=0.1, consistent_constants=True)
    ci = cons.extras["c_implied"]
    assert ci == pytest.approx(458.2, rel=2e-3)
    assert cons.total == pytest.approx(1.69661e-5 * ci**2, rel=1e-5)  # ~ 3.54
    assert any("Consistent constants" in n for n in cons.notes)
    t3 = kp.bound_thm3(n=10_000, d=10, eps=1.0, delta=1e-8, L=1.0, mu=0.1, consistent_constants=True)
    assert t3.extras["excess_empirical"] == pytest.approx(cons.total, rel=1e-9)


def test_theorem1_and_theorem6_readings_recorded():
    from dpviz.theory import catalog

    assert "variance" in catalog.get_theorem("kang-pidp-thm1").discrepancy
    d6 = catalog.get_theorem("kang-pidp-thm6").discrepancy
    assert "O(log n)" in d6 and "n^3 eps1^2" in d6


def test_theorem2_generalization_gap_by_hand():
    from dpviz.theory.papers import kang_pidp as kp

    # e = 0.001, E[L*] = 0.01, L = 1, mu = 0.5, G = 1, n = 100: b = 16/(1e4 * 0.25) = 0.0064,
    # A = 8 e/mu + b = 0.016 + 0.0064 = 0.0224, tau* = sqrt(L (e + L*)/A) = sqrt(0.011/0.0224) = 0.700765
    # terms: 8 (tau + L) e/mu = 8 * 1.700765 * 0.001/0.5 = 0.0272122; b (tau + L) = 0.0108849;
    #        L (e + L*)/tau = 0.011/0.700765 = 0.0156972
    res = kp.bound_thm2(n=100, L=1.0, mu=0.5, G=1.0, excess_empirical=0.001, Lstar=0.01)
    t = {x.name: x.value for x in res.terms}
    assert res.extras["tau"] == pytest.approx(0.700765, rel=1e-5)
    assert t["optimisation"] == pytest.approx(0.0272122, rel=1e-5)
    assert t["stability"] == pytest.approx(0.0108849, rel=1e-5)
    assert t["statistical"] == pytest.approx(0.0156972, rel=1e-5)
    assert res.form == "explicit"
    with pytest.raises(ValueError):
        kp.bound_thm2(n=100, L=1.0, mu=0.5)  # needs e or (d, eps, delta)


def test_theorem4_remark3_remark8_by_hand():
    from dpviz.theory import catalog
    from dpviz.theory.papers import kang_pidp as kp

    # Theorem 4: n = 100, G = 1, L = 2, zeta = 0.5, C = 3: 2LG/(zeta^2 n^2) = 4/2500 = 1.6e-3,
    # C G^2/(zeta^3 n^2) = 3/(0.125 * 1e4) = 2.4e-3, total 4.0e-3 = if_error_bound
    res = catalog.bound("kang-pidp-thm4", n=100, G=1.0, L=2.0, zeta=0.5, C_hess=3.0)
    assert res.total == pytest.approx(4.0e-3) == kp.if_error_bound(n=100, G=1.0, L=2.0, zeta=0.5, C_hess=3.0)
    assert "not a risk" in catalog.get_theorem("kang-pidp-thm4").risk
    # Remark 3: [43]'s rate is Theorem 1's times log n: n = 1e4 -> factor 9.21034
    r3 = catalog.bound("kang-pidp-remark3", n=10_000, d=10, eps=1.0, delta=1e-8)
    assert r3.total == pytest.approx(1.69661e-5 * 9.21034, rel=1e-5)
    assert r3.extras["factor"] == pytest.approx(9.21034, rel=1e-6)
    # Remark 8: R n m^2 + R T_local m = 10 * 1000 * 100 + 10 * 5 * 10 = 1e6 + 500; efficient: 10 * 1000 * 10 + 500
    assert kp.time_complexity(n=1000, d=10, rounds=10, T_local=5) == 1_000_500
    assert kp.time_complexity(n=1000, d=10, rounds=10, T_local=5, efficient=True) == 100_500


def test_consistent_constants_flag_from_the_command_line(capsys):
    import json

    from dpviz.cli.commands import main

    args = ["bound", "--theorem", "kang-pidp-thm1", "--n", "10000", "--d", "10", "--eps", "1", "--delta", "1e-8",
            "--L", "1", "--mu", "0.1", "--json", "--param"]
    assert main(args + ["consistent_constants=false"]) == 0
    off = json.loads(capsys.readouterr().out)
    assert off["total"] == pytest.approx(1.69661e-5, rel=1e-5)  # c = 1
    assert main(args + ["consistent_constants=true"]) == 0
    on = json.loads(capsys.readouterr().out)
    assert on["extras"]["c_implied"] == pytest.approx(458.2, rel=2e-3)
    assert main(args + ["consistent_constants=maybe"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def test_pidp_contribution_noise_exact_delta_at_eps_8_against_the_released_sensitivity():
    # n = 1000, eps = 8, delta = 1e-6, G = 1, zeta = 0.1, R = 1 round (T = 1): eps2 = 2, delta2 = 2.5e-7.
    # printed sigma_c = 2 sqrt(2) * 1 * 1 * sqrt(ln(1.25/2.5e-7))/(1000 * 0.1 * 2) = 2.828427 * sqrt(15.424949)/200
    #   = 2.828427 * 3.927461/200 = 0.0555427.
    # Line 9 releases c_t = 2 c_t^(o) + b^(c): sensitivity 2 * 2G/(n zeta) = 4/(1000 * 0.1) = 0.04 (sqrt(R) = 1).
    # Exact delta (Balle & Wang 2018, Thm 8): a = 0.04/(2 * 0.0555427) = 0.360083, b = 2 * 0.0555427/0.04 = 2.777135,
    #   delta = Phi(a - b) - e^2 Phi(-a - b) = Phi(-2.417052) - 7.389056 Phi(-3.137218)
    #         = 7.824e-3 - 7.389056 * 8.531e-4 ~= 1.52e-3 > 2.5e-7: the printed sigma_c is NOT private here.
    #   (Against the proof's 2G/(n zeta) = 0.02 it would be: a = 0.180042, b = 5.55427, delta ~= 2.28e-9.)
    cal = k.calibrate_pidp_sgd(n=1000, eps=8.0, delta=1e-6, T=1, G=1.0, zeta=0.1, rounds=1)
    ex = cal.extras
    assert ex["sensitivity_c"] == pytest.approx(0.04)
    assert ex["sigma_c_paper"] == pytest.approx(0.0555427, rel=1e-5)
    a, b = 0.04 / (2 * 0.0555427), 2 * 0.0555427 / 0.04
    hand = _phi(a - b) - math.exp(2.0) * _phi(-a - b)
    assert hand == pytest.approx(1.52e-3, rel=0.01)
    assert ex["sigma_c_paper_exact_delta"] == pytest.approx(hand, rel=1e-3)
    assert not ex["sigma_c_paper_private"] and cal.feasible  # the released (private) sigma_c is
    a2, b2 = 0.02 / (2 * 0.0555427), 2 * 0.0555427 / 0.02
    assert _phi(a2 - b2) - math.exp(2.0) * _phi(-a2 - b2) == pytest.approx(2.28e-9, rel=0.01)
    # the released (private) sigma_c meets delta2 exactly at sensitivity 0.04: its exact delta equals 2.5e-7
    s = ex["sigma_c"]
    assert s == ex["sigma_c_private"] > ex["sigma_c_paper"]
    a, b = 0.04 / (2 * s), 2 * s / 0.04
    assert _phi(a - b) - math.exp(2.0) * _phi(-a - b) == pytest.approx(2.5e-7, rel=1e-6)
    printed = k.calibrate_pidp_sgd(n=1000, eps=8.0, delta=1e-6, T=1, G=1.0, zeta=0.1, rounds=1, sigma_rule="printed")
    assert not printed.feasible and "not (eps, delta)-DP here" in printed.reason
    # with the default R = min(T, 10) = 10 rounds at eps = 8: per-release sensitivity 0.04, composed sqrt(10) * 0.04
    cal10 = k.calibrate_pidp_sgd(n=1000, eps=8.0, delta=1e-6, T=1000, G=1.0, zeta=0.1)
    # printed: 2.828427 * 10 * sqrt(ln(1.25 * 10/2.5e-7))/(1000 * 0.1 * 2) = 28.28427 * sqrt(17.727534)/200 = 0.595442
    assert cal10.extras["sigma_c_paper"] == pytest.approx(0.595442, rel=1e-5)
    D = math.sqrt(10) * 0.04  # = 0.126491
    a, b = D / (2 * 0.595442), 2 * 0.595442 / D  # = 0.106216, 9.414765: delta ~= 1.4e-22, private
    assert cal10.extras["sigma_c_paper_exact_delta"] == pytest.approx(_phi(a - b) - math.exp(2) * _phi(-a - b),
                                                                       rel=1e-3, abs=1e-300)
    assert cal10.extras["sigma_c_paper_private"]


def test_pidp_issue_example_releases_sigma_c_for_the_released_sensitivity():
    # issue 19: n = 5000, eps = 1, delta = 4e-8, T = 5000, G = 1.02, L = 0.252, r = 10, zeta = 0.002, R = 5 rounds.
    # eps2 = 0.25, delta2 = 1e-8. Released 2 c_t^(o): sensitivity 4G/(n zeta) = 4.08/10 = 0.408 per round;
    # R = 5 releases compose into one Gaussian with sensitivity sqrt(5) * 0.408 = 0.912316.
    # sigma_c = 17.45: a = 0.912316/34.9 = 0.026141, b = 0.25 * 17.45/0.912316 = 4.781788,
    #   delta = Phi(-4.755647) - e^0.25 Phi(-4.807929) = 9.90e-7 - 1.284025 * 7.63e-7 ~= 1.0e-8 = delta2.
    # The proof's sensitivity 2G/(n zeta) = 0.204 gives half: sigma_c = 8.724, at which the release costs, at
    #   delta2 = 1e-8, eps2 ~= 0.52 (a = 0.052288, b = eps * 8.724/0.912316) instead of 0.25.
    cal = catalog.calibrate("pidp-sgd", n=5000, eps=1.0, delta=4e-8, T=5000, G=1.02, L=0.252, R=10.0, zeta=0.002,
                            rounds=5)
    ex = cal.extras
    assert ex["sensitivity_c"] == pytest.approx(0.408)
    assert ex["sigma_c"] == pytest.approx(17.45, rel=1e-3)
    D, s = math.sqrt(5) * 0.408, ex["sigma_c"]
    a, b = D / (2 * s), 0.25 * s / D
    assert _phi(a - b) - math.exp(0.25) * _phi(-a - b) == pytest.approx(1e-8, rel=1e-5)

    def delta_at(eps, sig):
        a, b = D / (2 * sig), eps * sig / D
        return _phi(a - b) - math.exp(eps) * _phi(-a - b)

    assert delta_at(0.25, 8.724) > 1e-5  # the proof's sigma_c is far from (0.25, 1e-8)
    assert delta_at(0.51, 8.724) > 1e-8 > delta_at(0.53, 8.724)  # it buys eps2 ~= 0.52
    # printed: 2.828427 * 1.02 * 5 * sqrt(ln(1.25 * 5/1e-8))/(5000 * 0.002 * 0.25) = 14.42498 * 4.500/2.5 = 25.967
    assert ex["sigma_c_paper"] == pytest.approx(25.967, rel=1e-4)
    assert ex["sigma_c_paper_private"]  # 25.97 > 17.45 (R = 5 rounds compose far better than R x Lemma 3)
    text = " ".join(cal.notes)
    assert "4G/(n zeta)" in text and "2G/(n zeta)" in text and "What dpviz cannot certify" in text
    assert "drawn afresh at every step" in text and "whole data set" in text
    assert "claimed by Kang, Li, Liu & Wang's Theorem 5" in cal.reason and "not the per-step b^(c)" in ex["privacy_check"]


def test_pidp_printed_contribution_noise_flagged_when_not_private():
    # eps = 40, R = 1: eps2 = 10, delta2 = 2.5e-7; printed sigma_c = 2.828427 * 3.927461/(1000 * 0.1 * 10)
    #   = 0.0111085; sensitivity of the released 2 c_t^(o): 4G/(n zeta) = 0.04;
    #   a = 0.04/0.022217 = 1.800423, b = 10 * 0.0111085/0.04 = 2.777125:
    #   delta = Phi(-0.976702) - e^10 Phi(-4.577548) ~= 0.1644 - 22026.47 * 2.35e-6 ~= 0.113 > 2.5e-7: NOT private
    a, b = 0.04 / (2 * 0.0111085), 10 * 0.0111085 / 0.04
    hand = _phi(a - b) - math.exp(10.0) * _phi(-a - b)
    assert 0.11 < hand < 0.115
    cal = k.calibrate_pidp_sgd(n=1000, eps=40.0, delta=1e-6, T=1, G=1.0, zeta=0.1, rounds=1)
    assert cal.feasible and not cal.extras["sigma_c_paper_private"]
    assert cal.extras["sigma_c_paper_exact_delta"] == pytest.approx(hand, rel=1e-3)
    assert cal.extras["sigma_c"] > cal.extras["sigma_c_paper"]
    assert any("not (ε, δ)-DP here" in note for note in cal.notes)
    printed = catalog.calibrate("pidp-sgd", n=1000, eps=40.0, delta=1e-6, T=1, G=1.0, zeta=0.1, rounds=1,
                                sigma_rule="printed")
    assert not printed.feasible and "not (eps, delta)-DP here" in printed.reason
    assert printed.extras["sigma_c"] == pytest.approx(0.0111085, rel=1e-5)
    assert "sigma_rule='private'" in printed.fix
    with pytest.raises(ValueError, match="sigma_rule"):
        k.calibrate_pidp_sgd(n=1000, eps=1.0, delta=1e-6, T=1, G=1.0, zeta=0.1, sigma_rule="paper")


def test_pidp_contribution_noise_same_in_calibration_lab_and_simulation():
    # the released sigma_c (private by default) is what the simulation engine adds and what the accounting lab
    # reports as released; the lab's "paper" sigma_c is the printed one (Theorem 5)
    import numpy as np

    from dpviz.labs import privacy_lab
    from dpviz.engine import simulate as S
    from dpviz.engine.data import Dataset

    params = dict(n=40, eps=8.0, delta=1e-4, T=20, G=1.0, mu=0.1, L=1.0, R=1.0)
    cal = catalog.calibrate("pidp-sgd", **params)
    mech = privacy_lab.mechanism("pidp-sgd", **params)
    con = mech.extras["contribution"]
    assert con["released_sigma_c"] == cal.extras["sigma_c"] == cal.extras["sigma_c_private"]
    assert con["paper_sigma_c"] == cal.extras["sigma_c_paper"]
    # the lab states the corrected sensitivity 4G/(n zeta) = 4/(40 * 0.1) = 1 and what dpviz cannot certify
    assert con["sensitivity"] == pytest.approx(1.0)
    assert any("4G/(nζ)" in note for note in mech.notes)
    assert any("What dpviz cannot certify for PIDP-SGD" in note for note in mech.notes)
    assert con["sigma_c_for_eps2"] == pytest.approx(cal.extras["sigma_c_private"], rel=1e-6)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    ds = Dataset("p", X, X @ np.ones(3), X, X @ np.ones(3), "regression")
    sim_params = {k: val for k, val in params.items() if k != "n"}
    plan = S._plan("pidp-sgd", ds, "least-squares", None, 1, {**sim_params, "eta": 0.1, "zeta": 0.1})[9][0]
    assert plan["pidp"]["sigma_c"] == pytest.approx(catalog.calibrate("pidp-sgd", **params, zeta=0.1)
                                                    .extras["sigma_c"], rel=1e-12)
    printed = S._plan("pidp-sgd", ds, "least-squares", None, 1,
                      {**sim_params, "eta": 0.1, "zeta": 0.1, "sigma_rule": "printed"})[9][0]
    assert printed["pidp"]["sigma_c"] == pytest.approx(catalog.calibrate("pidp-sgd", **params, zeta=0.1)
                                                       .extras["sigma_c_paper"], rel=1e-12)


def test_thm7_corrected_branch_with_the_stability_term_beside_the_printed_one():
    # issue 19: n = 10^4, m = d = 10, eps = 1, k = 1, c = 1 (constants dropped as in Remark 4's template).
    # Template branches (Theorem 6's e = km/(n^3 eps^2) = 1e-11):
    #   tau = 1:      km/(n^3 eps^2) + 1/n = 1e-11 + 1e-4 = 1.0000001e-4
    #   tau = sqrt(n) = 100: km/(n^2.5 eps^2) + 1/n^1.5 = 10/1e10 + 1e-6 = 1.001e-6
    #   tau = n eps/sqrt(km) = 10^4/sqrt(10) = 3162.28: (km)^1.5/(n^4 eps^3) + sqrt(km)/(n^2 eps)
    #                 = 31.6228/1e16 + 3.16228/1e8 = 3.16228e-8   (printed: (km)^1.5/(n^2 eps^3) + eps/sqrt(kmn)
    #                 = 31.6228/1e8 + 1/sqrt(1e5) = 3.16228e-7 + 3.16228e-3 = 3.16259e-3)
    # Theorem 3's stability term (tau + L) 16G^2/(n^2 mu^2), constants dropped: (tau + 1)/n^2 adds
    #   2e-8, 1.01e-6, 3.16328e-5: branches 1.0002001e-4, 2.011e-6, 3.16644e-5 -> minimum branch 2 at 2.011e-6.
    res = catalog.bound("kang-pidp-thm7", n=10_000, d=10, eps=1.0, k=1)
    ex = res.extras
    assert ex["branch"] == 3 and res.total == pytest.approx(3.16228e-8, rel=1e-5)
    assert ex["printed_branch3"] == pytest.approx(3.16259e-3, rel=1e-5)
    vals = ex["corrected_branch_values"]
    assert vals[0] == pytest.approx(1.0002001e-4, rel=1e-7)
    assert vals[1] == pytest.approx(2.011e-6, rel=1e-6)
    assert vals[2] == pytest.approx(3.16644e-5, rel=1e-5)
    assert ex["corrected_branch"] == 2 and ex["corrected_total"] == pytest.approx(2.011e-6, rel=1e-6)
    text = " ".join(res.notes)
    assert "printed (km)^1.5/(n^2 eps^3)" in text and "minimum is then branch 2 at 2.01e-06" in text
    # Remark 4 (DP-SGD): n = 10^4, m = 10, eps = 1: tau = 1: 10/1e8 + 1e-4 = 1.001e-4 (+ 2e-8);
    #   tau = sqrt(n) eps/sqrt(m) = 31.6228: sqrt(10)/1e6 + 31.6228/1e10 = 3.16544e-6 (+ 32.6228/1e8 = 3.26228e-7)
    r4 = catalog.bound("kang-pidp-remark4", n=10_000, d=10, eps=1.0)
    assert r4.extras["corrected_branch_values"][1] == pytest.approx(3.16544e-6 + 3.26228e-7, rel=1e-5)
    assert r4.extras["corrected_branch"] == 2


def test_thm1_and_thm6_schedule_notes():
    # Theorem 1, n = 1000, L = 1, mu = 0.1: T = ceil(ln 1000/-ln 0.9) = ceil(6.907755/0.1053605) = ceil(65.56) = 66;
    # (1 - mu/L)^T = 0.9^66 = exp(-6.95379) = 9.55e-4 <= 1/n: optimisation term ~ Delta0/n, above n^-2;
    # (1 - mu/L)^T <= 1/n^2 needs T = ceil(13.815511/0.1053605) = ceil(131.13) = 132.
    res = catalog.bound("kang-pidp-thm1", n=1000, d=10, eps=1.0, delta=1e-5, L=1.0, mu=0.1)
    assert res.T == 66
    note = next(n_ for n_ in res.notes if n_.startswith("Schedule"))
    assert "= 0.000955 <= 1/n = 0.001" in note and "T = 132" in note and "n^-2" in note
    assert "Delta0/n above the claimed n^-2 rate" in catalog.get_theorem("kang-pidp-thm1").discrepancy
    # Theorem 6 at k = n: eps1 = 0.75, T = ceil(ln(1000^3 * 0.5625/(1000 * 10))) = ceil(ln 56250) = ceil(10.9375) = 11,
    # not Theorem 1's 66 at L = 1, mu = 0.1
    r6 = catalog.bound("kang-pidp-thm6", n=1000, d=10, eps=1.0, delta=1e-5)
    assert r6.T == 11 and any("ignores mu/L" in n_ and "= 11" in n_ for n_ in r6.notes)
    assert "inconsistent" in catalog.get_theorem("kang-pidp-thm6").discrepancy


@pytest.mark.parametrize("eps", [1.0, 0.001])
def test_advised_c_is_rounded_up_and_suffices(eps):
    # eq. (2) with too small a c: the advice "use c >= X" printed X to 4 digits rounded to nearest (61.13 at ε = 1,
    # T = 66, n = 1000, δ = 1e-6, where the threshold is 61.134: c = 61.13 is still not private); it is rounded up
    import re

    from dpviz.theory import catalog

    kw = dict(n=1000, eps=eps, delta=1e-6, T=66, G=1.0)
    cal = catalog.calibrate("dpsgd-pl", c=1.0, **kw)
    assert not cal.feasible
    advised = float(re.search(r"use c >= ([0-9.e+]+)", cal.fix).group(1))
    assert advised >= cal.extras["c_needed"]
    assert catalog.calibrate("dpsgd-pl", c=advised, **kw).feasible
