"""AppTest of the Audit page: defaults, widget changes -> URL and output, link parameters validated."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpviz import audit_page as ap

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


def test_audit_page_link_widgets_and_output():
    at = _run({"aud_trials": "1000", "aud_n": "50", "aud_seed": "3", "aud_bogus": "1", "aud_eta": "-4"})
    assert not at.exception
    assert at.number_input(key="aud_trials").value == 1000 and at.number_input(key="aud_n").value == 50
    assert any("aud_eta" in w.value for w in at.warning)  # out-of-range link value ignored, with a message
    m = _metrics(at)
    assert "ε lower bound (95 %)" in m and m["ε claimed"] == "4"
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
