"""Opening a sweep's Parquet output on the Simulate page: the safe ways in (dpviz_ui.sweep_open) and the page itself."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpviz import __version__
from dpviz.foundation import stats
from dpviz.studies import sweep
from dpviz_ui import sweep_open as so

APP = Path(__file__).resolve().parent.parent / "app.py"
SPEC = """
name = "small rate study"
algorithms = ["dpsgd-rdp", "sgd"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = 4
seed = 3
n_test = 200
eval_rows = 100
[grid]
n = [100, 200, 400]
eps = [2.0, 4.0, 8.0]
[params]
T = 30
eta = 0.05
R = 1.0
noise_rule = "experiment"
"""


def make_sweep(out: Path, text: str = SPEC):
    """A sweep's --out folder exactly as run_sweep writes it (cells run in-process, without Dask)."""
    spec = sweep.load_spec(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "spec.toml").write_text(spec.source, encoding="utf-8")
    (out / "sweep.json").write_text(json.dumps({"spec": spec.to_dict(), "spec_hash": spec.hash,
                                                "dpviz_version": __version__}), encoding="utf-8")
    for c in spec.cells():
        sweep._write_cell(sweep.run_cell(c), out, c.cell_id)
    return spec


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    base = tmp_path_factory.mktemp("sweeps")
    spec = make_sweep(base / "rate-study")
    (base / "not-a-sweep").mkdir()
    (base / "not-a-sweep" / "notes.txt").write_text("hello")
    (base / "bad json").mkdir()  # a name that cannot be in a link is not listed either
    return base, spec


def _zip(folder: Path, extra: dict | None = None, prefix: str = "rate-study/") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.iterdir()):
            zf.write(p, prefix + p.name)
        for name, blob in (extra or {}).items():
            zf.writestr(name, blob)
    return buf.getvalue()


def test_folder_listing_and_frame_equal_load_sweep(root):
    base, spec = root
    found = so.list_sweeps(base)
    assert [f["name"] for f in found] == ["rate-study"]
    assert found[0]["spec_hash"] == spec.hash and found[0]["cells"] == 18 and found[0]["grid"] == {"n": 3, "eps": 3}
    data = so.open_sweep_dir(base, "rate-study")
    assert data.rows == 2 * 9 * 4 and data.x_choices() == ["n", "eps"]
    for x in ("n", "eps"):
        pd.testing.assert_frame_equal(data.frame(x), sweep.load_sweep(base / "rate-study", x=x))
    prov = data.provenance()
    assert (prov["spec_hash"], prov["seed"], prov["dpviz_version_of_sweep"]) == (spec.hash, "3", __version__)
    for bad in ("../rate-study", "not-a-sweep", "/etc", "bad json"):
        with pytest.raises(ValueError, match="no sweep called"):
            so.open_sweep_dir(base, bad)
    assert so.list_sweeps(base / "missing") == []


def test_results_are_one_curve_per_algorithm_and_other_grid_value(root):
    base, _ = root
    data = so.open_sweep_dir(base, "rate-study")
    res = data.results("n", "excess_risk")
    assert [(lab, r.algorithm) for lab, r in res] == [(f"ε = {e:g}", a) for a in ("dpsgd-rdp", "sgd")
                                                      for e in (2, 4, 8)]
    raw = sweep.load_sweep(base / "rate-study", x="n")
    lab, r = res[1]  # DP-SGD at eps = 4: the mean over the 4 repetitions at each n, as the page's own runs
    mine = raw[(raw.algorithm == "dpsgd-rdp") & (raw.eps == 4.0)]
    s = r.summary("excess_risk")
    assert list(s["grid"]) == [100.0, 200.0, 400.0]
    assert list(s["mean"]) == pytest.approx([mine[mine.n == n]["excess_risk"].mean() for n in (100, 200, 400)])
    assert r.slope("excess_risk")["slope"] == pytest.approx(
        stats.loglog_slope(np.array([100.0, 200.0, 400.0]), s["mean"].to_numpy())["slope"])
    with pytest.raises(ValueError, match="swept parameters"):
        data.results("alpha")


def test_upload_of_a_zip_or_one_parquet_file(root):
    base, spec = root
    data = so.read_upload("rate-study.zip", _zip(base / "rate-study", {"__MACOSX/._x": b"junk"}))
    assert data.rows == 72 and data.meta["spec_hash"] == spec.hash
    pd.testing.assert_frame_equal(data.frame("eps"), sweep.load_sweep(base / "rate-study", x="eps"))
    one = sorted((base / "rate-study").glob("cell-*.parquet"))[0]
    single = so.read_upload("C:\\Users\\me\\" + one.name, one.read_bytes())
    assert single.meta is None and single.rows == 4 and single.source == one.name


@pytest.mark.parametrize("name, blob, words", [
    ("evil.pkl", pickle.dumps({"a": 1}), "neither a .zip"),
    ("evil.parquet", pickle.dumps({"a": 1}), "not a Parquet file"),
    ("fake.parquet", b"PAR1" + b"\0" * 40 + b"PAR1", "cannot be read as Parquet"),
    ("fake.zip", b"PK\x03\x04garbage", "not a readable zip"),
    ("notzip.zip", b"hello", "not a zip archive"),
])
def test_bad_uploads_are_refused_clearly(name, blob, words):
    with pytest.raises(ValueError, match=words):
        so.read_upload(name, blob)


def test_zip_with_foreign_files_paths_or_wrong_columns_is_refused(root, tmp_path):
    base, _ = root
    with pytest.raises(ValueError, match="not part of a sweep"):
        so.read_upload("a.zip", _zip(base / "rate-study", {"../../evil.sh": b"rm -rf /"}))
    with pytest.raises(ValueError, match="twice"):
        so.read_upload("a.zip", _zip(base / "rate-study", {"other/sweep.json": (base / "rate-study" /
                                                                                "sweep.json").read_bytes()}))
    # a Parquet file of other data (no provenance columns), and one with a binary column
    other = tmp_path / "other.parquet"
    pd.DataFrame({"x": [1.0, 2.0]}).to_parquet(other)
    with pytest.raises(ValueError, match="lacks the column"):
        so.read_upload("other.parquet", other.read_bytes())
    blobby = tmp_path / "blob.parquet"
    frame = sweep.load_sweep(base / "rate-study").head(3).copy()
    frame["payload"] = [pickle.dumps(1)] * 3
    frame.to_parquet(blobby)
    with pytest.raises(ValueError, match="not numbers, true/false or text"):
        so.read_upload("blob.parquet", blobby.read_bytes())
    with pytest.raises(ValueError, match="limit is"):
        so.read_upload("big.parquet", b"PAR1" + b"\0" * (so.MAX_UPLOAD_BYTES + 1))


def test_simulate_page_opens_a_sweep_from_the_folder(root, monkeypatch):
    base, spec = root
    monkeypatch.setenv("DPVIZ_SWEEPS_DIR", str(base))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["sim_source"] = "sweep"
    at.run()
    at.switch_page("pages/simulate.py").run()
    assert not at.exception and not at.error
    assert at.query_params["sweep_dir"] in ("rate-study", ["rate-study"])
    data = so.open_sweep_dir(base, "rate-study")
    for x, q in [("eps", "excess_risk"), ("n", "metric"), ("eps", "pop_risk"), ("n", "excess_risk")]:
        at.radio(key="w_sweep_x").set_value(x).run()
        at.radio(key="w_plot_value").set_value(q).run()
        assert not at.exception and not at.error
        assert at.radio(key="w_sweep_x").value == x
        assert at.query_params.get("sweep_x") in (x, [x]) and at.query_params.get("plot_value") in (q, [q], None)
        fig = json.loads(at.get("plotly_chart")[0].proto.spec)
        mean = [t for t in fig["data"] if t["name"].startswith("DP-SGD") and t.get("mode") == "lines+markers"][0]
        res = dict((f"{r.algorithm} {lab}", r) for lab, r in data.results(x, q))
        other = "ε" if x == "n" else "n"
        first = [k for k in res if k.startswith("dpsgd-rdp")][0]
        assert other in mean["name"] and mean["x"] == list(res[first].summary(q)["grid"])
        assert mean["y"] == pytest.approx(list(res[first].summary(q)["mean"]))
        assert spec.hash in fig["layout"]["title"]["text"]
        table = at.dataframe[-1].value
        assert {"spec_hash", "dpviz_version", "seed"} <= set(table.columns)
        assert set(table["spec_hash"]) == {spec.hash}


def test_size_caps_are_read_from_the_metadata_and_links_out_of_the_folder_are_skipped(root, tmp_path, monkeypatch):
    base, _ = root
    one = sorted((base / "rate-study").glob("cell-*.parquet"))[0]
    monkeypatch.setattr(so, "MAX_ROWS", 3)  # each cell file has 4 rows (4 repetitions)
    with pytest.raises(ValueError, match="more than the dashboard opens"):
        so.read_upload("one.parquet", one.read_bytes())
    monkeypatch.undo()
    # a sweep folder whose cell file is a symbolic link to a file elsewhere: that file is not read
    mine = tmp_path / "sweeps"
    make_sweep(mine / "s1", SPEC.replace("n = [100, 200, 400]", "n = [100, 200]").replace("eps = [2.0, 4.0, 8.0]",
                                                                                             "eps = [4.0]"))
    outside = tmp_path / "outside.parquet"
    outside.write_bytes(one.read_bytes())
    (mine / "s1" / "cell-zzzz.parquet").symlink_to(outside)
    data = so.open_sweep_dir(mine, "s1")
    assert "cell-zzzz.parquet" not in data.files and data.rows == 2 * 2 * 4


# ---------------------------------------------------------------------------------------------------------------
# issue 22, item 2: a small Parquet upload that decodes to gigabytes is refused from its footer, before decoding


def _hostile_parquet(rows: int, text: bool = False) -> bytes:
    """A sweep-shaped Parquet file of ``rows`` identical rows (compresses to almost nothing, like the issue's 3.8 MB
    file of 2 M rows); ``text=True`` adds a column of distinct strings (the issue's text-column variant)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"algorithm": pa.array(["sgd"] * rows), "rep": pa.array(np.zeros(rows, dtype=np.int64)),
            "pop_risk": pa.array(np.ones(rows)), "excess_risk": pa.array(np.ones(rows)),
            "spec_hash": pa.array(["h"] * rows), "seed": pa.array(np.zeros(rows, dtype=np.int64)),
            "dpviz_version": pa.array(["0"] * rows), "n": pa.array(np.full(rows, 100, dtype=np.int64)),
            "eps": pa.array(np.ones(rows))}
    for k in range(12):  # a sweep cell's other numeric columns
        cols[f"extra{k}"] = pa.array(np.zeros(rows))
    if text:
        cols["note"] = pa.array([f"{i:040d}" for i in range(rows)])
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf, compression="zstd")
    return buf.getvalue()


@pytest.mark.parametrize("text", [False, True])
def test_decoded_size_is_bounded_before_decoding(text, monkeypatch):
    import time
    import tracemalloc

    import pyarrow as pa

    rows = 400_000  # the 2 M rows scaled down 5x, against a limit scaled down 15x (10 MB)
    blob = _hostile_parquet(rows, text)
    assert len(blob) < 2_000_000  # a small upload
    monkeypatch.setattr(so, "MAX_DECODED_BYTES", 10_000_000)
    arrow0 = pa.total_allocated_bytes()
    tracemalloc.start()
    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"rows, about [\d,]+ MB once decoded: more than the dashboard opens") as err:
        so.read_upload("hostile.parquet", blob)
    cpu = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "\n" not in str(err.value) and len(str(err.value)) < 300  # one short line
    assert cpu < 1.0 and peak < 5_000_000  # the footer only: no column was decoded
    assert pa.total_allocated_bytes() - arrow0 < 1_000_000


@pytest.mark.parametrize("text", [False, True])
def test_decoded_size_estimate_bounds_the_frame(text):
    """The footer estimate is an upper bound of what the decoded frame holds (pandas' own deep count) and not more
    than 4x it for a numeric sweep (text of distinct short strings: Python's 49-byte str header dominates)."""
    blob = _hostile_parquet(20_000, text)
    data = so.read_upload("ok.parquet", blob)
    held = int(data.frame(None).memory_usage(deep=True, index=False).sum())
    assert held <= data.decoded_bytes <= 4 * held


def test_one_decoded_copy_for_every_x_axis(root):
    base, _ = root
    data = so.open_sweep_dir(base, "rate-study").warm()
    a, b = data.frame("n"), data.frame("eps")
    assert a["excess_risk"].to_numpy() is not None
    # the columns other than grid_name / grid are shared, not copied, between the shaped frames
    assert np.shares_memory(a["excess_risk"].to_numpy(), b["excess_risk"].to_numpy())
    assert list(a["grid"]) != list(b["grid"])
    # a pickled copy carries the files, not the decoded rows
    assert pickle.loads(pickle.dumps(data))._base is None


def test_upload_limit_is_the_servers():
    """The uploader's stated limit is within the server's (.streamlit/config.toml, maxUploadSize in MiB), and the
    page says that limit (issue 22, item 5: it said 50 MB while the server refused anything over 20 MB)."""
    import tomllib

    cfg = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    server = cfg["server"]["maxUploadSize"] * 2**20
    from dpviz.engine import data as D

    assert so.MAX_UPLOAD_BYTES <= server and D.MAX_CSV_BYTES <= server
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["sim_source"] = "sweep"
    at.switch_page("pages/simulate.py")
    at.run()
    at.radio(key="w_sweep_how").set_value("upload").run()
    labels = [u.proto.label for u in at.get("file_uploader")]
    assert labels and f"at most {so.MAX_UPLOAD_BYTES // 1_000_000} MB" in labels[0] and "50 MB" not in labels[0]
