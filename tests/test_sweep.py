"""Sweeps (dpviz.studies.sweep, python -m dpviz sweep): spec validation, resumption, determinism across worker counts."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dpviz.cli import commands as cli
from dpviz.engine import simulate as sim
from dpviz.studies import sweep

from _bounds import bounded, run_cli

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


# ---------------------------------------------------------------------------------------------------------------
# hostile inputs (issue 22, items 6-8; issue 20: the folder is a Parquet dataset).  Each is bounded in time and in
# memory: generous bounds that a run of hours or gigabytes cannot meet (tests/_bounds.py).


def _cli_refusal(capsys, tmp_path, text, *extra, name="spec.toml"):
    """The CLI as a user runs it (a child process): exit 2, one line, within 60 s and 500 MB, nothing written."""
    spec = tmp_path / name
    spec.write_text(text)
    out = tmp_path / "out"
    code, _, err, _, _ = run_cli(["sweep", spec, "--out", out, "--no-progress", *extra], seconds=60, mb=500)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert not out.exists()  # refused before anything is written or started
    return err


@pytest.mark.parametrize("change, words", [
    (("reps = 4", "reps = 1000000000"), ["--max-cell-gb 4", "1000000000 repetitions", "GB of memory"]),
    (("n = [100, 150]", "n = [1000000000]"), ["--max-cell-gb 4", "n = 1000000000", "memory"]),
    (("n_test = 200", "n_test = 10000000000"), ["--max-cell-gb 4", "TB of memory"]),
    (("T = 30", "T = 1000000000000"), ["--max-hours 24", "h of compute", "largest cell sgd at n ="]),
])
def test_costly_specs_are_refused_before_starting(tmp_path, capsys, change, words):
    err = _cli_refusal(capsys, tmp_path, SPEC.replace(*change))
    for w in words:
        assert w in err, err


def test_a_huge_grid_is_refused_from_a_sample_and_the_limits_can_be_raised(tmp_path, capsys):
    # 10^5 cells with reps 10^4 and T 10^5 (the spec): refused from an evenly spread sample of cells
    big = (SPEC.replace("reps = 4", "reps = 10000").replace("T = 30", "T = 100000")
           .replace("n = [100, 150]", "n = [" + ", ".join(str(100 + i) for i in range(500)) + "]")
           .replace("eps = [4.0]", "eps = [" + ", ".join(str(1 + i / 10) for i in range(100)) + "]"))
    err = _cli_refusal(capsys, tmp_path, big)
    assert "extrapolated from 200 of its 100000 cells" in err and "--max-hours 24" in err
    # the limit is the user's: a small one refuses the small spec, with the figures
    err = _cli_refusal(capsys, tmp_path, SPEC.replace("T = 30", "T = 300000"), "--max-hours", "0.00001")
    assert "above --max-hours 1e-05" in err
    err = _cli_refusal(capsys, tmp_path, SPEC, "--max-cell-gb", "0.001")
    assert "above --max-cell-gb 0.001" in err and "MB of memory" in err
    # and raising it admits the spec (costed, not run here)
    est = sweep.estimate_sweep(sweep.load_spec(SPEC.replace("reps = 4", "reps = 1000000000")), max_cell_gb=1e4,
                               max_hours=1e9)
    assert est["largest_bytes"] > 4e9 and est["cells"] == 4
    (tmp_path / "spec.toml").write_text(SPEC)
    for bad in ("0", "-1", "inf", "nan", "x"):
        code = cli.main(["sweep", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "o"), "--max-hours", bad])
        assert code == 2 and capsys.readouterr().err.count("\n") == 1


def test_estimate_matches_the_engine_estimate_of_each_cell():
    spec = sweep.load_spec(SPEC)
    est = sweep.estimate_sweep(spec)
    total = 0.0
    for c in spec.cells():
        data, lossobj, params = sweep._cell_inputs(c)  # the built data set: its cost is not counted again
        e = sim.estimate_cost(c.algorithm, data, lossobj, reps=spec.reps, params=params, eval_rows=spec.eval_rows)
        total += e["engine_seconds"]
    assert est["seconds"] >= total  # plus data generation
    assert est["seconds"] < total + 4 * 2.0  # four small data sets take well under 2 s each


def test_spec_path_with_equals_sign_nested_toml_and_real_data_beyond_its_size(tmp_path, capsys):
    # a file name containing '=' is a file, not TOML text
    named = tmp_path / "eps=1.toml"
    named.write_text(SPEC)
    assert sweep.load_spec(str(named)) == sweep.load_spec(SPEC)
    assert cli.main(["sweep", str(named), "--out", str(tmp_path / "o"), "--max-cell-gb", "0.000001"]) == 2
    assert "not valid TOML" not in capsys.readouterr().err
    # 5000-deep nested arrays: one line, no RecursionError
    err = _cli_refusal(capsys, tmp_path, "a = " + "[" * 5000 + "]" * 5000 + "\n", name="deep.toml")
    assert "nested too deeply" in err
    with pytest.raises(ValueError, match="nested too deeply"):
        sweep.load_spec("x = " + "{a = " * 3000 + "1" + "}" * 3000)
    # a huge spec file is refused before it is parsed
    err = _cli_refusal(capsys, tmp_path, SPEC + "# " + "x" * 2_000_000 + "\n", name="huge.toml")
    assert "at most 1,000,000" in err
    # a real data set (309 training rows) with n beyond its size: one line, before any worker starts
    real = SPEC.replace('"wang-least-squares"', '"diabetes"').replace("n = [100, 150]", "n = [100, 10000000]")
    err = _cli_refusal(capsys, tmp_path, real, name="real.toml")
    assert "n = 10000000 exceeds the 309 training examples of the data set 'diabetes'" in err
    assert "Traceback" not in err


def test_a_cell_failing_on_a_worker_is_one_line_without_a_worker_traceback(tmp_path, clients, monkeypatch, capfd):
    spec = sweep.load_spec(SPEC)

    def boom(cell):
        raise ValueError("a bad setting found only while running")

    monkeypatch.setattr(sweep.cells, "run_cell", boom)  # what the Dask task calls (dpviz.studies.sweep.cells)
    with pytest.raises(ValueError, match="cell .* failed: a bad setting found only while running"):
        sweep.run_sweep(spec, tmp_path / "o", client=clients[1], progress=False, log=lambda m: None)
    assert "Traceback" not in capfd.readouterr().err


def _damage(files):
    """Truncate, empty and garble three cell files (as the issue did)."""
    blob = files[0].read_bytes()
    files[0].write_bytes(blob[: len(blob) // 2])
    files[1].write_bytes(b"")
    raw = bytearray(files[2].read_bytes())
    raw[100:120] = b"garbage-garbage-garb"
    files[2].write_bytes(bytes(raw))


def test_resume_verifies_cells_and_reruns_the_damaged_ones(tmp_path, clients):
    spec = sweep.load_spec(SPEC)
    out = tmp_path / "run"
    sweep.run_sweep(spec, out, client=clients[2], progress=False, log=lambda m: None)
    good = _numbers(sweep.load_sweep(out))
    files = sorted(out.glob("cell-*.parquet"))
    _damage(files)
    # load_sweep names every damaged file instead of raising pyarrow's error
    with pytest.raises(ValueError) as info:
        bounded(lambda: sweep.load_sweep(out), seconds=30, mb=100)
    msg = str(info.value)
    assert msg.startswith("3 of the 4 cell files") and all(f.name in msg for f in files[:3])
    assert "truncated" in msg and "empty" in msg and "python -m dpviz sweep" in msg
    # a wrong number of rows, or another cell's rows under this name, is damage too
    import pyarrow.parquet as pq

    t = pq.read_table(files[3])
    pq.write_table(t.slice(0, 2), files[3])
    assert "expected one per repetition" in sweep.check_cell_file(files[3], reps=4)
    assert sweep.check_cell_file(files[3], cell_id="0" * 16).startswith("its rows belong to another cell")
    # resuming reruns exactly the four damaged cells and says so, with the same numbers as before
    lines = []
    res = bounded(lambda: sweep.run_sweep(spec, out, client=clients[1], progress=False, log=lines.append),
                  seconds=120, mb=300)
    assert (res["skipped"], res["ran"], res["rerun"]) == (0, 4, 4)
    assert any(line.startswith("running again 4 cell(s) whose file is damaged") for line in lines)
    pd.testing.assert_frame_equal(_numbers(sweep.load_sweep(out)), good)
    again = sweep.run_sweep(spec, out, client=clients[1], progress=False, log=lambda m: None)
    assert (again["skipped"], again["ran"], again["rerun"]) == (4, 0, 0)


def test_output_folder_is_a_parquet_dataset_and_old_folders_still_load(tmp_path, clients):
    import pyarrow.dataset as ds

    spec = sweep.load_spec(SPEC)
    out = tmp_path / "run"
    sweep.run_sweep(spec, out, client=clients[2], progress=False, log=lambda m: None)
    assert {p.name for p in out.iterdir() if not p.name.startswith("cell-")} == {"_spec.toml", "_sweep.json",
                                                                                 "_cells.sha256"}
    whole = pd.read_parquet(out)
    assert len(whole) == 4 * 4 and set(whole["cell_id"]) == {c.cell_id for c in spec.cells()}
    assert ds.dataset(out, format="parquet").count_rows() == 16
    dd = pytest.importorskip("dask.dataframe")
    assert len(dd.read_parquet(str(out)).compute()) == 16
    new = sweep.load_sweep(out)
    # a folder of an earlier version (sweep.json and spec.toml beside the cells) loads the same ...
    (out / "_sweep.json").rename(out / "sweep.json")
    (out / "_spec.toml").rename(out / "spec.toml")
    with pytest.raises(Exception):
        pd.read_parquet(out)
    pd.testing.assert_frame_equal(sweep.load_sweep(out), new)
    pd.testing.assert_frame_equal(sweep.load_sweep(out, x="eps"), sweep.load_sweep(out, x="eps"))
    # ... and resuming into it renames the metadata, which makes it a Parquet dataset
    lines = []
    sweep.run_sweep(spec, out, client=clients[2], progress=False, log=lines.append)
    assert not (out / "sweep.json").exists() and (out / "_sweep.json").is_file()
    assert any("renamed spec.toml and sweep.json" in line for line in lines)
    assert len(pd.read_parquet(out)) == 16
