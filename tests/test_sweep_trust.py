"""Issue 34, "Sweeps and uploads": sweep data you can trust, uploads with bounded cost, messages that name the cause.

One test (or more) per finding of the issue, each failing on the code before the fix:

1. a Parquet dictionary bomb (1 000 rows pointing at one 1 MB string) is refused before its strings are made, and the
   page decodes uploads in a child process with a hard memory limit, whose refusal is not called "damaged";
2. opening and parsing an upload costs the calling (server) thread almost nothing: it runs in a limited child; cell,
   column and row-group counts and the footer's size are capped, each with its message;
3. a copy of a cell saved under another name in a sweep folder is reported and never read (no duplicate rows);
4. each cell's SHA-256 is recorded in the manifest when written; an altered cell is run again on resume and refused,
   by name, on load;
5. values outside a quantity's range (excess risk -1, 1e308, inf) are flagged and left out of the means and the fit,
   with the count shown;
6. messages: a CSV with one 4.9-million-digit number, a CSV with NUL bytes, ``--json --statement``.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dpviz.studies import sweep
from dpviz_ui import sweep_open as so
from dpviz_ui import workers

SPEC = """
name = "trust"
algorithms = ["dpsgd-rdp", "sgd"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = 4
seed = 3
n_test = 200
eval_rows = 100
[grid]
n = [100, 200]
eps = [2.0, 4.0, 8.0]
[params]
T = 20
eta = 0.05
R = 1.0
noise_rule = "experiment"
"""
ROWS = 2 * 2 * 3 * 4  # algorithms x n x eps x reps


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0", silence_logs=40)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def folder(tmp_path, client):
    spec = sweep.load_spec(SPEC)
    out = tmp_path / "run"
    sweep.run_sweep(spec, out, client=client, progress=False, log=lambda m: None)
    return spec, out


def _cell_files(out: Path) -> list[Path]:
    return sorted(out.glob("cell-*.parquet"))


def _rewrite(path: Path, **changes) -> None:
    """Rewrite a cell as a valid Parquet file with some columns changed (``column=function of the old values``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = pq.read_table(path).to_pandas()
    for col, fn in changes.items():
        frame[col] = fn(frame[col].to_numpy())
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)


# ---------------------------------------------------------------------------------------------------------------
# 3, 4: the manifest


def test_manifest_records_every_cell_hash_in_sha256sum_format(folder):
    spec, out = folder
    manifest = sweep.read_manifest(out)
    assert set(manifest) == {f"cell-{c.cell_id}.parquet" for c in spec.cells()}
    for f in _cell_files(out):
        assert manifest[f.name] == sweep.file_sha256(f)
    import hashlib

    f = _cell_files(out)[0]
    assert manifest[f.name] == hashlib.sha256(f.read_bytes()).hexdigest()  # an independent SHA-256
    if shutil.which("sha256sum"):  # the manifest checks with the standard tool, from the command line
        res = subprocess.run(["sha256sum", "-c", sweep.MANIFEST_FILE], cwd=out, capture_output=True, text=True)
        assert res.returncode == 0 and res.stdout.count(": OK") == len(spec.cells())


def test_a_stray_copy_of_a_cell_is_reported_and_never_read(folder, client):
    spec, out = folder
    shutil.copy(_cell_files(out)[0], out / "cell-foreign.parquet")
    notes = []
    frame = sweep.load_sweep(out, notes=notes)
    assert len(frame) == ROWS  # not ROWS + 4: the copy is not read
    assert not frame.duplicated(["algorithm", "n", "eps", "rep"]).any()
    assert any("cell-foreign.parquet" in n and "were not read" in n for n in notes)
    with pytest.warns(UserWarning, match="cell-foreign.parquet"):
        sweep.load_sweep(out)
    lines = []
    res = sweep.run_sweep(spec, out, client=client, progress=False, log=lines.append)
    assert (res["ran"], res["strays"]) == (0, ["cell-foreign.parquet"])
    assert any("cell-foreign.parquet" in line and "never read" in line for line in lines)
    # the same folder as an uploaded zip: the copy is left out and named on the page
    data = so.read_upload("run.zip", _zip(out))
    assert len(data.frame(None)) == ROWS and any("cell-foreign.parquet" in n for n in data.notes)


def test_the_dashboard_neither_counts_nor_reads_files_that_are_not_cells(folder, tmp_path):
    """A copy of a cell and a file with a cell's name that no cell of the spec has are not counted by the sweep list,
    not read (not even their footer) when the folder or its zip is opened, and named in the notes."""
    spec, out = folder
    root = tmp_path / "sweeps"
    shutil.copytree(out, root / "run")
    d = root / "run"
    shutil.copy(_cell_files(d)[0], d / "cell-foreign.parquet")
    (d / "cell-0123456789abcdef.parquet").write_bytes(b"PAR1 not a cell of this sweep PAR1")
    theirs = {f"cell-{c.cell_id}.parquet" for c in spec.cells()}
    # a folder holding nothing but such files is no sweep to list
    (root / "only-strays").mkdir()
    for name in (sweep.META_FILE, sweep.MANIFEST_FILE, "cell-foreign.parquet"):
        shutil.copy(d / name, root / "only-strays" / name)
    found = so.list_sweeps(root)
    assert [(f["name"], f["cells"]) for f in found] == [("run", len(theirs))]  # 12, not 14
    for data in (so.open_sweep_dir(root, "run"), so.read_upload("run.zip", _zip(d))):
        assert set(data.files) == theirs
        assert len(data.frame(None)) == ROWS
        assert any("cell-foreign.parquet" in n and "cell-0123456789abcdef.parquet" in n and "were not read" in n
                   for n in data.notes), data.notes
    with pytest.raises(ValueError, match="no sweep called"):
        so.open_sweep_dir(root, "only-strays")


def test_an_altered_cell_is_recomputed_on_resume_and_refused_on_load(folder, client):
    spec, out = folder
    good = sweep.load_sweep(out)
    victim = _cell_files(out)[2]
    _rewrite(victim, excess_risk=lambda x: x * 1000)  # valid Parquet, the right cell id and reps: only the values
    assert sweep.check_cell_file(victim, cell_id=victim.name[5:-8], reps=spec.reps) is None
    with pytest.raises(ValueError) as info:
        sweep.load_sweep(out)
    msg = str(info.value)
    assert victim.name in msg and "SHA-256" in msg and "python -m dpviz sweep" in msg
    # the page refuses it with the cell named
    with pytest.raises(ValueError, match=victim.name):
        so.read_upload("run.zip", _zip(out)).warm()
    lines = []
    res = sweep.run_sweep(spec, out, client=client, progress=False, log=lines.append)
    assert (res["ran"], res["rerun"]) == (1, 1)
    assert any(victim.name in line and "SHA-256" in line for line in lines)
    again = sweep.load_sweep(out)
    cols = ["algorithm", "n", "eps", "rep", "excess_risk"]
    assert np.allclose(again[cols[-1]], good[cols[-1]])  # the cell's own numbers again (seeded)


def test_a_cell_written_without_its_manifest_line_is_run_again(folder, client):
    """A run killed between writing a cell and recording its hash leaves a cell that is not in the manifest: the next
    run names it and computes it again instead of trusting it."""
    spec, out = folder
    victim = _cell_files(out)[1]
    kept = [ln for ln in (out / sweep.MANIFEST_FILE).read_text().splitlines() if victim.name not in ln]
    (out / sweep.MANIFEST_FILE).write_text("\n".join(kept) + "\n" + "0123abc")  # and a torn last line
    notes = []
    assert len(sweep.load_sweep(out, notes=notes)) == ROWS - spec.reps
    assert any(victim.name in n for n in notes)
    lines = []
    res = sweep.run_sweep(spec, out, client=client, progress=False, log=lines.append)
    assert (res["ran"], res["rerun"]) == (1, 1) and any("not in the sweep's manifest" in line for line in lines)
    assert len(sweep.load_sweep(out)) == ROWS


def test_a_folder_without_manifest_still_loads_and_resuming_records_it(folder, client):
    spec, out = folder
    (out / sweep.MANIFEST_FILE).unlink()
    notes = []
    assert len(sweep.load_sweep(out, notes=notes)) == ROWS
    assert any("no manifest" in n for n in notes)
    lines = []
    sweep.run_sweep(spec, out, client=client, progress=False, log=lines.append)
    assert len(sweep.read_manifest(out)) == len(spec.cells())
    assert any("had no manifest" in line for line in lines)


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.iterdir()):
            zf.write(p, "run/" + p.name)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# 5: values outside a quantity's range


def test_absurd_values_are_flagged_and_left_out_of_the_fit(folder):
    spec, out = folder
    data = so.read_upload("run.zip", _zip(out))
    clean = dict((r.algorithm, r) for lab, r in data.results("n", "excess_risk") if lab == "ε = 2")
    # three rows of one dpsgd-rdp cell (n = 100, eps = 2) made absurd, then re-hashed as if the sweep wrote them
    import pyarrow.parquet as pq

    target = next(f for f in _cell_files(out) if (lambda t: t["algorithm"][0] == "dpsgd-rdp" and t["n"][0] == 100
                                                   and t["eps"][0] == 2.0)(pq.read_table(f).to_pydict()))
    _rewrite(target, excess_risk=lambda x: np.array([-1.0, 1e308, np.inf, x[3]]))
    (out / sweep.MANIFEST_FILE).write_text("".join(f"{sweep.file_sha256(f)}  {f.name}\n" for f in _cell_files(out)))
    data = so.read_upload("run.zip", _zip(out))
    res = dict((r.algorithm, r) for lab, r in data.results("n", "excess_risk") if lab == "ε = 2")["dpsgd-rdp"]
    note = next(n for n in res.notes if "outside its range" in n)
    assert note.startswith("3 of 8 rows have a excess_risk outside its range") or note.startswith("3 of 8 rows")
    assert "-1" in note and "1e+308" in note and "inf" in note
    # the mean at n = 100 is the one remaining repetition's value; the fit uses the two means (computed by hand)
    s = res.summary("excess_risk")
    f = res.frame
    kept = f[(f["n"] == 100)]["excess_risk"].dropna()
    assert len(kept) == 1 and s["mean"].iloc[0] == pytest.approx(float(kept.iloc[0]))
    m200 = float(f[f["n"] == 200]["excess_risk"].mean())
    slope = (math.log(m200) - math.log(float(kept.iloc[0]))) / (math.log(200) - math.log(100))
    assert res.slope("excess_risk")["slope"] == pytest.approx(slope)
    assert abs(slope) < 10  # not the "fitted log-log slope 644.91" of the issue
    # the other algorithm is untouched
    assert clean["sgd"].summary("excess_risk")["mean"].tolist() == pytest.approx(
        dict((r.algorithm, r) for lab, r in data.results("n", "excess_risk") if lab == "ε = 2")["sgd"]
        .summary("excess_risk")["mean"].tolist())


def test_range_rules():
    import pandas as pd

    f = pd.DataFrame({"excess_risk": [0.1, -1e-9, -0.5, 2.0, np.nan, 1e200],
                      "pop_risk": [0.5, 0.4, 0.4, 0.5, 0.5, 1e201]})
    # -1e-9: solver tolerance (dpviz.engine.reference); 2.0 > its population risk 0.5 (losses >= 0); 1e200 > 1e150
    assert so.out_of_range(f, "excess_risk").tolist() == [False, False, True, True, False, True]
    g = pd.DataFrame({"metric": [0.5, 1.2, -0.1], "metric_name": ["accuracy"] * 3})
    assert so.out_of_range(g, "metric").tolist() == [False, True, True]


# ---------------------------------------------------------------------------------------------------------------
# 1: the dictionary bomb


def _bomb(rows: int = 1000, size: int = 1_000_000) -> bytes:
    """A sweep-shaped Parquet file whose text column ``note`` is dictionary-encoded: ``rows`` rows pointing at one
    string of ``size`` characters (a few KB on disk, rows x size bytes once decoded).  Without the Arrow schema in
    the file (``store_schema=False``, as any other Parquet writer), a reader sees a plain text column and materialises
    every row's string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"algorithm": pa.array(["sgd"] * rows), "rep": pa.array(np.arange(rows)),
            "pop_risk": pa.array(np.ones(rows)), "excess_risk": pa.array(np.ones(rows)),
            "spec_hash": pa.array(["h"] * rows), "seed": pa.array(np.zeros(rows, dtype=np.int64)),
            "dpviz_version": pa.array(["0"] * rows), "n": pa.array(100 + np.arange(rows) % 2),
            "note": pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array(["a" * size]))}
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf, compression="zstd", store_schema=False)
    return buf.getvalue()


def test_dictionary_bomb_is_refused_before_its_strings_are_made():
    import pyarrow as pa

    blob = _bomb(rows=200)  # 200 MB once decoded (the issue's file: 1 000 rows, 1 GB)
    assert len(blob) < 10_000
    data = so.read_upload("bomb.parquet", blob)  # the footer says little: the dictionary's entries are not in it
    before = pa.total_allocated_bytes()
    t0 = time.process_time()
    with pytest.raises(ValueError) as info:
        data.warm()
    assert time.process_time() - t0 < 2.0
    assert pa.total_allocated_bytes() - before < 5_000_000
    msg = str(info.value)
    assert "note" in msg and "1,000,000 bytes" in msg and "damaged" not in msg and "\n" not in msg
    assert data._base is None  # nothing kept


def test_dictionary_within_the_text_cap_is_bounded_by_its_decoded_size(monkeypatch):
    monkeypatch.setattr(so, "MAX_DECODED_BYTES", 10_000_000)
    blob = _bomb(rows=5000, size=5000)  # 25 MB once decoded, every value within MAX_TEXT_CHARS
    with pytest.raises(ValueError, match=r"'note' expands to more than 10 MB once decoded"):
        so.read_upload("bomb.parquet", blob).warm()


def test_the_issues_100_gb_variant_is_refused_from_its_dictionary():
    import pyarrow as pa

    blob = _bomb(rows=100_000)  # 100 GB once decoded
    before = pa.total_allocated_bytes()
    t0 = time.process_time()
    with pytest.raises(ValueError, match="1,000,000 bytes"):
        so.read_upload("bomb.parquet", blob).warm()
    assert time.process_time() - t0 < 2.0
    assert pa.total_allocated_bytes() - before < 5_000_000


def test_a_dictionary_page_larger_than_the_footer_says_counts():
    """The footer's sizes can understate a dictionary page; its own header (read from the file) is counted."""
    blob = _bomb(rows=10, size=1_000_000)
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(pa.BufferReader(blob)).metadata
    col = next(meta.row_group(0).column(c) for c in range(meta.num_columns)
               if meta.row_group(0).column(c).path_in_schema == "note")
    assert so._dictionary_page_size(blob, col.dictionary_page_offset) == 1_000_004  # one entry: length + 1 MB
    assert so._dictionary_page_size(blob, col.data_page_offset) is None  # a data page, not a dictionary


def test_page_opens_uploads_in_a_limited_child_and_names_the_cause():
    # the bomb, through the page's job: one message, the server thread does none of the work
    t0 = time.thread_time()
    with pytest.raises(ValueError) as info:
        workers.open_sweep("upload", "bomb.parquet", _bomb(rows=1000))
    assert time.thread_time() - t0 < 1.0
    assert "1,000,000 bytes" in str(info.value) and "damaged" not in str(info.value)


def test_run_limited_stops_a_job_at_its_memory_limit_with_a_message():
    import _pool_jobs

    with pytest.raises(workers.MemoryLimit) as info:
        workers.run_limited(_pool_jobs.allocate, 2_000_000_000, memory=300_000_000, seconds=20, what="decoding x.parquet")
    msg = str(info.value)
    assert "decoding x.parquet" in msg and "0.3 GB" in msg and "damaged" not in msg and "cannot be read" not in msg
    assert workers.run_limited(_pool_jobs.allocate, 1_000_000, memory=300_000_000, seconds=20, what="x") == 1_000_000


def test_run_limited_stops_a_job_at_its_cpu_limit():
    import _pool_jobs

    t0 = time.perf_counter()
    with pytest.raises(workers.TimeLimit, match="more than 1 s of CPU time"):
        workers.run_limited(_pool_jobs.spin, memory=300_000_000, seconds=1, what="parsing y")
    assert time.perf_counter() - t0 < 60


# ---------------------------------------------------------------------------------------------------------------
# 2: caps, and the cost on the server thread


def _cell_blob(folder_out: Path) -> bytes:
    return _cell_files(folder_out)[0].read_bytes()


def test_many_cells_are_refused_before_any_footer_is_parsed(folder, monkeypatch):
    spec, out = folder
    blob = _cell_blob(out)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for i in range(so.MAX_CELLS + 1):
            zf.writestr(f"s/cell-{i:016x}.parquet", blob)
    t0 = time.process_time()
    with pytest.raises(ValueError, match=f"{so.MAX_CELLS + 1:,} cell files; the dashboard opens sweeps of at most"):
        so.read_upload("many.zip", buf.getvalue())
    assert time.process_time() - t0 < 1.0


def test_many_valid_cells_cost_the_server_thread_nothing(folder):
    """The issue's 4 990-cell zip cost 25 CPU-s on the server process: now every footer and page is read in the
    limited child (here 400 cells of the sweep, renamed, within the caps)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec, out = folder
    files = _cell_files(out)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(400):
            t = pq.read_table(files[i % len(files)]).to_pandas()
            t["cell_id"] = f"{i:016x}"  # a cell of its own (its file name's id)
            one = io.BytesIO()
            pq.write_table(pa.Table.from_pandas(t, preserve_index=False), one)
            zf.writestr(f"s/cell-{i:016x}.parquet", one.getvalue())
    t0 = time.thread_time()
    data = workers.open_sweep("upload", "many.zip", buf.getvalue())
    assert time.thread_time() - t0 < 2.0  # the unpickling of the result only
    assert len(data.frame(None)) == 400 * spec.reps and data.files == {}


def test_wide_parquet_and_many_row_groups_are_refused_by_count():
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = {"algorithm": ["sgd"] * 10, "rep": list(range(10)), "pop_risk": [1.0] * 10, "excess_risk": [1.0] * 10,
            "spec_hash": ["h"] * 10, "seed": [0] * 10, "dpviz_version": ["0"] * 10}
    wide = dict(base, **{f"x{i}": [0.0] * 10 for i in range(so.MAX_COLUMNS)})
    buf = io.BytesIO()
    pq.write_table(pa.table(wide), buf)
    with pytest.raises(ValueError, match=f"has {so.MAX_COLUMNS + 7:,} columns"):
        so.read_upload("wide.parquet", buf.getvalue())
    # a footer too large to be a cell's (the issue's 30 000 columns) is refused before it is parsed
    huge = dict(base, **{f"column_with_a_long_name_{i}": [0.0] * 2 for i in range(30_000)})
    huge = {k: v[:2] for k, v in huge.items()}
    buf = io.BytesIO()
    pq.write_table(pa.table(huge), buf)
    t0 = time.process_time()
    with pytest.raises(ValueError, match="footer"):
        so.read_upload("wider.parquet", buf.getvalue())
    assert time.process_time() - t0 < 0.5
    buf = io.BytesIO()
    pq.write_table(pa.table(base), buf, row_group_size=1)
    with pytest.raises(ValueError, match="10 row groups"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(so, "MAX_ROW_GROUPS", 5)
            so.read_upload("groups.parquet", buf.getvalue())


# ---------------------------------------------------------------------------------------------------------------
# 6: messages


def test_csv_with_a_huge_number_or_nul_bytes_says_so():
    from dpviz.engine import data

    blob = b"a,b\n" + b"1" * 4_900_000 + b",2\n" + b"3,4\n" * 20
    with pytest.raises(ValueError) as info:
        data.from_csv(blob, "b")
    msg = str(info.value)
    assert "4,900,000 digits" in msg and "column a" in msg and "not numeric" not in msg and len(msg) < 300
    with pytest.raises(ValueError, match=r"NUL bytes \(the first on line 2\)"):
        data.from_csv(b"a,b\n1\x00,2\n" + b"3,4\n" * 20, "b")
    with pytest.raises(ValueError, match="UTF-16"):
        data.from_csv("a,b\n1,2\n".encode("utf-16-le") * 5, "b")
    with pytest.raises(ValueError, match=r"not numeric: a \(e.g. 'x'\)"):
        data.from_csv(b"a,y\n" + b"x,2\n" * 20, "y")


def test_a_long_text_value_next_to_small_numbers_is_named_as_text_with_its_length():
    """A 4-million-character text value in a column whose other cells are small numbers: the message quotes the text
    and says how long it is (it said "holds a number of 1 digits, too large", naming the harmless 3)."""
    from dpviz.engine import data

    with pytest.raises(ValueError) as info:
        data.from_csv(b"a,b\n" + b"x" * 4_000_000 + b",2\n" + b"3,4\n" * 20, "b")
    msg = str(info.value)
    assert "not numeric: a" in msg and "a value of 4,000,000 characters" in msg and "digits" not in msg
    assert len(msg) < 300


def test_the_csv_parse_runs_under_a_memory_limit_in_its_worker():
    """CSV uploads are parsed in a pool worker under a hard memory limit (as Parquet uploads are): past it the job
    stops with one message naming the cause, and the worker goes on with its next job, the limit lifted."""
    from dpviz.engine import data
    from dpviz_ui import workers

    assert 0 < data.CSV_MEMORY_LIMIT <= 1_000_000_000
    blob = b"a,b\n" + b"1" * 4_900_000 + b",2\n" + b"3,4\n" * 20
    pool = workers.WorkerPool(1, nice=0)
    try:
        with pytest.raises(workers.MemoryLimit, match=r"^reading the CSV needed more than 5 MB of memory, the limit "
                                                      r"for an uploaded CSV \(very long lines or values"):
            pool.submit("me", workers.load_csv, blob, "b", memory_limit=5_000_000).result(120)
        with pytest.raises(ValueError, match="4,900,000 digits"):  # the default limit: the file's own message
            pool.submit("me", workers.load_csv, blob, "b").result(120)
        ok = "a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(50))
        assert pool.submit("me", workers.load_csv, ok.encode(), "y").result(60).n == 35
    finally:
        pool.shutdown()


def test_json_statement_prints_json_with_the_statement(capsys):
    from dpviz.cli import commands as cli

    argv = ["privacy", "--n", "1000", "--batch-size", "10", "--steps", "100", "--noise-multiplier", "1",
            "--delta", "1e-5", "--statement"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert cli.main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["statement"] == text and out["steps"] == 100
    argv = ["account", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1", "--delta", "1e-5", "--T", "100",
            "--G", "1", "--statement"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert cli.main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["statement"] == text and out["algorithm"] == "dpsgd-rdp" and out["eps"] > 0


# ---------------------------------------------------------------------------------------------------------------
# the page: an altered cell refused with its name, absurd values flagged with their count


def test_simulate_page_names_an_altered_cell_and_flags_absurd_values(folder, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    import pyarrow.parquet as pq

    spec, out = folder
    root = tmp_path / "sweeps"
    root.mkdir()
    shutil.copytree(out, root / "altered")
    shutil.copytree(out, root / "absurd")
    victim = _cell_files(root / "altered")[0]
    _rewrite(victim, excess_risk=lambda x: x * 1000)
    target = next(f for f in _cell_files(root / "absurd") if pq.read_table(f)["algorithm"][0].as_py() == "sgd")
    _rewrite(target, excess_risk=lambda x: np.array([-1.0, 1e308, np.inf, x[3]]))
    man = root / "absurd" / sweep.MANIFEST_FILE
    man.write_text("".join(f"{sweep.file_sha256(f)}  {f.name}\n" for f in _cell_files(root / "absurd")))
    monkeypatch.setenv("DPVIZ_SWEEPS_DIR", str(root))
    so.KEPT._items.clear()
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120)
    at.query_params["sim_source"] = "sweep"
    at.query_params["sweep_dir"] = "altered"
    at.run()
    at.switch_page("pages/simulate.py").run()
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]  # the text as shown (Markdown escapes removed)
    assert len(errors) == 1 and victim.name in errors[0] and "SHA-256" in errors[0]
    assert not at.get("plotly_chart")  # no numbers from an altered sweep
    assert all(k[0] != "folder" or "altered" not in k for k in so.KEPT._items)  # a refusal is never kept
    at.selectbox(key="w_sweep_dir").set_value("absurd").run()
    assert not at.exception and not at.error
    flagged = [w.value.replace("\\", "") for w in at.warning if "outside its range" in w.value]
    assert len(flagged) == 1 and "3 of" in flagged[0] and "left out of the means" in flagged[0]
    assert at.get("plotly_chart")
