"""Sweeps (dpviz.sweep, python -m dpviz sweep): spec validation, resumption, determinism across worker counts."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dpviz import cli, simulate as sim, sweep

SPEC = """
algorithms = ["dpsgd-rdp", "sgd"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = 4
seed = 3
n_test = 200
eval_rows = 100
[grid]
n = [100, 150]
eps = [4.0]
[params]
T = 30
eta = 0.05
R = 1.0
"""


@pytest.fixture(scope="module")
def clients():
    """In-process Dask clusters (threads, no processes) with 1 and 2 workers, started once for the module."""
    from dask.distributed import Client, LocalCluster

    made = {}
    for k in (1, 2):
        cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=False, dashboard_address=":0",
                               silence_logs=40)
        made[k] = (cluster, Client(cluster))
    yield {k: c for k, (_, c) in made.items()}
    for cluster, client in made.values():
        client.close()
        cluster.close()


def _numbers(frame):
    cols = ["algorithm", "n", "eps", "rep", "sigma", "emp_risk", "pop_risk", "excess_risk", "metric", "cell_seed"]
    return frame[cols].sort_values(["algorithm", "n", "eps", "rep"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------------------
# spec


def test_spec_is_read_and_normalised():
    spec = sweep.load_spec(SPEC)
    assert spec.algorithms == ("dpsgd-rdp", "sgd")
    assert dict(spec.grid) == {"n": (100.0, 150.0), "eps": (4.0,)}
    cells = spec.cells()
    assert len(cells) == 2 * 2 * 1
    # the cell seed depends on the seed and the grid point only: both algorithms share it (common random numbers)
    by_point = {}
    for c in cells:
        by_point.setdefault(c.values, set()).add(c.cell_seed)
    assert all(len(s) == 1 for s in by_point.values())
    assert len({c.cell_id for c in cells}) == len(cells)


def test_adding_grid_values_keeps_the_existing_cells():
    a = {c.cell_id: c.cell_seed for c in sweep.load_spec(SPEC).cells()}
    b = {c.cell_id: c.cell_seed for c in sweep.load_spec(SPEC.replace("n = [100, 150]", "n = [100, 150, 200]")).cells()}
    assert set(a) < set(b)
    assert all(b[k] == a[k] for k in a)


@pytest.mark.parametrize("text, words", [
    ("foo = 1\n" + SPEC, "unknown key(s) in the spec: 'foo'"),
    (SPEC.replace("eps = [4.0]", "epsilon = [4.0]"), "unknown grid parameter 'epsilon'"),
    (SPEC.replace("eps = [4.0]", "eps = [-1.0]"), "eps"),
    (SPEC.replace("eps = [4.0]", "eps = [4.0, 4.0]"), "repeats a value"),
    (SPEC.replace("eps = [4.0]", "eps = []"), "is empty"),
    (SPEC.replace('"sgd"]', '"sgdd"]'), "unknown algorithm 'sgdd'"),
    (SPEC.replace('dataset = "wang-least-squares"', 'dataset = "mnist"'), "unknown dataset 'mnist'"),
    (SPEC.replace('loss = "least-squares"', 'loss = "hinge"\n[loss_params]\nq = 1.5'), "takes no parameters"),
    (SPEC.replace("eta = 0.05", "eta = 0.05\nn = 100"), "both swept in [grid] and fixed in [params]"),
    (SPEC.replace("eta = 0.05", "eta = 0.05\nwibble = 2"), "unknown parameter 'wibble'"),
    (SPEC.replace("reps = 4", "reps = 2.5"), "reps must be a whole number"),
    (SPEC.replace("reps = 4", "reps = 0"), "reps"),
    (SPEC.replace("eps = [4.0]", "alpha = [0.5]"), "needs a q-norm loss"),
    (SPEC.replace("eps = [4.0]", 'eps = ["big"]'), "must be a number"),
    ("algorithms = [", "not valid TOML"),
    ('dataset = "two-class"\nloss = "auc-square"', "needs the key(s): algorithms"),
])
def test_invalid_specs_are_rejected_clearly(text, words):
    with pytest.raises(ValueError) as exc:
        sweep.load_spec(text)
    assert words in str(exc.value)


def test_alpha_grid_builds_the_q_norm_loss():
    spec = sweep.load_spec(SPEC.replace('loss = "least-squares"', 'loss = "q-norm-hinge"')
                           .replace('dataset = "wang-least-squares"', 'dataset = "wang-logistic"')
                           .replace("eps = [4.0]", "alpha = [0.25, 1.0]").replace('"dpsgd-rdp", ', ""))
    data, lossobj, params = sweep._cell_inputs(spec.cells()[0])
    assert lossobj.q == 1.25 and lossobj.alpha == 0.25  # q = 1 + alpha (003, Section 1)
    assert data.n == 100 and params["n"] == 100


# ---------------------------------------------------------------------------------------------------------------
# running


def test_resume_skips_finished_cells_and_never_duplicates(tmp_path, clients):
    spec = sweep.load_spec(SPEC)
    out = tmp_path / "run"
    first = sweep.run_sweep(spec, out, client=clients[2], progress=False, log=lambda m: None)
    assert (first["cells"], first["skipped"], first["ran"]) == (4, 0, 4)
    frame = sweep.load_sweep(out)
    assert len(frame) == 4 * 4  # one row per (algorithm, grid cell, repetition)
    assert not frame.duplicated(["algorithm", "n", "eps", "rep"]).any()
    again = sweep.run_sweep(spec, out, client=clients[2], progress=False, log=lambda m: None)
    assert (again["skipped"], again["ran"]) == (4, 0)
    pd.testing.assert_frame_equal(_numbers(sweep.load_sweep(out)), _numbers(frame))
    # an interrupted run: one cell file lost -> only that cell runs again, with the same numbers
    victim = sorted(out.glob("cell-*.parquet"))[0]
    victim.unlink()
    part = sweep.run_sweep(spec, out, client=clients[1], progress=False, log=lambda m: None)
    assert (part["skipped"], part["ran"]) == (3, 1)
    pd.testing.assert_frame_equal(_numbers(sweep.load_sweep(out)), _numbers(frame))
    # an extended grid runs only the new cells
    bigger = sweep.load_spec(SPEC.replace("eps = [4.0]", "eps = [4.0, 8.0]"))
    ext = sweep.run_sweep(bigger, out, client=clients[2], progress=False, log=lambda m: None)
    assert (ext["cells"], ext["skipped"], ext["ran"]) == (8, 4, 4)
    assert len(sweep.load_sweep(out)) == 8 * 4


def test_same_numbers_on_one_or_two_workers_and_without_dask(tmp_path, clients):
    spec = sweep.load_spec(SPEC)
    sweep.run_sweep(spec, tmp_path / "one", client=clients[1], progress=False, log=lambda m: None)
    sweep.run_sweep(spec, tmp_path / "two", client=clients[2], progress=False, log=lambda m: None)
    one, two = _numbers(sweep.load_sweep(tmp_path / "one")), _numbers(sweep.load_sweep(tmp_path / "two"))
    pd.testing.assert_frame_equal(one, two)
    direct = _numbers(pd.concat([sweep.run_cell(c) for c in spec.cells()], ignore_index=True))
    pd.testing.assert_frame_equal(one, direct)
    # DP-SGD's noise actually enters: it differs from SGD at the same seed
    dp = one[one.algorithm == "dpsgd-rdp"]["pop_risk"].to_numpy()
    plain = one[one.algorithm == "sgd"]["pop_risk"].to_numpy()
    assert (dp != plain).all()


def test_load_sweep_has_the_simulation_frame_shape(tmp_path, clients):
    spec = sweep.load_spec(SPEC)
    sweep.run_sweep(spec, tmp_path, client=clients[2], progress=False, log=lambda m: None)
    frame = sweep.load_sweep(tmp_path)
    data, lossobj, params = sweep._cell_inputs(spec.cells()[0])
    ref = sim.simulate("sgd", data, lossobj, grid={"n": [100]}, reps=2, params=params, eval_rows=100).frame
    assert list(frame.columns[:len(ref.columns)]) == list(ref.columns)
    assert set(frame["grid_name"]) == {"n"} and set(frame["grid"]) == {100.0, 150.0}
    by_eps = sweep.load_sweep(tmp_path, x="eps")
    assert set(by_eps["grid_name"]) == {"eps"} and set(by_eps["grid"]) == {4.0}
    for col in ("spec_hash", "dpviz_version", "seed", "cell_seed"):
        assert by_eps[col].notna().all()
    assert set(frame["spec_hash"]) == {spec.hash} and set(frame["seed"]) == {3}
    with pytest.raises(ValueError, match="swept parameter"):
        sweep.load_sweep(tmp_path, x="colour")
    with pytest.raises(ValueError, match="no sweep results"):
        sweep.load_sweep(tmp_path / "nothing-here" if (tmp_path / "nothing-here").mkdir() is None else tmp_path)


# ---------------------------------------------------------------------------------------------------------------
# command line


@pytest.mark.parametrize("argv_tail, words", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not allowed with argument"),
    (["--scheduler", "not-an-address"], "tcp://host:8786"),
])
def test_cli_errors_exit_2_with_one_line(tmp_path, capsys, argv_tail, words):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    code = cli.main(["sweep", str(spec), "--out", str(tmp_path / "o"), *argv_tail])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and words in err


def test_cli_bad_spec_exits_2_with_one_line(tmp_path, capsys):
    missing = cli.main(["sweep", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert missing == 2 and err.count("\n") == 1 and "not found" in err
    bad = tmp_path / "bad.toml"
    bad.write_text(SPEC + "\n[grid2]\nx = 1\n")
    assert cli.main(["sweep", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown key(s) in the spec: 'grid2'" in err
    assert not (tmp_path / "o").exists()  # nothing written for a rejected spec


@pytest.mark.slow
def test_cli_runs_a_sweep_on_a_local_process_cluster_and_resumes(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("n = [100, 150]", "n = [100]"))
    out = tmp_path / "out"
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--json", "--no-progress"]) == 0
    cap = capsys.readouterr()
    summary = json.loads(cap.out)
    assert (summary["cells"], summary["ran"]) == (2, 2)
    assert "Dask dashboard: http" in cap.err
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["ran"] == 0
    assert len(sweep.load_sweep(out)) == 2 * 4
