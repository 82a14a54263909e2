"""Every page's "Download this view" command reproduces the page's numbers (issue 20).

Each page is opened (AppTest), the document of its "Download this view" button is read (``_view_docs``), its
``python -m dpviz ...`` command is run through the command line's own entry point (``dpviz.cli.commands.main``, the same code
``python -m dpviz`` runs; one is also run in a real subprocess), and the numbers it prints are compared with the
numbers the page computed: every theorem of Bounds (main bound and, where shown, the explicit-constant bound), every
algorithm of Calibrate, every algorithm of Accounting, Simulate runs, and Audit (audit, stability, a stability sweep).
"""

import contextlib
import io
import json
import math
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.theory import catalog
from dpviz.cli import commands as cli
from dpviz.labs import privacy_lab

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def _open(page: str, query: dict):
    at = AppTest.from_file(APP, default_timeout=300)
    for k, val in query.items():
        at.query_params[k] = val
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _doc(at, page: str) -> dict:
    docs = at.session_state["_view_docs"] if "_view_docs" in at.session_state else {}
    assert page in docs, f"no Download this view on {page}"
    # the file the button serves: JSON of the document (as dpviz_ui.helpers.download_view writes it)
    return json.loads(json.dumps(catalog._json_safe(docs[page]), default=str))


def _run(command: str) -> list:
    """Run every ``python -m dpviz ...`` command of ``command`` (joined by " ; "); their JSON outputs."""
    outs = []
    for one in command.split(" ; "):
        argv = shlex.split(one)
        assert argv[:3] == ["python", "-m", "dpviz"], one
        buf, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            code = cli.main(argv[3:])
        assert code == 0, (one, err.getvalue())
        outs.append(json.loads(buf.getvalue()))
    return outs


def _close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)


# --- Bounds: every theorem, main bound and explicit constants --------------------------------------------------------

THEOREMS = [t.id for t in catalog.theorems()]


@pytest.mark.parametrize("kind", ["rate", "explicit"])
def test_bounds_command_of_every_theorem(kind):
    for k in range(0, len(THEOREMS), 8):
        chunk = THEOREMS[k:k + 8]
        at = _open("bounds", {"theorems": ",".join(chunk), "bound_kind": kind})
        doc = _doc(at, "bounds")
        outs = _run(doc["command"])
        cmds = doc["command"].split(" ; ")
        by_theorem: dict = {}
        for cmd, out in zip(cmds, outs):
            tid = shlex.split(cmd)[shlex.split(cmd).index("--theorem") + 1]
            by_theorem.setdefault(tid, {})["explicit" if "--explicit" in cmd else "main"] = out
        assert set(doc["outputs"]) <= set(by_theorem)
        for tid, page in doc["outputs"].items():
            main = by_theorem[tid]["main"]
            assert _close(page["total"], main["total"]), (tid, page["total"], main["total"])
            assert _close(page["T"], main["T"]) and _close(page["eta"], main["eta"]), tid
            for term in main["terms"]:
                assert _close(page["terms"][term["name"]], term["value"]), (tid, term)
            if "explicit_total" in page:
                assert _close(page["explicit_total"], by_theorem[tid]["explicit"]["total"]), tid
            else:
                assert "explicit" not in by_theorem[tid], tid


def test_bounds_command_of_the_issue_link_is_accepted():
    # the link of issue 20: its command had --param Fstar=0.1, which the CLI rejected (exit 2)
    at = _open("bounds", {"n": "60000", "eps": "1.0", "delta_auto": "False", "log10_delta": "-5",
                          "theorems": "wang-lownoise-thm3a,kang-pidp-thm1", "bound_kind": "explicit"})
    doc = _doc(at, "bounds")
    assert "Fstar" not in " ".join(c for c in doc["command"].split(" ; ") if "--explicit" not in c)
    outs = _run(doc["command"])
    assert _close(doc["outputs"]["wang-lownoise-thm3a"]["total"], outs[0]["total"])
    # the explicit bound of Theorem 3 (a) keeps F(w*): its command carries it, and the CLI accepts it
    explicit = [c for c in doc["command"].split(" ; ") if "--explicit" in c]
    assert explicit and "Fstar=0.1" in explicit[0]


def test_bounds_command_runs_in_a_real_subprocess():
    at = _open("bounds", {"theorems": "wang-nonsmooth-thm9", "n": "20000"})
    doc = _doc(at, "bounds")
    argv = shlex.split(doc["command"].split(" ; ")[0])
    proc = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert _close(json.loads(proc.stdout)["total"], doc["outputs"]["wang-nonsmooth-thm9"]["total"])


# --- Calibrate: every algorithm ---------------------------------------------------------------------------------

CAL_ALGS = [a.id for a in catalog.algorithms() if a.calibrate is not None]


@pytest.mark.parametrize("alg", CAL_ALGS)
def test_calibrate_command_of_every_algorithm(alg):
    at = _open("calibrate", {"algorithm": alg, "n": "5000", "eps": "2.0"})
    doc = _doc(at, "calibrate")
    (out,) = _run(doc["command"])
    page = doc["outputs"]
    for key in ("sigma", "laplace_scale", "beta", "feasible", "T", "eta"):
        assert _close(page.get(key), out.get(key)), (alg, key, page.get(key), out.get(key))
    for key in ("sigma_schedule", "beta_interval"):
        if page.get(key) is not None:
            assert all(_close(a, b) for a, b in zip(page[key], out[key])), (alg, key)


def test_calibrate_command_with_a_theorem_schedule():
    at = _open("calibrate", {"algorithm": "dpsgd-rdp", "schedule": "wang-lownoise-thm3a", "n": "20000"})
    doc = _doc(at, "calibrate")
    (out,) = _run(doc["command"])
    assert _close(doc["outputs"]["sigma"], out["sigma"]) and _close(doc["outputs"]["T"], out["T"])


# --- Accounting: every algorithm (all accountants, PLD included), and the calculator -------------------------------

@pytest.mark.parametrize("alg", privacy_lab.ALGORITHMS)
def test_accounting_command_of_every_algorithm(alg):
    at = _open("accounting", {"algorithm": alg, "n": "2000", "eps": "2", "T": "2000", "acc_sigma": "3"})
    doc = _doc(at, "accounting")
    assert "--sigma 3.0" in doc["command"]
    (out,) = _run(doc["command"])
    page = doc["outputs"]
    assert _close(page["paper_sigma"], out["paper_sigma"])
    cli_rows = {r["label"]: r for r in out["accountants"]}
    assert len(page["accountants"]) == len(cli_rows)
    for row in page["accountants"]:
        other = cli_rows[row["label"]]
        for key in ("sigma_for_eps", "eps_of_paper_sigma", "eps_of_sigma"):
            assert _close(row.get(key), other.get(key), rel=1e-6), (alg, row["label"], key)


def test_accounting_table_json_carries_its_parameters():
    at = _open("accounting", {"algorithm": "dpsgd-rdp", "n": "5000", "eps": "2"})
    doc = _doc(at, "accounting")
    assert doc["inputs"]["n"] == 5000 and doc["inputs"]["eps"] == 2.0
    assert doc["inputs"]["delta"] == pytest.approx(1 / 5000**2)
    assert "--n 5000" in doc["command"] and "--eps 2.0" in doc["command"]


# --- Simulate ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("query", [
    {"T": "30", "n": "200", "reps": "4"},  # the default algorithms, a link cheap enough to run at once
    {"T": "20", "n": "150", "reps": "3", "sim_algs": "dpsgd-output,sgd", "eps_grid": "0.5,2,8", "seed": "7"},
    {"T": "20", "n": "300", "reps": "3", "sim_sweep": "n", "n_grid": "100,200", "kappas": "0,0.1",
     "run_infeasible": "True", "delta_auto": "False", "log10_delta": "-7"},
])
def test_simulate_command_reproduces_the_rows(query):
    at = _open("simulate", query)
    doc = _doc(at, "simulate")
    (out,) = _run(doc["command"])
    rows = [r for run in out["runs"] for r in run["rows"]]
    page = doc["outputs"]["rows"]
    assert len(rows) == len(page) > 0
    for a, b in zip(page, rows):
        for key in ("algorithm", "grid", "rep", "n", "eps", "delta", "T", "sigma", "excess_risk", "pop_risk"):
            assert _close(a.get(key), b.get(key), rel=1e-12), (key, a.get(key), b.get(key))


# --- Audit ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("query", [
    {"aud_trials": "200", "aud_n": "50", "aud_T": "50"},
    {"aud_trials": "200", "aud_n": "40", "aud_T": "40", "aud_alg": "dpgd-c", "aud_noise": "custom",
     "aud_sigma": "0.5", "aud_seed": "3"},
    {"aud_mode": "stability", "aud_alg": "sgd", "aud_reps": "20", "aud_n": "40", "aud_T": "40"},
    {"aud_mode": "stability", "aud_alg": "pairwise-sgd", "aud_reps": "10", "aud_over": "eta",
     "aud_veta": "0.05,0.1", "aud_n": "30", "aud_T": "30"},
])
def test_audit_command_reproduces_the_numbers(query):
    at = _open("audit", query)
    doc = _doc(at, "audit")
    (out,) = _run(doc["command"])
    page = doc["outputs"]
    if "sweep" in page:
        assert len(out["sweep"]) == len(page["sweep"])
        for a, b in zip(page["sweep"], out["sweep"]):
            for key in ("value", "bound", "max", "q50", "q95"):
                assert _close(a[key], b[key], rel=1e-12), (key, a[key], b[key])
    elif query.get("aud_mode") == "stability":
        assert _close(page["bound"], out["bound"])
        for key, val in out["empirical"].items():
            assert _close(page["empirical"][key], val, rel=1e-12), key
    else:
        for key in ("eps_lower", "fpr", "fnr", "max_certifiable", "trials"):
            assert _close(page[key], out[key], rel=1e-12), (key, page[key], out[key])
