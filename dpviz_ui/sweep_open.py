"""Open a sweep's Parquet output for plotting: from a server folder of sweeps or from an uploaded file (pure: no
streamlit).

``python -m dpviz sweep SPEC.toml --out DIR`` writes ``DIR/cell-<id>.parquet`` (one file per grid cell) and
``DIR/_sweep.json`` (the spec and its hash; ``sweep.json`` in folders of earlier versions, both read here);
:func:`dpviz.studies.sweep.load_sweep` reads such a directory.  A dashboard must
not let a browser user point the server at arbitrary paths, so this module offers two safe ways in:

``list_sweeps(root) -> list[dict]``
    the sub-folders of the configured folder ``root`` (one level, no symbolic links leaving it, names made of
    letters, digits, ``-``, ``_`` and ``.`` so that they fit in a link) that hold a valid sweep.
``open_sweep_dir(root, name) -> SweepData``
    one of those sub-folders, by name (anything not in the listing is refused).
``read_upload(filename, data) -> SweepData``
    an uploaded ``.zip`` of a sweep folder or a single ``.parquet`` file (at most :data:`MAX_UPLOAD_BYTES`; a zip at
    most :data:`MAX_MEMBERS` files and :data:`MAX_UNZIPPED_BYTES` unpacked).  Everything is read in memory with
    pyarrow and checked: only Parquet files whose columns are numbers, true/false or text, and the sweep's JSON
    metadata, are accepted -- nothing is unpickled, evaluated or extracted to a path taken from the archive.
``SweepData.frame(x)``
    the rows in the shape of ``dpviz.engine.simulate.SimulationResult.frame`` with ``grid_name`` / ``grid`` the swept
    parameter ``x`` (exactly what :func:`dpviz.studies.sweep.load_sweep` returns), plus the provenance columns.
``SweepData.results(x, quantity)``
    one :class:`FrameResult` per curve (an algorithm at one value of each other swept parameter), with the same
    ``summary`` / ``slope`` as a simulation result, so the Simulate page plots a sweep exactly like its own runs.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

__all__ = ["SweepData", "FrameResult", "list_sweeps", "open_sweep_dir", "read_upload", "MAX_UPLOAD_BYTES",
           "MAX_UNZIPPED_BYTES", "MAX_MEMBERS", "MAX_ROWS", "MAX_DECODED_BYTES", "PEAK_FACTOR", "SYMBOLS", "decoded_bytes"]

#: largest upload accepted (bytes): the server refuses larger ones anyway (.streamlit/config.toml, maxUploadSize = 20,
#: in MiB; a test checks that this limit is within it), so the page states this one
MAX_UPLOAD_BYTES = 20_000_000
#: largest total size of the files inside an uploaded zip (bytes), and most files in it
MAX_UNZIPPED_BYTES = 200_000_000
MAX_MEMBERS = 5000
#: most rows of a sweep opened in the dashboard, and most bytes its rows take once decoded into one pandas frame
#: (Parquet compresses: a 3.8 MB file can hold 2 M rows, 1.7 GB decoded).  Both are read from the files' metadata
#: before any column is decoded: rows x (8 bytes per number / true-false column + what a text column's strings
#: take as Python objects, :func:`decoded_bytes`).  Opening peaks at about :data:`PEAK_FACTOR` times the decoded
#: size (Arrow's table, the per-file frames, their concatenation and sorted copy; benchmarks/bench_hostile.py)
MAX_ROWS = 2_000_000
MAX_DECODED_BYTES = 150_000_000
PEAK_FACTOR = 4.0
_MAX_JSON_BYTES = 1_000_000
#: columns every cell file of a sweep has (dpviz.studies.sweep.run_cell)
REQUIRED = ("algorithm", "rep", "pop_risk", "excess_risk", "spec_hash", "seed", "dpviz_version")
_CELL = re.compile(r"^cell-[0-9A-Za-z_-]{1,64}\.parquet$")
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,80}$")
#: how a swept parameter is written on screen
SYMBOLS = {"n": "n", "eps": "ε", "delta": "δ", "kappa": "κ", "T": "T", "eta": "η", "alpha": "α"}


def _grid_keys():
    from dpviz.studies.sweep import GRID_KEYS

    return GRID_KEYS


# ---------------------------------------------------------------------------------------------------------------
# validation of the pieces


#: bytes per row of a number / true-false column once decoded (float64 / int64; a boolean with gaps is an object)
_NUMBER_WIDTH = 8
#: columns dpviz.studies.sweep.load_sweep may add to a file's (the missing ones of SimulationResult.frame's, and the grid)
_ADDED_COLUMNS = 20
#: a text column per row: its 8-byte offset (pandas' Arrow-backed strings) and, for repeated values (dictionary
#: coded: the footer shows only the dictionary), up to 16 characters
_TEXT_ROW = 8 + 16
#: and per byte of its Parquet text (uncompressed): a Python str object (pandas without Arrow strings) costs 49 bytes
#: plus its characters, and each Parquet value takes at least 4 + 1 bytes, so 12 bytes per Parquet byte bound it
_TEXT_PER_BYTE = 12


def decoded_bytes(meta) -> int:
    """Upper estimate of the bytes a Parquet file's rows take in the pandas frame of
    :func:`dpviz.studies.sweep.load_sweep`, from its footer only (nothing is decoded): rows x 8 per column (its own and the
    up to 20 the frame adds), plus per text column rows x 24 + 12 x its uncompressed size."""
    schema = meta.schema.to_arrow_schema()
    rows = meta.num_rows
    text = {f.name for f in schema if _is_text(f.type)}
    total = rows * (_NUMBER_WIDTH * (len(schema) + _ADDED_COLUMNS) + _TEXT_ROW * len(text))
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            if col.path_in_schema.split(".")[0] in text:
                total += _TEXT_PER_BYTE * max(int(col.total_uncompressed_size), 0)
    return int(total)


def _is_text(t) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _check_parquet(name: str, blob: bytes) -> tuple[int, int]:
    """``(rows, decoded bytes)`` of one Parquet file read from its footer (no column is decoded), or ValueError
    saying why it is not a dpviz sweep's file or is too large to open here."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if len(blob) < 12 or blob[:4] != b"PAR1" or blob[-4:] != b"PAR1":
        raise ValueError(f"{name} is not a Parquet file.")
    try:
        meta = pq.ParquetFile(pa.BufferReader(blob)).metadata
        schema = meta.schema.to_arrow_schema()
        decoded = decoded_bytes(meta)
    except (pa.ArrowException, OSError, ValueError, IndexError) as exc:
        raise ValueError(f"{name} cannot be read as Parquet ({str(exc)[:120]}).") from None
    for f in schema:
        t = f.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        ok = (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or _is_text(t)
              or pa.types.is_null(t))
        if not ok:
            raise ValueError(f"{name}: column {str(f.name)[:40]!r} holds {str(t)[:40]}, not numbers, true/false or "
                             "text: this is not a dpviz sweep's output.")
    missing = [c for c in REQUIRED if c not in schema.names]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {', '.join(missing)} of a dpviz sweep's output "
                         "(python -m dpviz sweep SPEC.toml --out DIR writes them).")
    _check_size(name, meta.num_rows, decoded)
    return meta.num_rows, decoded


def _check_size(name: str, rows: int, decoded: int) -> None:
    if rows > MAX_ROWS or decoded > MAX_DECODED_BYTES:
        raise ValueError(f"{name} has {rows:,} rows, about {decoded / 1e6:,.0f} MB once decoded: more than the "
                         f"dashboard opens ({MAX_ROWS:,} rows, {MAX_DECODED_BYTES / 1e6:g} MB); plot it with "
                         "dpviz.studies.sweep.load_sweep in Python.")


def _meta_bytes(d: Path) -> bytes:
    """The sweep's JSON metadata: ``_sweep.json``, or ``sweep.json`` in folders written by earlier versions."""
    p = d / "_sweep.json"
    return (p if p.is_file() else d / "sweep.json").read_bytes()


def _check_meta(blob: bytes) -> dict:
    if len(blob) > _MAX_JSON_BYTES:
        raise ValueError("sweep.json is too large to be a sweep's metadata.")
    try:
        meta = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("sweep.json is not valid JSON.") from None
    spec = meta.get("spec") if isinstance(meta, dict) else None
    grid = spec.get("grid") if isinstance(spec, dict) else None
    if not isinstance(grid, dict) or not all(k in _grid_keys() and isinstance(v, list) for k, v in grid.items()):
        raise ValueError("sweep.json does not describe a dpviz sweep (no spec with a grid).")
    if not isinstance(meta.get("spec_hash"), str):
        raise ValueError("sweep.json has no spec_hash.")
    return meta


# ---------------------------------------------------------------------------------------------------------------
# the opened sweep


@dataclass
class FrameResult:
    """The rows of one curve, with the ``summary`` / ``slope`` of :class:`dpviz.engine.simulate.SimulationResult`."""

    algorithm: str
    frame: Any
    grid_name: str
    notes: list[str] = field(default_factory=list)

    def summary(self, value: str = "excess_risk"):
        from dpviz.foundation import stats

        return stats.summarize(self.frame, ["grid"], value)

    def slope(self, value: str = "excess_risk") -> dict:
        from dpviz.foundation import stats

        s = self.summary(value)
        s = s[np.isfinite(s["mean"]) & (s["mean"] > 0)]
        return stats.loglog_slope(s["grid"].to_numpy(), s["mean"].to_numpy())


@dataclass
class SweepData:
    """A validated sweep: its Parquet files (``name -> bytes``) and metadata (``None`` for a lone Parquet file)."""

    source: str
    files: dict[str, bytes]
    meta: dict | None
    rows: int
    decoded_bytes: int = 0
    _base: Any = field(default=None, repr=False, compare=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def grid_keys(self) -> list[str]:
        """The swept parameters: the spec's grid (sweep.json), else the grid columns with more than one value."""
        if self.meta is not None:
            return [k for k in self.meta["spec"]["grid"]]
        probe = self.frame(None)
        return [k for k in _grid_keys() if k in probe.columns and probe[k].nunique(dropna=True) > 1]

    def x_choices(self) -> list[str]:
        """Swept parameters that can be an x-axis: at least two values, all positive (the axes are logarithmic)."""
        probe = self.frame(None)
        out = []
        for k in self.grid_keys:
            if k in probe.columns:
                vals = probe[k].dropna().astype(float).unique()
                if len(vals) >= 2 and (vals > 0).all():
                    out.append(k)
        return out

    def __getstate__(self):  # a pickled copy carries the files, not the decoded rows nor the lock
        state = dict(self.__dict__)
        state["_base"], state["_lock"] = None, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _decoded(self):
        """The sweep's rows decoded once (``dpviz.studies.sweep.load_sweep`` without an x-axis); every :meth:`frame` shares
        its columns, so an opened sweep holds one decoded copy however many x-axes are shown."""
        from dpviz.studies import sweep

        with self._lock:
            if self._base is None:
                with tempfile.TemporaryDirectory(prefix="dpviz-sweep-") as tmp:
                    for i, (_name, blob) in enumerate(sorted(self.files.items())):
                        (Path(tmp) / f"cell-{i:06d}.parquet").write_bytes(blob)  # our names, never the archive's
                    if self.meta is not None:
                        (Path(tmp) / "sweep.json").write_text(json.dumps(self.meta), encoding="utf-8")
                    try:
                        self._base = sweep.load_sweep(tmp, x=None)
                    except ValueError:
                        raise
                    except Exception as exc:  # noqa: BLE001 -- a corrupt column page (pyarrow's errors vary)
                        raise ValueError(f"{self.source} cannot be read as Parquet ({str(exc)[:120]}).") from None
            return self._base

    def frame(self, x: str | None):
        """The rows shaped by :func:`dpviz.studies.sweep.load_sweep` (``grid_name`` / ``grid`` = ``x``): a new frame whose
        columns other than ``grid_name`` / ``grid`` are those of the one decoded copy (do not modify them)."""
        from dpviz.studies.sweep import GRID_KEYS

        base = self._decoded()
        if x is None:
            return base.copy(deep=False)
        if x not in GRID_KEYS:
            raise ValueError(f"x must be one of the swept parameters ({', '.join(self.grid_keys or GRID_KEYS)}), "
                             f"got {str(x)[:40]!r}.")
        if x not in base.columns:
            raise ValueError(f"the sweep has no column {x!r}.")
        out = base.copy(deep=False)
        out["grid_name"] = x
        out["grid"] = base[x].astype(float)
        return out

    def warm(self) -> "SweepData":
        """Decode the rows now (a cache that keeps this object keeps them decoded)."""
        self._decoded()
        return self

    def provenance(self) -> dict[str, Any]:
        """spec hash(es), dpviz version(s), seed(s) and name of the sweep (from its rows)."""
        f = self.frame(None)

        def one(col):
            vals = sorted({str(v) for v in f[col].dropna().unique()}) if col in f.columns else []
            return vals[0] if len(vals) == 1 else ", ".join(vals)

        out = {"sweep": self.source, "spec_hash": one("spec_hash"), "dpviz_version_of_sweep": one("dpviz_version"),
               "seed": one("seed"), "rows_in_sweep": int(len(f))}
        if "spec_name" in f.columns and one("spec_name"):
            out["spec_name"] = one("spec_name")
        if self.meta is not None:
            out["reps"] = self.meta["spec"].get("reps")
        return out

    def results(self, x: str, quantity: str = "excess_risk") -> list[tuple[str | None, FrameResult]]:
        """One (label, :class:`FrameResult`) per algorithm and value of every other swept parameter; the label names
        those values (``None`` when nothing else is swept)."""
        if x not in self.x_choices():
            raise ValueError(f"x must be one of the swept parameters with two or more positive values "
                             f"({', '.join(self.x_choices()) or 'none'}), got {x!r}.")
        f = self.frame(x)
        others = [k for k in self.grid_keys if k != x and k in f.columns and f[k].nunique(dropna=True) > 1]
        out = []
        for keys, g in f.groupby(["algorithm", *others], sort=True, dropna=False):
            keys = keys if isinstance(keys, tuple) else (keys,)
            alg, vals = keys[0], keys[1:]
            label = ", ".join(f"{SYMBOLS.get(k, k)} = {float(val):g}" for k, val in zip(others, vals)) or None
            notes = []
            bad = int((~np.isfinite(g[quantity].astype(float))).sum()) if quantity in g.columns else len(g)
            if bad:
                notes.append(f"{bad} of {len(g)} rows have no value of {quantity} (grid points that did not run, e.g. an "
                             "infeasible calibration)")
            out.append((label, FrameResult(str(alg), g.reset_index(drop=True), x, notes)))
        return out


def _finish(source: str, files: dict[str, bytes], meta: dict | None) -> SweepData:
    if not files:
        raise ValueError(f"{source} holds no sweep results (cell-*.parquet files).")
    rows = decoded = 0
    for name, blob in files.items():
        r, b = _check_parquet(name, blob)
        rows, decoded = rows + r, decoded + b
        _check_size(source, rows, decoded)  # the whole sweep, before any column is decoded
    return SweepData(source=source, files=files, meta=meta, rows=rows, decoded_bytes=decoded)


# ---------------------------------------------------------------------------------------------------------------
# the two ways in


def list_sweeps(root) -> list[dict[str, Any]]:
    """The sub-folders of ``root`` that hold a sweep (``sweep.json`` valid and at least one ``cell-*.parquet``).

    Only direct sub-folders whose name fits in a link and whose real path lies inside ``root`` are listed; the files
    are not read beyond ``sweep.json`` here.  A missing ``root`` gives an empty list.
    """
    base = Path(root)
    if not base.is_dir():
        return []
    real_root = base.resolve()
    out = []
    for d in sorted(base.iterdir()):
        try:
            if not d.is_dir() or not _NAME.match(d.name) or real_root not in d.resolve().parents:
                continue
            meta = _check_meta(_meta_bytes(d))
            cells = sorted(p for p in d.glob("cell-*.parquet") if _CELL.match(p.name) and p.is_file())
        except (OSError, ValueError):
            continue
        if cells:
            spec = meta["spec"]
            out.append({"name": d.name, "spec_name": str(spec.get("name") or ""), "spec_hash": meta["spec_hash"],
                        "cells": len(cells), "grid": {k: len(v) for k, v in spec["grid"].items()},
                        "algorithms": [str(a) for a in spec.get("algorithms", [])]})
    return out


def open_sweep_dir(root, name: str) -> SweepData:
    """The sweep in the sub-folder ``name`` of ``root`` (refused unless :func:`list_sweeps` lists it)."""
    listed = {s["name"] for s in list_sweeps(root)}
    if name not in listed:
        raise ValueError(f"there is no sweep called {str(name)[:80]!r} in the sweeps folder.")
    d = Path(root) / name
    meta = _check_meta(_meta_bytes(d))
    files, total = {}, 0
    real = d.resolve()
    for p in sorted(d.glob("cell-*.parquet")):
        if not _CELL.match(p.name) or not p.is_file() or p.resolve().parent != real:
            continue  # only the folder's own files (a link to a file elsewhere is skipped)
        total += p.stat().st_size
        if total > MAX_UNZIPPED_BYTES:
            raise ValueError(f"the sweep {name!r} is larger than {MAX_UNZIPPED_BYTES / 1e6:g} MB, more than the "
                             "dashboard opens; plot it with dpviz.studies.sweep.load_sweep in Python.")
        files[p.name] = p.read_bytes()
    return _finish(f"sweep folder {name}", files, meta)


def read_upload(filename: str, data: bytes) -> SweepData:
    """An uploaded sweep: a ``.zip`` of the ``--out`` folder, or one ``.parquet`` file (checked, read in memory)."""
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError("the upload must be the bytes of a file.")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"the file has {len(data) / 1e6:.1f} MB; the limit is {MAX_UPLOAD_BYTES / 1e6:g} MB.")
    shown = PurePosixPath(str(filename).replace("\\", "/")).name[:80] or "the upload"
    lower = shown.lower()
    if lower.endswith(".parquet"):
        return _finish(shown, {shown: bytes(data)}, None)
    if not lower.endswith(".zip"):
        raise ValueError(f"{shown} is neither a .zip of a sweep folder nor a .parquet file.")
    if data[:4] != b"PK\x03\x04":
        raise ValueError(f"{shown} is not a zip archive.")
    try:
        zf = zipfile.ZipFile(io.BytesIO(bytes(data)))
        infos = [i for i in zf.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ValueError(f"{shown} is not a readable zip archive.") from None
    if len(infos) > MAX_MEMBERS:
        raise ValueError(f"{shown} holds {len(infos)} files; a sweep opened here has at most {MAX_MEMBERS}.")
    if sum(i.file_size for i in infos) > MAX_UNZIPPED_BYTES:
        raise ValueError(f"{shown} unpacks to more than {MAX_UNZIPPED_BYTES / 1e6:g} MB.")
    files: dict[str, bytes] = {}
    meta = None
    total = 0
    for info in infos:
        base = PurePosixPath(info.filename.replace("\\", "/")).name
        if info.flag_bits & 0x1:
            raise ValueError(f"{shown} is encrypted.")
        if base in ("spec.toml", "_spec.toml") or base.startswith("."):
            continue  # the spec's text (its hash is in sweep.json), or a hidden file of the packer
        if base == "_sweep.json":
            base = "sweep.json"  # the name since the folder is a Parquet dataset (dpviz.studies.sweep.META_FILE)
        if base != "sweep.json" and not _CELL.match(base):
            raise ValueError(f"{shown} holds {base[:60]!r}, which is not part of a sweep's output (only "
                             "cell-*.parquet, sweep.json and spec.toml).")
        if base in files or (base == "sweep.json" and meta is not None):
            raise ValueError(f"{shown} holds {base[:60]!r} twice: zip one sweep folder at a time.")
        try:
            with zf.open(info) as fh:
                blob = fh.read(min(info.file_size, MAX_UNZIPPED_BYTES) + 1)
        except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError):
            raise ValueError(f"{shown}: {base[:60]!r} cannot be unpacked.") from None
        total += len(blob)
        if len(blob) > info.file_size or total > MAX_UNZIPPED_BYTES:
            raise ValueError(f"{shown} unpacks to more than it declares: refused.")
        if base == "sweep.json":
            meta = _check_meta(blob)
        else:
            files[base] = blob
    return _finish(shown, files, meta)

