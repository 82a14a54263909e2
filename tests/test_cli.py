"""The CLI is a contract: sub-command names, option names, JSON keys, exit code 2 with one stderr line on bad input."""
import json
import subprocess
import sys

import pytest

from dpviz.theory import catalog
from dpviz.cli.commands import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_algorithms_json_lists_every_catalogue_algorithm(capsys):
    code, out, err = run(capsys, "algorithms", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["id"] for r in rows} == {a.id for a in catalog.algorithms()}
    for r in rows:
        assert {"id", "paper", "setting", "perturbation"} <= set(r)
        assert r["setting"] in ("pointwise", "pairwise")
        assert ".txt" not in r["paper"]  # users see authors, never seed file names


def test_theorems_json(capsys):
    code, out, _ = run(capsys, "theorems", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["id"] for r in rows} == {t.id for t in catalog.theorems()}
    for r in rows:
        assert {"id", "paper", "theorem", "algorithm"} <= set(r)
        catalog.get_algorithm(r["algorithm"])  # every theorem analyses a catalogue algorithm


def test_calibrate_baseline_json_has_contract_keys(capsys):
    code, out, _ = run(capsys, "calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "1", "--delta", "1e-6",
                       "--json")
    assert code == 0
    obj = json.loads(out)
    for key in ("id", "sigma", "laplace_scale", "sigma_schedule", "beta", "beta_interval", "feasible", "reason", "T",
                "eta"):
        assert key in obj
    assert obj["id"] == "sgd" and obj["sigma"] is None and obj["feasible"] is True


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "0", "--delta", "1e-6"], "eps"),
        (["calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "-1", "--delta", "1e-6"], "eps"),
        (["calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "1", "--delta", "1"], "delta"),
        (["calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "1", "--delta", "-0.1"], "delta"),
        (["calibrate", "--algorithm", "sgd", "--n", "1", "--eps", "1", "--delta", "1e-6"], "n"),
        (["calibrate", "--algorithm", "sgd", "--n", "1000", "--eps", "1", "--delta", "1e-6", "--alpha", "1.5"],
         "alpha"),
        (["calibrate", "--algorithm", "sgd", "--n", "ten", "--eps", "1", "--delta", "1e-6"], "n"),
        (["calibrate", "--algorithm", "no-such-thing", "--n", "100", "--eps", "1", "--delta", "1e-6"], "unknown"),
        (["calibrate", "--n", "100"], "--algorithm"),
        (["bound", "--theorem", "no-such-theorem", "--n", "100"], "unknown"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_invalid_input_exits_2_with_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert fragment in lines[0]
    assert "Traceback" not in err


def test_missing_required_parameter_is_named(capsys):
    """Every private algorithm needs eps; leaving it out must name it."""
    private = [a for a in catalog.algorithms() if a.calibrate is not None]
    if not private:
        pytest.skip("no private algorithm registered")
    code, _, err = run(capsys, "calibrate", "--algorithm", private[0].id, "--n", "1000", "--delta", "1e-6")
    assert code == 2 and "eps" in err and "Traceback" not in err


def test_module_entry_point_runs_as_subprocess():
    out = subprocess.run([sys.executable, "-m", "dpviz", "calibrate", "--algorithm", "gd", "--n", "100", "--eps",
                          "0", "--delta", "0.01", "--json"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    ok = subprocess.run([sys.executable, "-m", "dpviz", "algorithms", "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)


def test_bound_and_theorems_json_say_which_risk_and_form(capsys):
    # Kang et al. Theorem 6 bounds the empirical risk; Theorem 7 the population risk (issue 9: like for like)
    code, out, _ = run(capsys, "bound", "--theorem", "xue-pairwise-thm2", "--n", "1000", "--d", "10", "--eps", "1",
                       "--delta", "1e-6", "--G", "1", "--R", "1", "--json")
    d = json.loads(out)
    assert code == 0 and d["form"] == "rate" and d["explicit"] is False and "population" in d["risk"]
    code, out, _ = run(capsys, "theorems", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert "empirical" in rows["kang-pidp-thm6"]["risk"] and "population" in rows["kang-pidp-thm7"]["risk"]
    assert rows["kang-pidp-thm3"]["forms"] == ["rate", "explicit"] and rows["kang-pidp-thm3"]["form"] == "rate"


def test_calibrate_json_reports_the_paper_sigma_beside_the_private_one(capsys):
    code, out, _ = run(capsys, "calibrate", "--algorithm", "dpgd-c", "--n", "1000", "--d", "10", "--eps", "5",
                       "--delta", "1e-8", "--G", "1", "--json")
    d = json.loads(out)
    assert code == 0 and d["feasible"] is True
    assert d["extras"]["paper_sigma_private"] is False and abs(d["extras"]["sigma_paper"] - 0.12139) < 1e-5
    assert abs(d["sigma"] - 0.1441) < 1e-4
