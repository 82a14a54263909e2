"""AppTest of the Audit page: defaults, widget changes -> URL and output, link parameters validated."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import audit_page as ap

APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _run(query=None):
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/audit.py").run()
    return at


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _ran(at) -> bool:
    """Whether the page shows a result of trials or repetitions: the audit's ε lower bound as a number (before a
    run the audit shows the accountant's ε, the claim and the plan with the lower bound "not run"), or any metric of
    a stability run."""
    m = _metrics(at)
    if "ε lower bound (95 %)" in m:
        return m["ε lower bound (95 %)"] not in ("not run", "…")
    return bool(m)


def test_audit_page_link_widgets_and_output():
    at = _run({"aud_trials": "1000", "aud_n": "50", "aud_seed": "3", "aud_bogus": "1", "aud_eta": "-4"})
    assert not at.exception
    assert at.text_input(key="w_aud_trials").value == "1000" and at.text_input(key="w_n").value == "50"
    # out-of-range link value ignored, with a message (escaped: shown as text, never as Markdown)
    assert any("aud\\_eta" in w.value for w in at.warning)
    m = _metrics(at)
    # the default noise is the paper's experimental rule, not calibrated to ε: the claim is labelled nominal
    assert "ε lower bound (95 %)" in m and m["ε claimed (nominal)"] == "1" and "ε claimed" not in m
    assert any("1000 trials" in md.value for md in at.markdown)
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert figs and len(figs[0]["data"]) == 2  # statistic on D and on D'
    # non-private SGD: the audit certifies a large epsilon and the URL follows the widgets
    at.selectbox(key="aud_alg").set_value("sgd").run()
    assert not at.exception and at.query_params["aud_alg"] == "sgd"
    m = _metrics(at)
    assert m["ε claimed"] == "—" and float(m["ε lower bound (95 %)"]) > 1
    at.radio(key="aud_mode").set_value("stability").run()
    assert not at.exception
    m = _metrics(at)
    assert {"bound", "measured max", "bound / measured"} <= set(m)
    assert float(m["measured max"]) <= float(m["bound"])


def test_audit_page_state_validation_is_pure():
    state, problems = ap.state_from_query({"aud_n": "12", "aud_alg": "<script>", "other": "x", "aud_T": "1.5"})
    assert state["aud_n"] == 12 and state["aud_alg"] == "dpsgd-rdp" and state["aud_T"] == 100
    assert len(problems) == 2
    assert ap.encode(dict(ap.DEFAULTS, aud_n=12)) == {"aud_n": "12"}
    with pytest.raises(ValueError):
        ap.validate("aud_trials", "1e9")


def test_audit_page_stability_sweep_choice_and_link():
    at = _run({"aud_mode": "stability", "aud_over": "eta", "aud_n": "40", "aud_T": "30", "aud_reps": "30"})
    assert not at.exception and at.radio(key="aud_over").value == "eta"
    m = _metrics(at)
    assert m["grid values"] == "4" and m["repetitions above the bound"] == "0.0%"
    assert any("Sweep over η" in md.value for md in at.markdown)
    at.radio(key="aud_over").set_value("alpha").run()
    assert not at.exception and at.query_params["aud_over"] == "alpha"
    at.text_input(key="aud_valpha").set_value("0.5, 1").run()
    assert at.query_params["aud_valpha"] == "0.5,1" and _metrics(at)["grid values"] == "2"
    at.text_input(key="aud_valpha").set_value("0.5, 2").run()  # out of range: a message, nothing run
    assert any("values of α" in e.value for e in at.error) and at.query_params["aud_valpha"] == "0.5,1"
    at.radio(key="aud_over").set_value("t").run()
    assert not at.exception and "aud_over" not in at.query_params and "bound / measured" in _metrics(at)


@pytest.mark.parametrize("box,typed,shown", [("w_eps", "0", "0"), ("w_n", "-5", "-5"),
                                             ("w_n", "6000", "6000"), ("w_eps", "", "nothing"),
                                             ("w_aud_trials", "2,5", "2,5"), ("w_n", "2.5e1x", "2.5e1x"),
                                             ("w_aud_T", "1.5", "1.5")])
def test_audit_invalid_input_one_error_no_stale_results(box, typed, shown):
    # the contract of Calibrate: one error naming the box and its range, no results from other values, the box
    # keeps what was typed, the link keeps the last valid values, and a valid value brings the results back
    at = _run({"aud_trials": "200", "aud_n": "50", "aud_T": "50"})
    assert not at.exception and at.metric
    at.text_input(key=box).set_value(typed).run()
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    err = at.error[0].value.replace("\\", "")  # Markdown-escaped: 2\\.5 is shown as 2.5
    label = {"w_eps": "ε (claimed)", "w_n": "n", "w_aud_trials": "trials", "w_aud_T": "T"}[box]
    assert f"**{label}** must be" in err and shown in err and " from " in err
    assert not at.metric  # no stale numbers
    assert at.text_input(key=box).value == typed
    assert at.query_params["n"] in ("50", ["50"])  # an old link's aud_n is the shared n now
    at.text_input(key=box).set_value({"w_eps": "2", "w_n": "4e1", "w_aud_trials": "1e2", "w_aud_T": "40"}[box]).run()
    assert not at.exception and not at.error and at.metric


def test_audit_numbers_in_scientific_notation_and_with_separators():
    at = _run({"aud_T": "50"})
    at.text_input(key="w_aud_trials").set_value("1,000").run()
    assert at.text_input(key="w_aud_trials").value == "1000" and at.query_params["aud_trials"] in ("1000", ["1000"])
    at.text_input(key="w_n").set_value("6e1").run()
    assert at.text_input(key="w_n").value == "60" and at.query_params["n"] in ("60", ["60"])
    assert any("1000 trials" in md.value for md in at.markdown)


def test_audit_takes_n_eps_delta_from_the_shared_view():
    # a setting made on Calibrate (n = 300, eps = 2, delta = 1e-7 typed as log10 delta = -7) opens on Audit, and the
    # audit runs at it (its accountant and its command use the same delta)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["delta_auto"] = "False"
    at.run()
    at.switch_page("pages/calibrate.py").run()
    at.text_input(key="w_n").set_value("3e2").run()
    at.text_input(key="w_eps").set_value("2").run()
    at.text_input(key="w_log10_delta").set_value("-7").run()
    assert not at.exception and not [e for e in at.error if "Fix the input" in e.value]
    at.query_params["aud_trials"] = "200"
    at.query_params["aud_T"] = "30"
    at.switch_page("pages/audit.py").run()
    assert not at.exception and not at.error
    assert at.text_input(key="w_n").value == "300" and at.text_input(key="w_eps").value == "2"
    assert _metrics(at)["ε claimed (nominal)"] == "2"
    assert any("δ = 1e-07" in md.value for md in at.markdown)
    doc = at.session_state["_view_docs"]["audit"]
    assert "--n 300" in doc["command"] and "--eps 2.0" in doc["command"] and "--delta 1e-07" in doc["command"]
    # above this page's n <= 5000: one error naming n and the page's range; back in range: results again
    at.text_input(key="w_n").set_value("6,000").run()
    assert len(at.error) == 1 and "from 10 to 5000 on this page" in at.error[0].value and not at.metric
    at.text_input(key="w_n").set_value("400").run()
    assert not at.error and at.metric


# ---------------------------------------------------------------------------------------------------------------
# issue 22, item 3: a link never starts heavy work on page load; it waits for a click on Run


@pytest.mark.parametrize("query", [
    {"aud_trials": "200000", "aud_T": "2000"},  # the link (estimated ~57 s, measured ~110 s before)
    {"aud_mode": "stability", "aud_over": "eta", "aud_reps": "100000", "aud_T": "2000"},
    {"aud_mode": "stability", "aud_reps": "100000", "aud_T": "20000"},
])
def test_heavy_link_waits_for_a_click(query):
    import time

    t0 = time.process_time()
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page("pages/audit.py")
    at.run()
    assert time.process_time() - t0 < 20  # imports and the estimate: no run
    assert not at.exception and not _ran(at)  # no result: nothing ran
    est = ap.estimate(dict(ap.DEFAULTS, **{k: ap.validate(k, v) for k, v in query.items()}))
    assert est["seconds"] > ap.HEAVY_SECONDS
    assert any("press Run" in i.value for i in at.info)
    assert at.button(key="aud_run").proto.label == f"Run (about {est['seconds']:.0f} s)"
    for k, v in query.items():  # the link's settings are restored in the widgets and kept in the URL
        assert str(at.session_state[k]) == v and at.query_params[k] in (v, [v])


def test_click_runs_heavy_setting_and_light_ones_run_at_once(monkeypatch):
    # a lower threshold stands in for 30 s, so that the clicked run stays short in a test
    monkeypatch.setattr(ap, "HEAVY_SECONDS", 0.05)
    at = _run({"aud_trials": "20000", "aud_T": "100"})
    assert not _ran(at) and at.button(key="aud_run")
    at.button(key="aud_run").click().run()
    assert not at.exception and _ran(at)
    at.text_input(key="w_aud_T").set_value("110").run()  # another heavy setting: waits again
    assert not _ran(at) and at.button(key="aud_run")
    monkeypatch.setattr(ap, "HEAVY_SECONDS", 30.0)
    at.text_input(key="w_aud_T").set_value("120").run()  # light: runs at once
    assert not at.exception and _ran(at)


def test_missing_accountant_eps_says_why():
    # output perturbation with σ = 0.001: the analytic Gaussian's ε is infinite; the page said only "No accountant's
    # ε for this setting (matched, exact: analytic Gaussian, ...)", describing a working accountant
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(__import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"),
                           default_timeout=120)
    at.query_params.update({"aud_alg": "dpsgd-output", "aud_noise": "custom", "aud_sigma": "0.001"})
    at.switch_page("pages/audit.py").run()
    assert not at.exception
    assert any("No accountant's ε" in i.value and "infinite or too large to compute" in i.value for i in at.info)


# ---------------------------------------------------------------------------------------------------------------
# issue 33: the accountant's ε, the claim and the plan at once (before any trial runs), the empirical bound after


def test_heavy_audit_shows_accountant_eps_and_plan_before_the_click(monkeypatch):
    """A heavy audit waits for Run, but its accountant's ε, claim and the most ε its trials can certify are on
    screen already -- the same numbers the run then shows (checked against the audit itself and, for the ceiling,
    by hand: 20 000 trials evaluate m = 5 000 per side; with no error the two-sided Clopper–Pearson 95 % upper
    bound of both rates is 1 − 0.025^(1/5000) = 7.3750e-4, and ε = ln((1 − δ − 7.3750e-4) / 7.3750e-4) = 7.2115 at
    δ = 1/n² = 10⁻⁴, n = 100)."""
    import math

    from dpviz.labs import canary_audit as aud

    monkeypatch.setattr(ap, "HEAVY_SECONDS", 0.05)
    at = _run({"aud_trials": "20000", "aud_T": "100"})
    assert not at.exception and not _ran(at) and at.button(key="aud_run")
    before = _metrics(at)
    assert before["ε lower bound (95 %)"] == "not run"
    view = at.session_state["_view"]  # n and ε are the dashboard's shared view; δ = 1/n² (the box is ticked)
    assert view["delta_auto"]
    state = dict(ap.DEFAULTS, aud_trials=20000, aud_T=100, aud_n=int(view["n"]), aud_eps=float(view["eps"]))
    ds, loss, params = aud.default_setting(state["aud_alg"], ap.params_of(state))
    n = int(params["n"])
    p_hi = 1 - 0.025 ** (1 / 5000)
    by_hand = math.log((1 - 1 / n**2 - p_hi) / p_hi)
    assert abs(by_hand - 7.2115) < 1e-3  # δ = 1/n² changes the fourth digit at most
    assert abs(float(before["most ε these trials can certify"]) - by_hand) < 5e-4 * by_hand
    assert any("**Plan**: 20000 trainings" in c.value for c in at.caption)
    at.button(key="aud_run").click().run()
    after = _metrics(at)
    assert not at.exception and _ran(at)
    for label in ("ε claimed (nominal)", "accountant's ε", "most ε these trials can certify"):
        assert after[label] == before[label]
    res = aud.audit(state["aud_alg"], ds, loss, params=params, trials=20000, seed=state["aud_seed"])
    from dpviz_ui import helpers as ui

    assert after["accountant's ε"] == ui.fmt(res.eps_accountant)
    assert after["ε lower bound (95 %)"] == ui.fmt(res.eps_lower)


def test_preview_matches_the_audit_for_every_page_algorithm():
    """canary_audit.preview (before any trial) gives exactly what the audit reports after its trials, for every
    algorithm and noise choice of the page; and refuses where the audit refuses."""
    from dpviz.labs import canary_audit as aud

    for alg in ap.PAGE_ALGORITHMS:
        for noise in ap.NOISE:
            state = dict(ap.DEFAULTS, aud_alg=alg, aud_noise=noise, aud_trials=40, aud_T=20, aud_n=40)
            ds, loss, params = aud.default_setting(alg, ap.params_of(state))
            try:
                res = aud.audit(alg, ds, loss, params=params, trials=40, seed=1)
            except ValueError as exc:
                with pytest.raises(ValueError) as got:
                    ap.preview(state)
                assert str(got.value) == str(exc)
                continue
            pre = ap.preview(state)
            assert pre["eps_accountant"] == res.eps_accountant and pre["accountant_note"] == res.accountant_note
            assert pre["eps_claimed"] == res.eps_claimed and pre["sigma"] == res.sigma and pre["delta"] == res.delta
            assert pre["max_certifiable"] == res.max_certifiable
            assert pre["nominal"] == any("eps_claimed is nominal" in x for x in res.notes)
