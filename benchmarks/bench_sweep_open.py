"""Opening a sweep on the Simulate page: how long the checks and the shaping take (prints figures).

Builds a sweep folder (the cells run in-process, as ``python -m dpviz sweep`` writes them), then times
``dpviz_ui.sweep_open`` -- listing the sweeps folder, opening one sub-folder (every Parquet file checked with pyarrow),
reading the same sweep as an uploaded zip, the frame for an x-axis (``dpviz.studies.sweep.load_sweep``'s shape) and the
per-curve results the page plots -- against ``dpviz.studies.sweep.load_sweep`` alone.  ``python benchmarks/bench_sweep_open.py
[REPS]`` (default 400 repetitions per cell: 2 algorithms x 5 n x 5 eps x REPS rows).
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dpviz import __version__  # noqa: E402
from dpviz.studies import sweep  # noqa: E402
from dpviz_ui import sweep_open as so  # noqa: E402

SPEC = """
algorithms = ["dpsgd-rdp", "sgd"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = {reps}
seed = 0
n_test = 200
eval_rows = 100
[grid]
n = [100, 200, 400, 800, 1600]
eps = [1.0, 2.0, 4.0, 8.0, 16.0]
[params]
T = 20
eta = 0.05
R = 1.0
noise_rule = "experiment"
"""


def best(f, k=3):
    times = []
    for _ in range(k):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = sweep.load_spec(SPEC.format(reps=reps))
        out = root / "study"
        out.mkdir()
        (out / "sweep.json").write_text(json.dumps({"spec": spec.to_dict(), "spec_hash": spec.hash,
                                                    "dpviz_version": __version__}))
        t0 = time.perf_counter()
        for c in spec.cells():
            sweep._write_cell(sweep.run_cell(c), out, c.cell_id)
        print(f"built {len(spec.cells())} cells x {reps} reps in {time.perf_counter() - t0:.1f} s")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for p in sorted(out.iterdir()):
                zf.write(p, "study/" + p.name)
        blob = buf.getvalue()
        data = so.open_sweep_dir(root, "study")
        print(f"rows {data.rows:,}, zip {len(blob) / 1e6:.2f} MB")
        print(f"list_sweeps                       {best(lambda: so.list_sweeps(root)) * 1e3:8.1f} ms")
        print(f"load_sweep (no checks)            {best(lambda: sweep.load_sweep(out, x='n')) * 1e3:8.1f} ms")
        print(f"open_sweep_dir (checks)           {best(lambda: so.open_sweep_dir(root, 'study')) * 1e3:8.1f} ms")
        print(f"read_upload (zip, checks)         {best(lambda: so.read_upload('study.zip', blob)) * 1e3:8.1f} ms")
        print(f"frame(x) on a fresh object        {best(lambda: so.open_sweep_dir(root, 'study').frame('n')) * 1e3:8.1f} ms"
              " (includes opening)")
        print(f"open + warm (what the page caches) {best(lambda: so.open_sweep_dir(root, 'study').warm()) * 1e3:8.1f} ms")
        data.warm()  # the page keeps this one object (st.cache_resource): a rerun only shapes the results
        print(f"a rerun: kept object + results     {best(lambda: data.results('eps', 'excess_risk')) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
