"""AppTest checks of the "Check a run" page (pages/check.py): the default (MNIST) verdict, widget changes, one
error and no numbers on bad input, links restore the view, the paste box, "Download this view" reproduces."""

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.cli import commands as cli
from dpviz.labs import run_check as rc

APP = str(Path(__file__).resolve().parent.parent / "app.py")
MNIST = dict(n=60000, batch_size=256, epochs=60.0, noise_multiplier=1.1, delta=1e-5)


def _open(query=None):
    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/check.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_default_is_mnist_and_meets_target_3():
    at = _open()
    assert any("Meets ε = 3" in s.value for s in at.success)
    ref = rc.check(search=False, target_eps=3.0, **MNIST)
    m = _metrics(at)
    assert m["ε upper bound (safe to claim)"] == f"{ref['eps_upper']:.4g}"
    assert m["ε lower bound (certified)"] == f"{ref['eps_lower']:.4g}"
    assert "σ/C ∈ (" in m["smallest noise multiplier for ε = 3"]
    assert not at.error


def test_shuffle_says_poisson_cannot_be_reported_and_cites_papers():
    at = _open({"verify_sampling": "shuffle"})
    assert any("Does not meet ε = 3" in e.value for e in at.error)
    assert any("cannot be reported for this loader" in e.value for e in at.error)
    text = " ".join(c.value for c in at.caption) + " ".join(md.value for md in at.markdown)
    assert "ICML 2024" in text and "NeurIPS 2024" in text and "not a proven guarantee" in text


def test_changes_bad_input_and_restore():
    at = _open()
    at.text_input(key="w_verify_nm").set_value("2.0").run()
    assert not at.exception
    assert at.query_params["verify_nm"] == ["2.0"] or at.query_params["verify_nm"] == "2.0"
    ref = rc.check(search=False, target_eps=3.0, **{**MNIST, "noise_multiplier": 2.0})
    assert _metrics(at)["ε upper bound (safe to claim)"] == f"{ref['eps_upper']:.4g}"
    at.text_input(key="w_verify_n").set_value("6e4").run()  # typed as people type it
    assert not at.error and _metrics(at)
    at.text_input(key="w_verify_n").set_value("abc").run()
    assert len(at.error) == 1 and "n (training examples)" in at.error[0].value
    assert not at.metric and not at.success  # no numbers while the input is invalid
    at.text_input(key="w_verify_n").set_value("60,000").run()
    assert not at.error and at.metric
    at.text_input(key="w_verify_batch").set_value("100000").run()  # batch > n: one error, no numbers
    assert len(at.error) == 1 and "cannot exceed" in at.error[0].value and not at.metric


def test_link_restores_view_and_delta_warning():
    at = _open({"verify_n": "1000", "verify_batch": "10", "verify_epochs": "2", "verify_nm": "3", "verify_delta": "0.01",
                "verify_target": "0", "verify_neighbouring": "replace-one"})
    assert at.text_input(key="w_verify_n").value == "1000"
    assert any("not much smaller than 1/n" in w.value for w in at.warning)
    assert any("No target given" in i.value for i in at.info)
    ref = rc.check(search=False, n=1000, batch_size=10, epochs=2, noise_multiplier=3.0, delta=0.01,
                   neighbouring="replace-one")
    assert _metrics(at)["ε upper bound (safe to claim)"] == f"{ref['eps_upper']:.4g}"


def test_hostile_link_is_ignored_with_one_notice():
    at = _open({"verify_n": "<script>", "verify_sampling": "../../etc", "verify_delta": "1e400"})
    assert not at.exception
    assert any("Meets ε = 3" in s.value for s in at.success)  # the defaults, not the hostile values


def test_paste_box_fills_the_form():
    at = _open()
    at.text_area(key="verify_paste").set_value(
        "compute_dp_sgd_privacy(n=50000, batch_size=500, noise_multiplier=0.9, epochs=10, delta=1e-6, "
        "foo=bar)").run()
    at.button(key="verify_paste_go").click().run()
    assert not at.exception
    assert at.text_input(key="w_verify_n").value == "50000"
    assert at.text_input(key="w_verify_nm").value == "0.9"
    assert any("foo" in i.value for i in at.info)  # the field it could not use is named
    ref = rc.check(search=False, target_eps=3.0, n=50000, batch_size=500, epochs=10, noise_multiplier=0.9,
                   delta=1e-6)
    assert _metrics(at)["ε upper bound (safe to claim)"] == f"{ref['eps_upper']:.4g}"


def test_download_view_command_reproduces_the_page():
    at = _open({"verify_sampling": "full-batch", "verify_epochs": "20", "verify_nm": "8"})
    doc = at.session_state["_view_docs"]["check"]
    argv = shlex.split(doc["command"])[3:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(argv) == 0
    got = json.loads(out.getvalue())
    assert got["eps_upper"] == pytest.approx(doc["outputs"]["eps_upper"], rel=1e-12)
    assert got["meets_target"] == doc["outputs"]["meets_target"]
    assert got["noise_multiplier_for_target"] == doc["outputs"]["noise_multiplier_for_target"]
