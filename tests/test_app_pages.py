"""AppTest checks of the dashboard pages (default run, widget changes, figure data, presets, URL state)."""

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.theory import catalog

TIMEOUT = 30
APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _run(page=None, query=None):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if query:
        for k, v in query.items():
            at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def _figs(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_home_runs_and_lists_presets():
    at = _run()
    assert not at.exception
    assert len(at.button) >= 5


def test_calibrate_default_and_figure_matches_dpviz():
    at = _run("pages/calibrate.py")
    assert not at.exception
    figs = _figs(at)
    assert figs, "sigma vs eps figure drawn"
    alg = at.selectbox[0].value
    trace = [f for f in figs if "Noise level" in f["layout"]["title"]["text"]][0]["data"][0]
    # point 0: eps = 1e-2 on the log grid; recompute with the catalogue at the default parameters
    x0 = trace["x"][0]
    assert x0 == pytest.approx(0.01)
    params = {"n": 1000, "d": 10, "eps": x0, "delta": 1e-6, "T": 1000, "eta": 0.01, "G": 1.0, "L": 1.0, "M": 1.0,
              "R": 1.0, "alpha": 0.5, "mu": 0.1, "c": 1.0}
    first = catalog.algorithms()
    cal = catalog.calibrate([a for a in first if a.calibrate is not None][0].id, **params)
    expected = cal.sigma if cal.sigma is not None else cal.laplace_scale
    if cal.feasible:
        assert trace["y"][0] == pytest.approx(expected)
    assert alg


def test_calibrate_widget_change_updates_url_and_bad_input_no_exception():
    at = _run("pages/calibrate.py")
    before = [m.value for m in at.metric]
    at.text_input(key="w_n").set_value("50000").run()
    assert not at.exception
    assert at.query_params["n"] == ["50000"] or at.query_params["n"] == "50000"
    after = [m.value for m in at.metric]
    assert before != after


def test_bounds_page_runs_and_tables_shown():
    at = _run("pages/bounds.py")
    assert not at.exception
    assert _figs(at)
    # one terms table for the (one) default theorem, its explicit terms (Theorem 3 (a) of Wang, Lei, Ying & Zhou has
    # explicit constants), then every comparison table of the papers
    assert len(at.dataframe) == 2 + len(catalog.tables())
    terms = at.dataframe[0].value
    assert list(terms.columns) == ["term", "value", "rate exponent of n", "rate exponent of ε"]
    assert list(at.dataframe[1].value.columns) == ["explicit term", "value"]


def test_bounds_sweep_eps_figure_slope():
    at = _run("pages/bounds.py", query={"sweep": "eps"})
    assert not at.exception
    figs = _figs(at)
    assert any("slope" in tr.get("name", "") for f in figs for tr in f["data"])


def _open_link(page, query):
    """A first visit that follows a shared link straight to ``page``."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    return at.switch_page(page).run()


@pytest.mark.parametrize("query, key, why", [
    ({"eps_grid": "1,abc"}, "eps_grid", "'abc' is not a number"),
    ({"eps_grid": "1,1e9"}, "eps_grid", "between"),
    ({"dataset": "wang-least-squares", "sim_loss": "least-squares", "kappas": "abc"}, "kappas",
     "'abc' is not a number"),
])
def test_simulate_link_with_a_bad_list_shows_the_box_and_one_error(query, key, why):
    # '/simulate?eps_grid=1,abc' showed only "could not convert string to float: 'abc'", without the box to fix it
    at = _open_link("pages/simulate.py", query)
    assert not at.exception
    assert at.text_input(key=f"w_{key}").value == query[key].replace(",", ", ")
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and why in errors[0] and "could not convert" not in errors[0]
    assert not at.metric and not _figs(at)
    # fixing the box brings the page back
    at.text_input(key=f"w_{key}").input("1, 2" if key == "eps_grid" else "0").run()
    assert not at.error and not at.exception


def test_simulate_no_better_than_trivial_names_the_points_that_ran():
    # n = 3: DP-SGD's calibration is infeasible at ε = 1 .. 8, so only ε = 16 runs; the page said "at every grid
    # point the private runs are no better than the trivial predictor"
    at = _open_link("pages/simulate.py", {"n": "3"})
    for b in at.button:
        if b.label == "Run simulation":
            b.click().run()
            break
    assert not at.exception
    texts = [t.value for kind in (at.warning, at.markdown, at.caption, at.info) for t in kind]
    said = [t for t in texts if "no better than the trivial predictor" in t]
    assert said and all("every grid point" not in t for t in said) and any("ε = 16" in t for t in said)
    assert not any("None" in str(df.value.to_dict()) for df in at.dataframe[:1])


def test_simulate_an_algorithm_that_cannot_run_is_named_once_with_the_pages_own_fix():
    # DPGDSC on a loss that is not strongly convex: the error named the algorithm twice and advised a Python call
    # (get_loss('auc-logistic', l2=1e-3)); the page has an L2 box for that
    at = _open_link("pages/simulate.py", {"dataset": "two-class", "sim_loss": "auc-logistic",
                                          "sim_algs": "dpgd-sc,pairwise-sgd-output", "l2": "0"})
    assert not at.exception
    name = catalog.get_algorithm("dpgd-sc").name
    err = at.error[0].value.replace("\\", "")
    assert err.count(name) == 1
    assert any("set the L2 regulariser λ" in i.value and f"remove {name}" in i.value for i in at.info)


def test_url_parameters_round_trip_into_widgets():
    at = _open_link("pages/calibrate.py", {"n": "12345", "eps": "0.25", "T": "not-a-number"})
    assert not at.exception
    assert at.text_input(key="w_n").value == "12345"
    assert at.text_input(key="w_eps").value == "0.25"
    assert any("T must be a whole number" in w.value for w in at.warning)


def test_bad_link_parameters_give_one_escaped_notice():
    bad = {"eps": "[Fix here](http://evil.invalid/phish)", "n": "![t](http://evil.invalid/pixel.png)", "T": "-3",
           "alpha": "7", "log10_delta": "x", "algorithm": "<script>", "theorems": "a b", "zzz": "1"}
    at = _open_link("pages/calibrate.py", bad)
    assert not at.exception
    assert len(at.warning) == 1  # one notice, not one per parameter per call
    text = at.warning[0].value
    for name in ("eps", "n", "T", "alpha", "log10_delta", "algorithm", "theorems", "zzz"):
        assert name.replace("_", "\\_") in text  # Markdown-escaped, shown as log10_delta
    # the URL's text is shown literally: no Markdown link or image can be formed from it
    assert "](http" not in text and "\\](http" not in text
    assert "\\[Fix here\\]\\(http\\:" in text


def test_preset_loads():
    at = _run()
    at.button(key="preset_3_wang_nonsmooth_lemma13").click().run()
    assert not at.exception
    assert at.session_state["_view"]["alpha"] == 0.5
    assert at.session_state["_view"]["n"] == 10000


def test_simulate_page_runs_and_plots_engine_result():
    from dpviz.engine import data as D, simulate as S

    at = _run("pages/simulate.py", query={"T": "50", "n": "200", "dataset": "wang-least-squares",
                                          "sim_loss": "least-squares", "sim_schedule": "manual"})
    assert not at.exception
    at.multiselect(key="w_sim_algs").set_value(["dpsgd-output"]).run()
    [b for b in at.button if b.label == "Run simulation"][0].click().run()
    assert not at.exception and not at.error
    figs = _figs(at)
    assert figs
    mean_trace = [t for t in figs[0]["data"] if t.get("mode") == "lines+markers"][0]  # the empirical mean
    ds = D.load_dataset("wang-least-squares", n=200)
    res = S.simulate("dpsgd-output", ds, "least-squares", grid={"eps": [1.0, 2.0, 4.0, 8.0, 16.0]}, reps=20, seed=0,
                     params={"T": 50, "eta": 0.01, "R": 1.0, "mu": 0.1, "n": 200})  # δ = 1/n² by default
    assert mean_trace["y"] == pytest.approx(list(res.summary()["mean"]), rel=1e-9)


def test_theorems_bounding_the_population_risk_by_hand():
    # what each paper's theorem bounds (the papers' statements): Wang, Lei, Ying & Zhang Thm 7 is uniform argument
    # stability, Thms 9-10 the excess population risk; Kang, Li, Liu & Wang Thms 1, 6 and Remark 3 the optimality
    # gap, Thm 2 the generalization gap, Thm 4 the influence-function approximation error, Thms 3, 7 and Remark 4
    # the excess population risk; Yang, Lei, Lyu & Ying Thm 1 uniform argument stability
    assert [t.id for t in catalog.theorems_bounding("dpsgd-output")] == ["wang-nonsmooth-thm9", "wang-nonsmooth-thm10"]
    assert [t.id for t in catalog.theorems_bounding("pidp-sgd")] == ["kang-pidp-thm7"]
    assert [t.id for t in catalog.theorems_bounding("dpsgd-pl")] == ["kang-pidp-thm3", "kang-pidp-remark4"]
    assert "yang-pairwise-thm1" not in [t.id for t in catalog.theorems_bounding("pairwise-sgd")]
    with pytest.raises(ValueError, match="unknown algorithm"):
        catalog.theorems_bounding("no-such-algorithm")


def test_simulate_compares_only_with_population_risk_theorems():
    # DP-SGD-Output was drawn against Wang, Lei, Ying & Zhang's Theorem 7 (a stability bound) and PIDP-SGD against
    # Kang, Li, Liu & Wang's Theorem 4 (the influence-function approximation error): neither bounds the excess
    # population risk the run measures
    at = _run("pages/simulate.py", query={"T": "50", "n": "200", "dataset": "wang-least-squares",
                                          "sim_loss": "least-squares", "sim_algs": "dpsgd-output,pidp-sgd",
                                          "reps": "3"})
    if any(b.label == "Run simulation" for b in at.button):
        [b for b in at.button if b.label == "Run simulation"][0].click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "theory (" in text
    assert "Wang, Lei, Ying & Zhang, Theorem 7" not in text  # no stability bound as 'the theory'
    assert "Kang, Li, Liu & Wang, Theorem 4" not in text
    assert "Wang, Lei, Ying & Zhang, Theorem 9" in text or "Wang, Lei, Ying & Zhang, Theorem 10" in text
    assert "Kang, Li, Liu & Wang, Theorem 7" in text
    assert "None" not in str(at.dataframe[0].value.to_dict())


def test_calibrate_infeasible_shows_reason_not_exception():
    at = _run("pages/calibrate.py", query={"algorithm": "dpsgd-rdp", "n": "20", "eps": "0.01"})
    assert not at.exception
    assert any(w.value.startswith("Not private at these settings") for w in at.error)
    assert not any(s.value.startswith("Private") for s in at.success)
    # the fix names the smallest feasible eps (Theorem 2 of Wang, Lei, Ying & Zhou), and it really is feasible
    fix = [i.value for i in at.info if i.value.startswith("What would make it private")][0]
    assert "increase ε" in fix


def test_bounds_says_when_the_algorithm_cannot_be_private():
    # ε = 0.001, n = 1000: Algorithm 1 of Wang, Lei, Ying & Zhou cannot be calibrated (Theorem 2's conditions need
    # ε >= 0.9337), yet Theorem 3 (a)'s rate was shown as "Bound at the current parameters: 11.79" with no warning
    at = _open_link("pages/bounds.py", {"theorems": "wang-lownoise-thm3a", "eps": "0.001"})
    assert not at.exception
    warned = [w.value for w in at.warning if "describes no private run" in w.value]
    assert len(warned) == 1 and "cannot be made private" in warned[0] and "0.9337" in warned[0]
    at = _open_link("pages/bounds.py", {"theorems": "wang-lownoise-thm3a"})  # ε = 1: private, no warning
    assert not [w.value for w in at.warning if "describes no private run" in w.value]
    # Kang, Li, Liu & Wang's DP-SGD-PL is private at ε = 1 (its c is calibrated): the sidebar's c, the free
    # constant of the rates, is not its calibration constant (the warning said "use c >= 61.13")
    at = _open_link("pages/bounds.py", {"theorems": "kang-pidp-thm1"})
    assert not [w.value for w in at.warning if "describes no private run" in w.value]


def test_bounds_empty_selection_warns():
    at = _run("pages/bounds.py")
    at.multiselect[0].set_value([]).run()
    assert not at.exception
    assert any("at least one theorem" in w.value for w in at.warning)


def test_feasibility_map_matches_catalog():
    at = _run("pages/calibrate.py", query={"show_map": "true"})
    heat = [f for f in _figs(at) if f["data"][0]["type"] == "heatmap"][0]
    alg = at.selectbox[0].value
    base = dict(d=10, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1, c=1.0)
    for i, j in [(0, 0), (len(heat["data"][0]["y"]) - 1, len(heat["data"][0]["x"]) - 1)]:
        n, e = heat["data"][0]["x"][j], heat["data"][0]["y"][i]
        cal = catalog.calibrate(alg, **{**base, "n": n, "eps": e, "T": n, "delta": 1.0 / n**2})
        assert heat["data"][0]["z"][i][j] == int(cal.feasible)
    # Lemma 13 boundary: at n = 1000, (7*(10-1) + 4*1000*log(1000) + 7) / (2*1000*(10-1)) = 1.5391...
    lemma = heat["data"][1]
    assert lemma["name"].startswith("Wang, Lei, Ying & Zhang, Lemma 13")
    assert heat["data"][2]["name"] == "current (n, ε)" and heat["data"][2]["x"] == [1000]
    from dpviz.theory.papers import wang_nonsmooth as wn
    assert wn.lemma13_eps_threshold(1000) == pytest.approx((7 * 9 + 4 * 1000 * math.log(1000) + 7) / (2 * 1000 * 9))


PRESETS = sorted((APP.parent / "assets" / "presets").glob("*.json"))


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_loads_its_page_and_state(path):
    preset = json.loads(path.read_text())
    if "experiment" in preset:  # a paper experiment: the view comes from its definition in dpviz/studies/experiments.py
        from dpviz.studies import experiments

        state = experiments.get(preset["experiment"]).preset_view()
        page = state.pop("page")
    else:
        state, page = preset["state"], preset["page"]
    at = _run()
    assert not any("could not be loaded" in w.value for w in at.warning)
    at.button(key=f"preset_{path.stem}").click().run()
    assert not at.exception
    view = at.session_state["_view"]
    for k, val in state.items():
        assert view[k] == val, k
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception and not at.error


def test_loss_sets_the_constants_used_by_the_calibration():
    # hinge loss max(0, 1 - y<w,x>) with kappa = sup ||x|| = 1 on ||w|| <= R = 1: G = kappa = 1, alpha = 0,
    # M = ||d f(0; z)|| = kappa = 1, Hölder constant (alpha = 0) L = kappa = 1
    at = _run("pages/calibrate.py", query={"algorithm": "dpsgd-output", "loss": "hinge", "n": "1000", "T": "1000",
                                           "eta": "0.01"})
    assert not at.exception
    assert any("G = 1" in c.value and "α = 0" in c.value for c in at.caption)
    sigma = [m for m in at.metric if m.label.startswith("σ")][0].value
    cal = catalog.calibrate("dpsgd-output", n=1000, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0,
                            alpha=0.0, R=1.0)
    assert float(sigma) == pytest.approx(cal.sigma, rel=1e-3)
    # overriding brings back the hand-set constants in the sidebar
    over = [c for c in at.checkbox if c.label.startswith("Override")][0]
    over.check().run()
    assert not at.exception
    assert at.text_input(key="w_G") is not None


def test_bounds_terms_figure_matches_catalog():
    at = _run("pages/bounds.py", query={"theorems": "wang-lownoise-thm3a", "sweep": "n"})
    assert not at.exception
    fig = [f for f in _figs(at) if "terms vs n" in f["layout"]["title"]["text"]][0]
    n0 = fig["data"][0]["x"][0]
    assert n0 == 100
    # delta = 1/n^2 follows n along the sweep (the "δ = 1/n²" box is ticked by default)
    params = dict(n=n0, d=10, eps=1.0, delta=1.0 / n0**2, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1,
                  c=1.0, kappa=1.0)
    res = catalog.bound("wang-lownoise-thm3a", **params)
    for trace, term in zip(fig["data"], res.terms):
        assert trace["name"].startswith(term.name)
        assert trace["y"][0] == pytest.approx(term.value, rel=1e-9)


GENERIC_ERROR = "Something went wrong"


@pytest.mark.parametrize("alg", [a.id for a in catalog.algorithms() if a.calibrate is not None])
def test_calibrate_page_runs_for_every_algorithm(alg):
    at = _run("pages/calibrate.py", query={"algorithm": alg})
    assert not at.exception
    assert not any(GENERIC_ERROR in e.value for e in at.error), [e.value for e in at.error]
    assert at.selectbox[0].value == alg
    assert _figs(at), "at least the sigma-vs-eps figure"


@pytest.mark.parametrize("thm", [t.id for t in catalog.theorems()])
def test_bounds_page_runs_for_every_theorem(thm):
    at = _run("pages/bounds.py", query={"theorems": thm})
    assert not at.exception
    assert not any(GENERIC_ERROR in e.value for e in at.error), [e.value for e in at.error]


def test_schedule_from_theorem_is_in_the_url_and_sets_T_and_eta():
    # Wang, Lei, Ying & Zhou Theorem 3 (a) prescribes T = n (the page reads it from the catalogue's bound)
    at = _run("pages/calibrate.py", query={"algorithm": "dpsgd-rdp", "schedule": "wang-lownoise-thm3a", "n": "2000"})
    assert not at.exception
    b = catalog.bound("wang-lownoise-thm3a", n=2000, d=10, eps=1.0, delta=1 / 2000**2, T=1000, eta=0.01, G=1.0,
                      L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1, c=1.0, kappa=1.0)
    assert b.T == 2000
    T_metric = [m for m in at.metric if m.label == "T"][0]
    assert T_metric.value == "2000"
    assert at.query_params["schedule"] in (["wang-lownoise-thm3a"], "wang-lownoise-thm3a")


def test_simulate_refuses_a_huge_data_set_before_building_it():
    import time as _t

    t0 = _t.perf_counter()
    at = _open_link("pages/simulate.py", {"n": "10000000"})
    assert not at.exception
    assert _t.perf_counter() - t0 < 20  # building 10^7 rows took 20 s and 5.4 GB before
    err = " ".join(e.value for e in at.error)
    assert "GB of memory" in err and "Nothing was built or run" in err
    assert not at.get("plotly_chart")


def test_markdown_in_a_csv_error_is_shown_literally():
    from dpviz_ui import helpers as ui

    # a zero-width space after "http:" stops GFM's autolink literal too
    assert ui.plain("[Fix here](http://evil.invalid/phish)") == "\\[Fix here\\]\\(http\\:\u200b//evil\\.invalid/phish\\)"
    assert "!\\[" not in ui.plain("x") and ui.plain("![t](u)").startswith("\\!\\[")


def test_bounds_consistent_constants_use_the_implied_c():
    at = _open_link("pages/bounds.py", {"theorems": "kang-pidp-thm1"})
    before = [m.value for m in at.markdown if m.value.startswith("Bound at")][0]
    at.checkbox(key="w_consistent").check().run()
    assert not at.exception and at.query_params.get("consistent") in ("True", ["True"])
    after = [m.value for m in at.markdown if m.value.startswith("Bound at")][0]
    assert before != after
    assert any("c_implied" in c.value for c in at.caption)


def test_fig2_preset_plots_the_misclassification_rate():
    at = _run()
    at.button(key="preset_2_wang_lownoise_fig2").click().run()
    assert at.session_state["_view"]["plot_value"] == "metric"


@pytest.mark.parametrize("thm, query", [("wang-lownoise-thm4a", {}), ("wang-lownoise-thm4b", {}),
                                        ("wang-lownoise-thm7a", {"n": "10000"}), ("wang-lownoise-thm7b", {"n": "10000"})])
def test_bounds_page_shows_explicit_holder_bounds(thm, query):
    # Wang, Lei, Ying & Zhou Theorems 4 / 7 with explicit constants: the page shows the explicit total at the
    # theorem's own schedule (not the sidebar's T, eta), with F(w*) from its own input, draws the explicit totals and
    # shows the recorded readings of the proof
    at = _run("pages/bounds.py", query={"theorems": thm, "bound_kind": "explicit", **query})
    assert not at.exception
    n = int(query.get("n", 1000))
    shown = [m.value for m in at.markdown if m.value.startswith("With the paper's explicit constants")]
    assert shown, [e.value for e in at.caption]
    params = dict(n=n, d=10, eps=1.0, delta=1.0 / n**2, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, c=1.0)
    if thm.endswith("a"):
        params["Fstar"] = 0.1  # the page's default F(w*)
        assert at.text_input(key="w_Fstar").value == "0.1"
    ex = catalog.bound(thm, explicit=True, **params)
    assert shown[0].split("**")[1] == f"{ex.total:.4g}"
    fig = [f for f in _figs(at) if f["layout"]["title"]["text"] == "Explicit bounds vs n"][0]
    ys = [y for y in fig["data"][0]["y"] if y is not None]
    assert ys and fig["data"][0]["name"].startswith("Wang, Lei, Ying & Zhou")
    assert any("Young's inequality" in w.value for w in at.warning)


def test_bounds_page_flags_different_quantities_and_only_notes_different_guarantees():
    # same quantity (excess population risk), in expectation (Wang, Lei, Ying & Zhou Theorem 3 (a)) vs with
    # probability 1 - gamma (Yang, Lei, Lyu & Ying Theorem 2): a note, no "different quantities" warning
    at = _run("pages/bounds.py", query={"theorems": "wang-lownoise-thm3a,yang-pairwise-thm2"})
    assert not at.exception
    assert not any("Different quantities" in w.value for w in at.warning)
    assert any("Different kinds of guarantee" in i.value for i in at.info)
    fig = [f for f in _figs(at) if f["layout"]["title"]["text"] == "Rates vs n"][0]
    names = [t["name"] for t in fig["data"]]
    assert any("[excess population risk, in expectation]" in nm for nm in names)
    assert any("[excess population risk, w.p. 1 − γ]" in nm for nm in names)
    # excess empirical risk (Kang et al. Theorem 1) beside excess population risk (Theorem 3): flagged
    at = _run("pages/bounds.py", query={"theorems": "kang-pidp-thm1,kang-pidp-thm3"})
    assert not at.exception
    assert any("Different quantities" in w.value and "excess empirical risk" in w.value for w in at.warning)
    assert not any("Different kinds of guarantee" in i.value for i in at.info)
    assert any("in expectation" in c.value and "excess empirical risk" in c.value for c in at.caption)


def test_feasibility_map_over_its_budget_says_so_once_and_is_not_recomputed(monkeypatch):
    from dpviz_ui.helpers import cache as dpviz_ui  # the module that reads CURVE_BUDGET (the package re-exports it)

    calls = []
    real = catalog.calibrate
    monkeypatch.setattr(catalog, "calibrate", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    monkeypatch.setattr(dpviz_ui, "CURVE_BUDGET", 0.01)  # the map's budget (4x) runs out after a few points
    dpviz_ui.cached_feasibility_grid.clear()
    at = _run("pages/calibrate.py", {"show_map": "true", "n": "4321"})
    assert not at.exception
    assert any("feasibility map needs more than" in i.value for i in at.info)
    first = len(calls)
    assert first > 0
    at.run()  # a rerun: the verdict comes from the cache, no calibration of the map is repeated
    assert any("feasibility map needs more than" in i.value for i in at.info)
    map_calls_again = len(calls) - first
    assert map_calls_again == 0, map_calls_again  # everything on the page is cached, the map's verdict too


def test_calibrate_fills_in_the_accountant_line_after_the_main_numbers():
    """DP-SGD's main numbers are computed without the (slow at large T) numerical accountant; its σ is filled in
    below them, the same as the library's, and the view download carries it."""
    at = _run("pages/calibrate.py", query={"n": "4321", "T": "70380"})
    assert not at.exception
    cal = catalog.calibrate("dpsgd-rdp", n=4321, d=10, eps=1.0, delta=1 / 4321**2, T=70380, eta=0.01, G=1.0)
    from dpviz_ui import helpers as ui

    assert at.metric[0].value == ui.fmt(cal.sigma)
    text = " ".join(m.value for m in at.markdown)
    assert (f"A numerical accountant of the same mechanism (dp-accounting's RDP) needs σ = "
            f"{ui.fmt(cal.extras['accountant_sigma'])}") in text
    assert "computing" not in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("query,starred", [
    # a first visit: the box's first choice for the default logistic loss is DP-SGD (Wang, Lei, Ying & Zhou) and
    # SGD, so the same stars as when both are in the link -- from the first run on, not after a first interaction
    ({}, {"n", "R", "c"}),
    # ε swept: the sidebar's ε is not used; DP-SGD's theorems use c (the theory curve); R: the iterates are projected
    ({"sim_algs": "dpsgd-rdp,sgd"}, {"n", "R", "c"}),
    # n swept, T and η by hand, no projection: ε, T, η used, R not; DPGDSC's noise uses μ (Xue et al., Lemma 1)
    ({"sim_algs": "dpgd-sc", "sim_sweep": "n", "sim_project": "False", "sim_schedule": "manual",
      "sim_loss": "auc-square"}, {"n", "eps", "T", "eta", "mu", "c"}),
])
def test_simulate_stars_only_the_inputs_the_run_uses(query, starred):
    at = _run("pages/simulate.py", query=query)
    labels = {w.key[2:]: w.label for w in at.sidebar.text_input}
    assert {k for k, label in labels.items() if label.endswith("*")} == starred, labels


@pytest.mark.parametrize("theorems,starred", [
    # Wang, Lei, Ying & Zhang's Theorem 9 takes L only to check η < 1/L in a note: L changes no number, no star
    ("wang-nonsmooth-thm9", {"n", "d", "eps", "R", "alpha", "c"}),
    # with Wang, Lei, Ying & Zhou's Theorem 7 (a), whose explicit bound uses G, L and R (G given, so M is not used)
    ("wang-nonsmooth-thm9,wang-lownoise-thm7a", {"n", "d", "eps", "G", "L", "R", "alpha", "c"}),
])
def test_bounds_stars_only_the_inputs_that_change_a_bound(theorems, starred):
    at = _run("pages/bounds.py", query={"theorems": theorems})
    assert not at.exception
    labels = {w.key[2:]: w.label for w in at.sidebar.text_input}
    assert {k for k, label in labels.items() if label.endswith("*")} == starred, labels
