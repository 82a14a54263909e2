"""Stability bounds of Xue, Yang, Huai & Wang (xue-pairwise): Lemma 1 (DPGDSC), Lemma 7 (DPGDC, DPEGD) and the
full-gradient sensitivity 4G/n (DPGDC2), by hand and never exceeded by the coupled runs."""

import math

import numpy as np
import pytest

from dpviz.labs import canary_audit as A
from dpviz.labs import stability as St
from dpviz.theory.papers import xue_pairwise as X


def test_lemma_bounds_by_hand():
    # Lemma 1 proof, eq. (4) unrolled: rho = 1 - L mu eta/(L + mu) = 1 - 3*1*0.1/4 = 0.925;
    # t = 2: 4 G eta / n * (1 + rho) = 4*1*0.1/10 * 1.925 = 0.077
    assert X.stability_lemma1(n=10, t=2, eta=0.1, G=1, L=3, mu=1) == pytest.approx(0.077)
    assert X.stability_lemma1(n=10, t=0, eta=0.1, G=1, L=3, mu=1) == 0.0
    # eq. (3): 8 G/(mu n) = 8/(1*10) = 0.8, and the unrolled sum stays below it for every t
    assert X.stability_lemma1_printed(n=10, G=1, mu=1) == pytest.approx(0.8)
    assert X.stability_lemma1(n=10, t=10_000, eta=0.1, G=1, L=3, mu=1) <= 0.8
    # its limit 4 G eta/(n (1 - rho)) = 0.04/0.075 = 0.5333
    assert X.stability_lemma1(n=10, t=10_000, eta=0.1, G=1, L=3, mu=1) == pytest.approx(0.04 / 0.075)
    with pytest.raises(ValueError, match="2/\\(L \\+ mu\\)"):
        X.stability_lemma1(n=10, t=2, eta=0.6, G=1, L=3, mu=1)  # 2/(L + mu) = 0.5
    # Lemma 7, eq. (7): 4 eta G t/n = 4*0.1*2*5/10 = 0.4
    assert X.stability_lemma7(n=10, t=5, eta=0.1, G=2) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="2/L"):
        X.stability_lemma7(n=10, t=5, eta=0.5, G=2, L=8)
    # DPEGD: n = 10 gives blocks 5, 2, 3 (k = floor(log2 10) = 3); example 7 lies in block 3:
    # 4 G eta_3 = 4 * 1 * 1 * 4^-3 = 0.0625; example 0 in block 1: 4 * 4^-1 = 1
    assert X.epoch_stability(n=10, eta=1.0, G=1.0, index=7) == (pytest.approx(0.0625), 3)
    assert X.epoch_stability(n=10, eta=1.0, G=1.0, index=0) == (pytest.approx(1.0), 1)
    assert X.epoch_stability(n=10, eta=1.0, G=1.0, index=5)[1] == 2
    with pytest.raises(ValueError, match="below n"):
        X.epoch_stability(n=10, eta=1.0, G=1.0, index=10)


def _kappa(ds):
    return float(np.max(np.linalg.norm(ds.X, axis=1)))


@pytest.mark.parametrize("alg", ["dpgd-sc", "dpgdc", "dp-epoch-gd", "dpgd-c"])
def test_measured_never_exceeds_the_deterministic_bound_over_many_seeds(alg):
    ds, loss, p = A.default_setting(alg, {"n": 20, "T": 20})
    seen = []
    for seed in range(6):
        for nb in ("random", "adversarial"):
            r = St.stability(alg, ds, loss, params=p, reps=4, seed=seed, neighbour=nb)
            assert r.deterministic and r.exceed_fraction == 0.0
            # 0 is possible: a DPEGD block whose pairs all share a label has a zero AUC gradient
            assert 0.0 <= r.empirical["max"] <= r.bound, (alg, seed, nb)
            seen.append(r.empirical["max"])
            if r.trace_bound is not None:  # along t: eq. (4) unrolled (Lemma 1) or eq. (7) (Lemma 7)
                assert np.all(r.trace_max <= r.trace_bound * (1 + 1e-9) + 1e-15)
    assert max(seen) > 0
    # the bounds by hand from the loss constants: AUC square G = 4 k (1 + 2 k R), L = 8 k^2 (R = 1)
    k, n = _kappa(ds), 20
    G, L = 4 * k * (1 + 2 * k), 8 * k**2
    if alg == "dpgd-c":  # 4G/n
        assert r.bound == pytest.approx(4 * G / n)
    if alg == "dpgdc":  # 4 eta G T/n with eta = 2/L (the default: the largest step Lemma 7 allows)
        assert p["eta"] == pytest.approx(2 / L)
        assert r.bound == pytest.approx(4 * (2 / L) * G * 20 / n)
    if alg == "dpgd-sc":  # L2-regularised, lambda = 1e-3: G + 2 lambda R, mu = 2 lambda; 8 G/(mu n)
        assert r.bound == pytest.approx(8 * (G + 2e-3) / (2e-3 * n))


def test_xue_sweep_and_deterministic_path_note():
    ds, loss, p = A.default_setting("dpgdc", {"n": 20, "T": 20})
    sw = St.stability_sweep("dpgdc", ds, loss, over="eta", values=[p["eta"] / 2, p["eta"]], params=p, reps=50)
    assert sw.reps == 2 and sw.rows[0]["bound"] == pytest.approx(0.5 * sw.rows[1]["bound"])  # linear in eta
    assert all(row["max"] <= row["bound"] for row in sw.rows)
    r = St.stability("dpgdc", ds, loss, params=p, reps=50)
    assert r.reps == 2 and any("deterministic" in s for s in r.notes)
    d = A.default_setting("dp-epoch-gd", {"n": 20, "T": 20})
    r = St.stability("dp-epoch-gd", *d[:2], params=d[2], reps=10, seed=0, neighbour="adversarial")
    i = X.epoch_stability(n=20, eta=d[2]["eta"], G=1.0, index=r.index)[1]
    assert any(f"block D_{i}" in s for s in r.notes)
    assert r.sigma_justified is not None and math.isfinite(r.sigma_justified)
