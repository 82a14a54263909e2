"""Stability as a function of n, eta and alpha (issue 11): bounds per grid value by hand, coupling, CLI, page."""

import json
import math

import numpy as np
import pytest

from dpviz.labs import canary_audit as A
from dpviz_ui import audit_page as ap
from dpviz.labs import stability as St
from dpviz.cli.commands import main


def _kappa(ds):
    return float(np.max(np.linalg.norm(ds.X, axis=1)))


def test_gradient_sensitivity_over_alpha_by_hand_and_never_exceeded():
    ds, loss, p = A.default_setting("dpsgd-rdp", {"n": 60, "T": 40, "noise_rule": "experiment"})
    r = St.stability_sweep("dpsgd-rdp", ds, loss, over="alpha", values=[0.5, 1.0], params=p, reps=40, seed=3)
    assert r.loss == "q-regression" and r.deterministic
    k = _kappa(ds)
    # q-regression |y - <w,x>|^q, q = 1 + alpha: G = q k (k R + 1)^(q - 1) (R = 1); the bound is 2G.
    # alpha = 0.5: 2 * 1.5 k (k + 1)^0.5 = 3 k sqrt(k + 1);  alpha = 1: 2 * 2 k (k + 1) = 4 k (k + 1)
    assert r.rows[0]["bound"] == pytest.approx(3 * k * math.sqrt(k + 1))
    assert r.rows[1]["bound"] == pytest.approx(4 * k * (k + 1))
    for row in r.rows:
        assert row["max"] <= row["bound"] and row["exceed_fraction"] == 0.0
        assert row["ratio"] == pytest.approx(row["bound"] / row["max"])
        assert row["q50"] <= row["q95"] <= row["q99"] <= row["max"]


def test_sweep_over_eta_is_coupled_vectorised_and_matches_single_runs():
    ds, loss, p = A.default_setting("pairwise-sgd", {"n": 30, "T": 40})
    r = St.stability_sweep("pairwise-sgd", ds, loss, over="eta", values=[0.05, 0.1], params=p, reps=30, seed=2,
                           neighbour="adversarial")
    # Yang, Lei, Lyu & Ying, Theorem 1, eq. (9): Delta_T = 2 sqrt(e) eta G sqrt(T + 3 T^2 ln^2(eT) ln^2(1/g)/n^2)
    # is linear in eta, so halving eta halves the bound (T = 40 >= n = 30)
    assert r.rows[0]["bound"] == pytest.approx(0.5 * r.rows[1]["bound"])
    G = 2 * _kappa(ds)  # AUC hinge: G = 2 kappa
    T, n, g = 40, 30, 0.05
    assert r.rows[1]["bound"] == pytest.approx(
        2 * math.sqrt(math.e) * 0.1 * G * math.sqrt(T + 3 * T**2 * math.log(math.e * T)**2 * math.log(1 / g)**2 / n**2))
    # grid value k equals stability() at that value: same coupling, same seed
    one = St.stability("pairwise-sgd", ds, loss, params={**p, "eta": 0.05}, reps=30, seed=2, neighbour="adversarial")
    assert r.rows[0]["max"] == pytest.approx(one.empirical["max"], rel=1e-12)
    assert r.rows[0]["q95"] == pytest.approx(one.empirical["q95"], rel=1e-12)
    again = St.stability_sweep("pairwise-sgd", ds, loss, over="eta", values=[0.05, 0.1], params=p, reps=30, seed=2,
                               neighbour="adversarial")
    assert again.to_list() == r.to_list()
    for row in r.rows:
        assert row["exceed_fraction"] <= 0.05


def test_sweep_over_n_and_bad_grids():
    ds, loss, p = A.default_setting("sgd", {"n": 50, "T": 50}, n_data=200)
    assert ds.n == 200
    r = St.stability_sweep("sgd", ds, loss, over="n", values=[200, 50, 100], params=p, reps=20, seed=0)
    assert [row["n"] for row in r.rows] == [50, 100, 200] and all(row["T"] == 50 for row in r.rows)
    assert all(row["max"] <= row["bound"] for row in r.rows)
    with pytest.raises(ValueError, match="exceeds"):
        St.stability_sweep("sgd", ds, loss, over="n", values=[300], params=p, reps=5)
    for over, vals, msg in (("T", [1], "varies one of"), ("alpha", [0.0], r"\(0, 1\]"), ("n", [5.5], "whole"),
                            ("eta", [0.1, 0.1], "distinct"), ("eta", [], "at least one"),
                            ("eta", list(range(1, 14)), "at most 12")):
        with pytest.raises(ValueError, match=msg):
            St.stability_sweep("sgd", ds, loss, over=over, values=vals, params=p, reps=5)
    with pytest.raises(ValueError, match="Hölder"):
        St.alpha_loss("metric-hinge", "classification")
    with pytest.raises(ValueError, match="cap"):
        St.stability_sweep("sgd", ds, loss, over="eta", values=[0.1, 0.2], params=p, reps=5, max_work=10)


def test_cli_sweep_keeps_the_contract_and_adds_sweep(capsys):
    code = main(["stability", "--algorithm", "sgd", "--n", "40", "--reps", "20", "--seed", "1", "--over", "eta",
                 "--values", "0.05,0.1", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    d = json.loads(out)
    assert list(d) == ["algorithm", "theorem", "bound", "empirical", "neighbour", "seconds", "sweep"]
    assert [row["value"] for row in d["sweep"]] == [0.05, 0.1]
    assert d["sweep"][1]["bound"] == pytest.approx(d["bound"])  # eta = 0.1 is the base setting
    code = main(["stability", "--algorithm", "sgd", "--n", "40", "--reps", "20", "--json"])
    assert code == 0 and "sweep" not in json.loads(capsys.readouterr()[0])
    for argv in (["stability", "--algorithm", "sgd", "--reps", "5", "--over", "n"],
                 ["stability", "--algorithm", "sgd", "--reps", "5", "--over", "alpha", "--values", "0,1"],
                 ["stability", "--algorithm", "sgd", "--reps", "5", "--over", "n", "--values", "20,x"],
                 ["stability", "--algorithm", "sgd", "--reps", "5", "--over", "n", "--values", "9000"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, argv


def test_page_values_parameters_are_validated():
    state, problems = ap.state_from_query({"aud_over": "alpha", "aud_valpha": "1, 0.5,0.5", "aud_vn": "5,x",
                                           "aud_veta": "0.2 0.1"})
    assert state["aud_over"] == "alpha" and state["aud_valpha"] == "0.5,1" and state["aud_veta"] == "0.1,0.2"
    assert state["aud_vn"] == ap.DEFAULTS["aud_vn"] and len(problems) == 1
    enc = ap.encode(dict(ap.DEFAULTS, aud_over="n", aud_vn="400, 50,100,200", aud_veta="oops"))
    assert enc == {"aud_over": "n"}  # same grid as the default once sorted; an invalid list is not put in the link
    assert ap.parse_values("aud_vn", "30;10") == [10, 30]
    with pytest.raises(ValueError, match="whole"):
        ap.parse_values("aud_vn", "10.5")
