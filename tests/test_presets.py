"""The dashboard's presets of paper experiments and ``python -m dpviz reproduce`` share one definition.

Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1: n = 5000, T = 1000, eta = 0.01, delta = 1/n^2, beta searched in
{0.0001, ..., 0.9999} for the smallest sigma^2 = 14 G^2 T / (beta n^2 eps) (log(1/delta)/((1 - beta) eps) + 1)
(Algorithm 1, line 5).  The preset (clicked in the gallery, run on the Simulate page) and ``reproduce`` must use the
same sigma, eta, T, domain, grid and seed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.studies import experiments, reproduce
from dpviz.foundation import urlstate

APP = Path(__file__).resolve().parent.parent / "app.py"
PRESET_FILES = {json.loads(p.read_text())["experiment"]: p.stem
                for p in sorted((APP.parent / "assets" / "presets").glob("*.json"))
                if "experiment" in json.loads(p.read_text())}


def test_every_experiment_with_a_preset_has_a_gallery_file_and_a_valid_view():
    assert set(PRESET_FILES) == {e.id for e in experiments.with_presets()}
    for e in experiments.with_presets():
        view = e.preset_view()
        assert view.pop("page") in ("simulate", "calibrate")
        for k, val in view.items():
            assert urlstate.validate(k, val) == val
        assert e.preset_text()


def test_hand_computed_sigma_of_the_papers_settings():
    # sigma^2 = c / beta * (B - beta) / (1 - beta) with A = log(1/delta) / eps, B = A + 1 and c = 14 G^2 T/(n^2 eps);
    # d/dbeta = 0 gives beta^2 - 2 B beta + B = 0, beta* = B - sqrt(B^2 - B).
    # Fig. 1, eps = 0.5, G = 1.5 (||x|| = 1, |y| <= 0.5, ||w|| <= R = 1: |<w, x> - y| ||x|| <= 1.5):
    #   log(1/delta) = 2 log 5000 = 17.034386; A = 34.068773; B = 35.068773; B^2 - B = 1194.750051;
    #   beta* = 35.068773 - 34.565157 = 0.503616; (B - beta*)/(beta*(1 - beta*)) = 34.565157 / 0.249988 = 138.26786;
    #   c = 14 * 2.25 * 1000 / (25e6 * 0.5) = 0.00252; sigma^2 = 0.348435; sigma = 0.590284.
    # (With G = 2, the loss's bound for |y| <= 1, sigma would be 0.590284 * 2 / 1.5 = 0.787: the old preset.)
    # Fig. 2, eps = 1.5, G = 1 (logistic: ||grad|| <= ||x|| = 1): A = 11.356258, B = 12.356258,
    #   beta* = 12.356258 - 11.845710 = 0.510548; ratio = 11.845710 / 0.249891 = 47.403935;
    #   c = 14 * 1000 / (25e6 * 1.5) = 3.733333e-4; sigma^2 = 0.0176975; sigma = 0.133032.
    s1, b1 = reproduce.wang_sigma(n=5000, eps=0.5, delta=1 / 5000**2, T=1000, G=1.5)
    assert s1 == pytest.approx(0.590284, abs=2e-6) and b1 == pytest.approx(0.5036, abs=1e-4)
    s2, _ = reproduce.wang_sigma(n=5000, eps=1.5, delta=1 / 5000**2, T=1000, G=1.0)
    assert s2 == pytest.approx(0.133032, abs=2e-6)
    # the definitions hold the paper's settings: Section 5.1's grids, no projection for the logistic loss
    f1, f2 = experiments.get("wang-lownoise-fig1"), experiments.get("wang-lownoise-fig2")
    assert f1.grid["eps"] == (0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5) and f1.grid["kappa"] == (0.0, 0.1, 0.15)
    assert f2.grid["eps"] == (1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6) and f2.grid["kappa"] == (0.0, 0.4, 0.6)
    assert (f1.fixed["G"], f1.fixed["R"], f2.fixed["G"]) == (1.5, 1.0, 1.0) and "R" not in f2.fixed
    for f in (f1, f2):
        assert (f.fixed["n"], f.fixed["T"], f.fixed["eta"]) == (5000, 1000, 0.01)


@pytest.mark.parametrize("exp_id", ["wang-lownoise-fig1", "wang-lownoise-fig2"])
def test_paper_rule_presets_are_labelled_not_private_and_are_not(exp_id):
    # the preset text, the experiment's title and the Simulate page's curve label call the paper's noise rule "not
    # private here"; check it at every eps of the grid with dp_accounting's PLD accountant called directly
    # (Poisson sampling q = 1/n, add/remove, sensitivity G: the most favourable convention), delta = 1/n^2
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    e = experiments.get(exp_id)
    assert "not private here" in e.what and "not (ε, δ)-DP" in e.preset_text()
    f = e.fixed
    n, T = f["n"], f["T"]
    for eps in e.grid["eps"]:
        sigma, _ = reproduce.wang_sigma(n=n, eps=eps, delta=1 / n**2, T=T, G=f["G"])
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-2)
        acc.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(1 / n, dp_accounting.GaussianDpEvent(sigma / f["G"])), T))
        assert acc.get_epsilon(1 / n**2) > eps  # the target eps is not met


@pytest.mark.slow
@pytest.mark.parametrize("exp_id, hand", [("wang-lownoise-fig1", (0.5, 0.590284)),
                                          ("wang-lownoise-fig2", (1.5, 0.133032))])
def test_preset_on_the_simulate_page_uses_the_sigma_eta_T_of_reproduce(exp_id, hand, tmp_path):
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    at.button(key=f"preset_{PRESET_FILES[exp_id]}").click().run()
    view = dict(at.session_state["_view"])
    view["reps"] = 2  # fewer repetitions: sigma, eta, T do not depend on them
    at = AppTest.from_file(str(APP), default_timeout=90)
    for k, val in urlstate.encode(view).items():
        at.query_params[k] = val
    at.run()
    at.switch_page("pages/simulate.py").run()
    run = [b for b in at.button if b.label == "Run simulation"]
    if not at.dataframe:  # not run on opening (estimate above the auto-run limit)
        run[0].click().run()
    assert not at.exception and not at.error
    assert any(f"python -m dpviz reproduce {exp_id}" in i.value for i in at.info)  # the page names the experiment
    page = at.dataframe[-1].value
    dp = page[page.algorithm == "dpsgd-rdp"].groupby(["kappa", "eps"])[["sigma", "T", "eta", "n", "delta"]].first()

    out = reproduce.reproduce(exp_id, reps=1, seed=int(view["seed"]), out_dir=tmp_path)
    cli = out["summary"]
    cli = cli[cli.method == "dp-paper-rule"].set_index(["kappa", "eps"])
    setup = {"R": None, **experiments.get(exp_id).fixed}  # the one definition reproduce runs
    assert sorted(dp.index) == sorted(cli.index)  # same grid of eps and kappa
    for key, row in dp.iterrows():
        assert row["sigma"] == pytest.approx(cli.loc[key, "sigma"], rel=1e-6)
        assert (row["T"], row["eta"], row["n"]) == (setup["T"], setup["eta"], setup["n"])
        assert row["delta"] == pytest.approx(1 / setup["n"] ** 2)
    eps0, sigma0 = hand
    assert dp.loc[(0.0, eps0), "sigma"] == pytest.approx(sigma0, abs=2e-6)
    # the same domain: projection onto R exactly when reproduce projects
    assert view["sim_project"] == (setup["R"] is not None)
    if setup["R"] is not None:
        assert view["R"] == setup["R"]
    assert view["seed"] == 0 and not view["sim_G_auto"] and view["G"] == setup["G"]
    # the page names the DP-SGD curves as reproduce does: the paper's noise rule, not private here
    labels = {reproduce.noise_rule_label(r) for _k, r in at.session_state["_sim"]["results"]
              if r.algorithm == "dpsgd-rdp"}
    assert labels == {", paper's noise rule (not private here)"}


def test_lemma13_preset_on_the_calibrate_page_is_the_experiments_setting():
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog
    from dpviz.theory.papers.wang_nonsmooth import lemma13_eps_threshold

    e = experiments.get("wang-nonsmooth-fig1")
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.button(key=f"preset_{PRESET_FILES[e.id]}").click().run()
    at.switch_page("pages/calibrate.py").run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    # the experiment's runner (dpviz.studies.experiments._region) calibrates each (n, eps) with T = n and delta = 1/n^2
    n, eps = 10000, 0.9
    cal = catalog.calibrate("dpsgd-rdp", n=n, eps=eps, delta=1.0 / n**2, T=n, eta=0.1, accountant_extra=False,
                            **e.fixed)
    assert cal.feasible
    assert metrics["σ (Gaussian noise)"] == ui.fmt(cal.sigma) and metrics["T"] == ui.fmt(n)
    # Lemma 13 at n = 10^4: n^{1/3} = 21.5443; (7 * 20.5443 + 4 * 10^4 * log(10^4) + 7) / (2 * 10^4 * 20.5443)
    #   = (143.81 + 368413.6 + 7) / 410886.9 = 0.89700 <= eps = 0.9: the preset's point is in the shaded region
    assert lemma13_eps_threshold(n) == pytest.approx(0.89700, abs=1e-5)
