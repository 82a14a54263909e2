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
           "MAX_UNZIPPED_BYTES", "MAX_MEMBERS", "MAX_ROWS", "MAX_DECODED_BYTES", "PEAK_FACTOR", "SYMBOLS", "decoded_bytes",
           "MAX_CELLS", "MAX_COLUMNS", "MAX_ROW_GROUPS", "MAX_FOOTER_BYTES", "MAX_TEXT_CHARS", "MEMORY_LIMIT",
           "TIME_LIMIT", "RANGES", "Kept", "KEPT"]

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
#: most cell files of one sweep, columns and row groups of one cell file, and bytes of one file's footer: a cell that
#: ``python -m dpviz sweep`` writes has about 30 columns in one row group and a footer of a few KB.  Each is checked
#: before any footer is parsed or any column decoded (a 30 000-column or 10 000-row-group file, or thousands of
#: cells, cost seconds of CPU to parse)
MAX_CELLS = 2000
MAX_COLUMNS = 100
MAX_ROW_GROUPS = 64
MAX_FOOTER_BYTES = 1_000_000
#: longest text value of a sweep (its notes are the longest: a few hundred characters)
MAX_TEXT_CHARS = 10_000
#: what the process decoding an upload may use on top of its imports (bytes of address space), and its CPU time (s):
#: the page decodes in a child process with these hard limits (dpviz_ui.workers.open_sweep), never on its own thread
MEMORY_LIMIT = 1_000_000_000
TIME_LIMIT = 30.0
#: the range of each plotted quantity: values outside it (a negative excess risk beyond the solvers' tolerance, a
#: risk above an excess risk's own population risk, inf, 1e308) are flagged and left out of the means and fits.
#: Losses are >= 0, so an excess risk (population risk minus the best risk over W, both on the population sample) is
#: at most the population risk; the reference minimum is an upper bound accurate to the solvers' tolerance, so a
#: slightly negative excess risk is solver error, not a bad value (dpviz.engine.reference).  Above 1e150 the 95 %
#: band's squares overflow.
_TOL = 1e-6
_HUGE = 1e150
RANGES = {"excess_risk": (-_TOL, _HUGE), "pop_risk": (0.0, _HUGE), "emp_risk": (0.0, _HUGE), "metric": (None, _HUGE)}
#: metrics bounded to [0, 1] (dpviz.engine.simulate.evaluate's task metrics)
_UNIT_METRICS = ("accuracy", "auc", "AUC")
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


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("truncated")
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return out, i


def _dictionary_page_size(blob: bytes, offset: int) -> int | None:
    """The uncompressed size (bytes) that the page header at ``offset`` declares, if it is a dictionary page (Thrift
    compact protocol: field 1 the page type, 2 the uncompressed size); None if it is not one or cannot be read.  The
    footer does not hold it, and every row of a dictionary-encoded column may point at the longest entry."""
    buf = blob[offset:offset + 64] if 0 <= offset < len(blob) else b""
    fid, i, kind, size = 0, 0, None, None
    try:
        while i < len(buf) and (kind is None or size is None):
            head = buf[i]
            i += 1
            if head == 0:
                break
            delta, ftype = head >> 4, head & 0x0F
            if delta:
                fid += delta
            else:
                raw, i = _varint(buf, i)
                fid = (raw >> 1) ^ -(raw & 1)
            if ftype != 5:  # only i32 fields come before the sizes
                return None
            raw, i = _varint(buf, i)
            val = (raw >> 1) ^ -(raw & 1)
            if fid == 1:
                kind = val
            elif fid == 2:
                size = val
    except ValueError:
        return None
    return size if kind == 2 and size is not None and size >= 0 else None  # 2: DICTIONARY_PAGE


def decoded_bytes(meta, blob: bytes | None = None) -> int:
    """Upper estimate of the bytes a Parquet file's rows take in the pandas frame of
    :func:`dpviz.studies.sweep.load_sweep`, from its footer only (nothing is decoded): rows x 8 per column (its own and the
    up to 20 the frame adds), plus per text column rows x 24 + 12 x its uncompressed size (12 x its dictionary page's
    size where that page's header, read from ``blob``, declares more than the footer).

    Dictionary-encoded text is not bounded by this: every row may point at the longest entry (a 2 KB file can hold
    1 000 rows pointing at one 1 MB string, 1 GB once decoded), and the footer does not say how long the entries are.
    :func:`measure_decoded` measures it exactly, from the dictionaries, before any string is materialised."""
    schema = meta.schema.to_arrow_schema()
    rows = meta.num_rows
    text = {f.name for f in schema if _is_text(f.type)}
    total = rows * (_NUMBER_WIDTH * (len(schema) + _ADDED_COLUMNS) + _TEXT_ROW * len(text))
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            if col.path_in_schema.split(".")[0] in text:
                size = max(int(col.total_uncompressed_size), 0)
                total += _TEXT_PER_BYTE * size
                if blob is not None and (col.has_dictionary_page
                                         or any("DICTIONARY" in str(e) for e in (col.encodings or ()))):
                    at = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
                    page = _dictionary_page_size(blob, int(at or 0))
                    if page is not None and page > size:  # the footer understates the dictionary: the page's own
                        total += _TEXT_PER_BYTE * page
    return int(total)


def _footer_length(name: str, blob: bytes) -> int:
    """The length of a Parquet file's footer (its last 8 bytes), refused above :data:`MAX_FOOTER_BYTES` before it is
    parsed (a footer of 30 000 columns or 10 000 row groups takes seconds to parse)."""
    n = int.from_bytes(blob[-8:-4], "little")
    if n > MAX_FOOTER_BYTES or n > len(blob) - 12:
        raise ValueError(f"{name} has a Parquet footer (its table of contents) of {n:,} bytes, larger than "
                         f"{'the file' if n > len(blob) - 12 else f'a sweep cell has (at most {MAX_FOOTER_BYTES:,})'}"
                         ": it is not a dpviz sweep's output.")
    return n


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
    _footer_length(name, blob)
    try:
        meta = pq.ParquetFile(pa.BufferReader(blob)).metadata
    except (pa.ArrowException, OSError, ValueError, IndexError) as exc:
        raise ValueError(f"{name} cannot be read as Parquet ({str(exc)[:120]}).") from None
    if meta.num_columns > MAX_COLUMNS:
        raise ValueError(f"{name} has {meta.num_columns:,} columns; a sweep's cell file has about 30 (the dashboard "
                         f"opens at most {MAX_COLUMNS}).")
    if meta.num_row_groups > MAX_ROW_GROUPS:
        raise ValueError(f"{name} has {meta.num_row_groups:,} row groups; python -m dpviz sweep writes one per cell "
                         f"file (the dashboard opens at most {MAX_ROW_GROUPS}).")
    try:
        schema = meta.schema.to_arrow_schema()
        decoded = decoded_bytes(meta, blob)
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


def measure_decoded(name: str, blob: bytes, budget: int) -> int:
    """Decode one Parquet file's text columns as Arrow dictionaries (each distinct string once) and return the exact
    bytes its rows take once every string is materialised, one row group and column at a time: ValueError as soon as
    a text value is longer than :data:`MAX_TEXT_CHARS` or the running total passes ``budget`` (nothing is then turned
    into Python strings).  This bounds the decoding itself, whatever the footer claims."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(pa.BufferReader(blob), read_dictionary=None)
    schema = pf.schema_arrow
    text = [f.name for f in schema if _is_text(f.type)]
    total = pf.metadata.num_rows * _NUMBER_WIDTH * (len(schema) + _ADDED_COLUMNS)
    if total > budget:
        raise ValueError(f"{name} holds more rows than the dashboard opens (about {total / 1e6:,.0f} MB once decoded).")
    if not text:
        return int(total)
    pf = pq.ParquetFile(pa.BufferReader(blob), read_dictionary=text)
    for g in range(pf.metadata.num_row_groups):
        for col in text:
            arr = pf.read_row_group(g, columns=[col], use_threads=False).column(0)
            for chunk in arr.chunks:
                if pa.types.is_dictionary(chunk.type):
                    lengths = pc.binary_length(chunk.dictionary)
                    longest = pc.max(lengths).as_py() if len(lengths) else 0
                    used = pc.sum(pc.take(lengths, chunk.indices)).as_py() if len(chunk) else 0
                else:
                    lengths = pc.binary_length(chunk)
                    longest = pc.max(lengths).as_py() if len(chunk) else 0
                    used = pc.sum(lengths).as_py() if len(chunk) else 0
                if (longest or 0) > MAX_TEXT_CHARS:
                    raise ValueError(f"{name}: column {str(col)[:40]!r} holds a text of {longest:,} bytes; a sweep's "
                                     f"text values have at most {MAX_TEXT_CHARS:,} (its notes).")
                total += (used or 0) + _TEXT_ROW * len(chunk)
                if total > budget:
                    raise ValueError(f"{name}: column {str(col)[:40]!r} expands to more than {budget / 1e6:,.0f} MB "
                                     f"once decoded ({len(chunk):,} rows pointing at long dictionary entries), more "
                                     "than the dashboard opens.")
    return int(total)


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
    #: the sweep's manifest (``_cells.sha256``, bytes) if it has one
    manifest: bytes | None = None
    #: what opening it left out or could not check (files that are not its cells, no manifest), for the page
    notes: list[str] = field(default_factory=list)
    #: the Parquet files of the folder or zip that are not cells of its sweep (not in its spec or its manifest):
    #: never read, named in ``notes`` (dpviz.studies.sweep.sweep_cells)
    left_out: list[str] = field(default_factory=list)
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

    def __getstate__(self):  # a pickled copy carries the files, not the decoded rows nor the lock (but the rows of
        state = dict(self.__dict__)  # an adopted sweep, which has no files any more: what a worker job returns)
        state["_lock"] = None
        if self.files:
            state["_base"] = None
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
                try:
                    left = MAX_DECODED_BYTES  # the exact decoded size, bounded while decoding, before any frame
                    for name, blob in sorted(self.files.items()):
                        left -= measure_decoded(name, blob, left)
                    self.decoded_bytes = max(self.decoded_bytes, MAX_DECODED_BYTES - left)
                except ValueError:
                    raise
                except MemoryError:
                    raise
                except Exception as exc:  # noqa: BLE001 -- a corrupt column page (pyarrow's errors vary)
                    raise ValueError(f"{self.source} cannot be read as Parquet ({str(exc)[:120]}).") from None
                with tempfile.TemporaryDirectory(prefix="dpviz-sweep-") as tmp:
                    for name, blob in sorted(self.files.items()):
                        if not _CELL.match(name):  # a lone upload's own name: ours instead
                            name = "cell-upload.parquet"
                        (Path(tmp) / name).write_bytes(blob)  # names checked against _CELL (no path in them)
                    if self.meta is not None:
                        (Path(tmp) / "sweep.json").write_text(json.dumps(self.meta), encoding="utf-8")
                    if self.manifest is not None:
                        (Path(tmp) / sweep.MANIFEST_FILE).write_bytes(self.manifest)
                    notes: list[str] = []
                    try:
                        base = sweep.load_sweep(tmp, x=None, notes=notes)
                    except ValueError as exc:
                        raise ValueError(str(exc).replace(repr(str(tmp)), "the sweep").replace(str(tmp), "the sweep"))\
                            from None
                    except MemoryError:
                        raise
                    except Exception as exc:  # noqa: BLE001 -- a corrupt column page (pyarrow's errors vary)
                        raise ValueError(f"{self.source} cannot be read as Parquet ({str(exc)[:120]}).") from None
                    if self.meta is None:  # a lone Parquet file: no manifest to expect
                        notes = [n for n in notes if "has no manifest" not in n]
                    if self.left_out:  # left out when opened, before any of their bytes was read
                        notes.insert(0, sweep.strays_note(self.left_out))
                    self.notes = [n.replace(str(tmp), "the sweep") for n in notes]
                    self._base = base
            return self._base

    def adopt(self, frame, notes=()) -> "SweepData":
        """Take rows decoded elsewhere (the page decodes in a memory-limited child process, which returns them),
        dropping the files' bytes, which are no longer needed."""
        with self._lock:
            self._base, self.notes, self.files = frame, list(notes), {}
        return self

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
            g = g.reset_index(drop=True)
            if quantity in g.columns:
                vals = g[quantity].astype(float)
                absurd = out_of_range(g, quantity)
                missing = int(vals.isna().sum())
                if absurd.any():
                    shown = ", ".join(f"{val:g}" for val in sorted(set(vals[absurd].tolist()))[:4])
                    lo, hi = _range_of(g, quantity)
                    notes.append(f"{int(absurd.sum())} of {len(g)} rows have a {quantity} outside its range "
                                 f"({_range_text(quantity, lo, hi)}): {shown}; left out of the means, bands and fit")
                    g = g.copy()
                    g[quantity] = vals.where(~absurd)  # NaN: left out of the summary and the slope
            else:
                missing = len(g)
            if missing:
                notes.append(f"{missing} of {len(g)} rows have no value of {quantity} (grid points that did not "
                             "run, e.g. an infeasible calibration)")
            out.append((label, FrameResult(str(alg), g, x, notes)))
        return out


def _range_of(g, quantity: str) -> tuple[float | None, float]:
    lo, hi = RANGES.get(quantity, (None, _HUGE))
    if quantity == "metric" and "metric_name" in g.columns:
        names = set(g["metric_name"].dropna().astype(str))
        if names and names <= set(_UNIT_METRICS):
            lo, hi = 0.0, 1.0
        elif names and not names & set(_UNIT_METRICS):
            lo = 0.0  # an error (MSE): at least 0
    return lo, hi


def _range_text(quantity: str, lo, hi) -> str:
    if quantity == "excess_risk":
        return f"at least −{_TOL:g} (solver tolerance), at most the row's population risk and {hi:g}, finite"
    return (f"from {lo:g} to {hi:g}" if lo is not None else f"at most {hi:g} in absolute value") + ", finite"


def out_of_range(frame, quantity: str):
    """Boolean Series: the rows whose ``quantity`` is a number outside its range (:data:`RANGES`; inf included, NaN
    -- no value -- not)."""
    vals = frame[quantity].astype(float)
    lo, hi = _range_of(frame, quantity)
    bad = np.isinf(vals) | (vals.abs() > hi)
    if lo is not None:
        bad |= vals < lo
    if quantity == "excess_risk" and "pop_risk" in frame.columns:
        pop = frame["pop_risk"].astype(float)
        bad |= pop.notna() & np.isfinite(pop) & (vals > pop + _TOL * np.maximum(1.0, pop.abs()))
    return bad & vals.notna()


def _cells_of(names, meta: dict | None, manifest: bytes | None) -> tuple[list[str], list[str]]:
    """(the cell files of the sweep, the other Parquet files) among ``names``: the cells of its recorded spec listed in
    its manifest (the rule of ``dpviz.studies.sweep.load_sweep``); a lone Parquet file (no ``meta``) is its own cell."""
    from dpviz.studies import sweep

    if meta is None:
        return sorted(names), []
    return sweep.sweep_cells(names, sweep.expected_cells(meta["spec"]),
                             None if manifest is None else sweep.parse_manifest(manifest))


def _finish(source: str, files: dict[str, bytes], meta: dict | None, manifest: bytes | None = None,
            left_out=()) -> SweepData:
    if manifest is not None and len(manifest) > 200 * (MAX_CELLS + 10):
        raise ValueError(f"{source}: its manifest (_cells.sha256) is larger than a sweep of {MAX_CELLS:,} cells has.")
    kept, left = _cells_of(files, meta, manifest)
    left = sorted(set(left) | set(left_out))
    files = {name: files[name] for name in kept}  # the others are never parsed, counted nor read as data
    if not files and left:
        raise ValueError(f"{source}: none of its {len(left)} Parquet file(s) is a cell of its sweep (in the spec of "
                         f"sweep.json and in its manifest, _cells.sha256): {', '.join(n[:60] for n in left[:3])}"
                         + (f" and {len(left) - 3} more" if len(left) > 3 else "") + ".")
    if not files:
        raise ValueError(f"{source} holds no sweep results (cell-*.parquet files).")
    if len(files) > MAX_CELLS:
        raise ValueError(f"{source} holds {len(files):,} cell files; the dashboard opens sweeps of at most "
                         f"{MAX_CELLS:,} cells: plot it with dpviz.studies.sweep.load_sweep in Python.")
    rows = decoded = 0
    for name, blob in files.items():
        r, b = _check_parquet(name, blob)
        rows, decoded = rows + r, decoded + b
        _check_size(source, rows, decoded)  # the whole sweep, before any column is decoded
    return SweepData(source=source, files=files, meta=meta, rows=rows, decoded_bytes=decoded, manifest=manifest,
                     left_out=left)


# ---------------------------------------------------------------------------------------------------------------
# the two ways in


def _folder_cells(d: Path, meta: dict) -> tuple[list[str], list[str], bytes | None]:
    """(the cell files of the sweep in folder ``d``, its other Parquet files, its manifest's bytes): only the folder's
    own files (a link to a file elsewhere is neither), sorted out by :func:`_cells_of` from their names alone."""
    real = d.resolve()
    names = [p.name for p in d.glob("cell-*.parquet")
             if _CELL.match(p.name) and p.is_file() and p.resolve().parent == real]
    man = d / "_cells.sha256"
    manifest = man.read_bytes()[:200 * (MAX_CELLS + 10) + 1] if man.is_file() else None
    if manifest is not None and len(manifest) > 200 * (MAX_CELLS + 10):
        raise ValueError(f"the manifest of {d.name[:80]!r} (_cells.sha256) is larger than a sweep of {MAX_CELLS:,} "
                         "cells has.")
    kept, left = _cells_of(names, meta, manifest)
    return kept, left, manifest


def list_sweeps(root) -> list[dict[str, Any]]:
    """The sub-folders of ``root`` that hold a sweep (``sweep.json`` valid and at least one cell of its spec that its
    manifest lists); ``cells`` counts those cells only (a copy of a cell or another file is not one).

    Only direct sub-folders whose name fits in a link and whose real path lies inside ``root`` are listed; the files
    are not read beyond ``sweep.json`` and the manifest here.  A missing ``root`` gives an empty list.
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
            cells, _left, _manifest = _folder_cells(d, meta)
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
    cells, left, manifest = _folder_cells(d, meta)  # only the cells of its sweep: other files are never read
    for p in (d / c for c in cells):
        total += p.stat().st_size
        if total > MAX_UNZIPPED_BYTES:
            raise ValueError(f"the sweep {name!r} is larger than {MAX_UNZIPPED_BYTES / 1e6:g} MB, more than the "
                             "dashboard opens; plot it with dpviz.studies.sweep.load_sweep in Python.")
        if len(files) >= MAX_CELLS:
            raise ValueError(f"the sweep {name!r} holds more than {MAX_CELLS:,} cell files; the dashboard opens sweeps "
                             f"of at most {MAX_CELLS:,} cells: plot it with dpviz.studies.sweep.load_sweep in Python.")
        files[p.name] = p.read_bytes()
    return _finish(f"sweep folder {name}", files, meta, manifest, left_out=left)


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
    cells = sum(1 for i in infos if i.filename.endswith(".parquet"))
    if cells > MAX_CELLS:
        raise ValueError(f"{shown} holds {cells:,} cell files; the dashboard opens sweeps of at most {MAX_CELLS:,} "
                         "cells: plot it with dpviz.studies.sweep.load_sweep in Python.")
    if sum(i.file_size for i in infos) > MAX_UNZIPPED_BYTES:
        raise ValueError(f"{shown} unpacks to more than {MAX_UNZIPPED_BYTES / 1e6:g} MB.")
    files: dict[str, bytes] = {}
    meta = manifest = None
    total = 0
    for info in infos:
        base = PurePosixPath(info.filename.replace("\\", "/")).name
        if info.flag_bits & 0x1:
            raise ValueError(f"{shown} is encrypted.")
        if base in ("spec.toml", "_spec.toml") or base.startswith("."):
            continue  # the spec's text (its hash is in sweep.json), or a hidden file of the packer
        if base == "_sweep.json":
            base = "sweep.json"  # the name since the folder is a Parquet dataset (dpviz.studies.sweep.META_FILE)
        if base not in ("sweep.json", "_cells.sha256") and not _CELL.match(base):
            raise ValueError(f"{shown} holds {base[:60]!r}, which is not part of a sweep's output (only "
                             "cell-*.parquet, sweep.json, _cells.sha256 and spec.toml).")
        if base in files or (base == "sweep.json" and meta is not None) or (base == "_cells.sha256"
                                                                             and manifest is not None):
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
        elif base == "_cells.sha256":
            manifest = blob
        else:
            files[base] = blob
    return _finish(shown, files, meta, manifest)



class Kept:
    """A small process-wide store of opened sweeps (most recent ``max_entries``, each for at most ``ttl`` seconds),
    shared by every session: a sweep is decoded once and kept once.  Only what opened within the limits is stored;
    a refusal raises before anything is put here."""

    def __init__(self, max_entries: int = 2, ttl: float = 3600.0):
        import collections
        import time

        self.max_entries, self.ttl, self._clock = int(max_entries), float(ttl), time.monotonic
        self._items: "collections.OrderedDict[Any, tuple[float, SweepData]]" = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            hit = self._items.get(key)
            if hit is None or self._clock() - hit[0] > self.ttl:
                self._items.pop(key, None)
                return None
            self._items.move_to_end(key)
            return hit[1]

    def put(self, key, data: SweepData) -> SweepData:
        with self._lock:
            self._items[key] = (self._clock(), data)
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return data


#: the Simulate page's store (one per server process)
KEPT = Kept()
