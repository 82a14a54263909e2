"""The files of a sweep folder: the cell files and their integrity (:func:`check_cell_file`), the manifest of their
SHA-256 (:func:`read_manifest`), which cells are finished, atomic writes, and the files that are not cells."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from dpviz.studies.sweep.spec import Cell, _cell_keys

#: Names of the sweep's metadata files in ``out_dir``: a leading underscore makes Parquet readers (pyarrow, pandas,
#: Dask) skip them, so the folder is a valid Parquet dataset; folders written before kept the names without it.
META_FILE, SPEC_FILE = "_sweep.json", "_spec.toml"
#: The sweep's manifest: the SHA-256 of every cell file, recorded when the cell is written (``sha256sum`` format)
MANIFEST_FILE = "_cells.sha256"
_MANIFEST_LINE = re.compile(r"^([0-9a-f]{64})  (cell-[0-9A-Za-z_-]{1,64}\.parquet)$")
_MAX_MANIFEST_BYTES = 100_000_000
_OLD_META_FILE, _OLD_SPEC_FILE = "sweep.json", "spec.toml"
_CELL_ID = re.compile(r"[0-9a-f]{16}")


def _cell_path(out: Path, cell_id: str) -> Path:
    return out / f"cell-{cell_id}.parquet"


def check_cell_file(path: str | os.PathLike, *, cell_id: str | None = None, reps: int | None = None) -> str | None:
    """Why the Parquet file of a cell cannot be trusted, or ``None`` if it is a complete cell.

    Checks the Parquet magic bytes and footer, reads every column (with page checksums where the file has them), and,
    where given, that the rows are the cell's (every ``cell_id`` equal to ``cell_id``, the hash of the spec's
    settings of that cell) and that there is one row per repetition ``0 … reps − 1``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        size = path.stat().st_size
        if size < 12:
            return "empty or truncated" if size else "empty"
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(-4, os.SEEK_END)
            tail = fh.read(4)
        if head != b"PAR1" or tail != b"PAR1":
            return "not a complete Parquet file (truncated or overwritten)"
        table = pq.ParquetFile(path, page_checksum_verification=True).read()
    except (pa.ArrowException, OSError, ValueError, EOFError) as exc:
        return f"cannot be read as Parquet ({' '.join(str(exc).split())[:100]})"
    names = table.column_names
    if cell_id is not None and ("cell_id" not in names or set(table.column("cell_id").to_pylist()) != {cell_id}):
        return "its rows belong to another cell (cell_id differs: written by another spec?)"
    if reps is not None:
        rep = table.column("rep").to_pylist() if "rep" in names else []
        if sorted(rep) != list(range(reps)):
            return f"has {table.num_rows} rows, expected one per repetition (reps = {reps})"
    return None


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(out_dir: str | os.PathLike) -> dict[str, str] | None:
    """The sweep's manifest ``out_dir/_cells.sha256`` as ``{file name: SHA-256}``, or ``None`` if the folder has none
    (written by an earlier version).  One line per written cell, in the format of ``sha256sum`` (so
    ``sha256sum -c _cells.sha256`` checks the folder); a later line for the same file replaces an earlier one, and an
    incomplete last line (a run killed while appending it) is ignored."""
    path = Path(out_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    with open(path, "rb") as fh:
        return parse_manifest(fh.read(_MAX_MANIFEST_BYTES + 1))


def parse_manifest(raw: bytes) -> dict[str, str]:
    """The manifest's bytes (``_cells.sha256``) as ``{file name: SHA-256}`` (see :func:`read_manifest`)."""
    out: dict[str, str] = {}
    for line in bytes(raw)[:_MAX_MANIFEST_BYTES].splitlines():
        m = _MANIFEST_LINE.match(line.decode("ascii", "replace"))
        if m:
            out[m.group(2)] = m.group(1)
    return out


def expected_cells(spec_d) -> set[str] | None:
    """The file names of the cells of the spec recorded in a folder's ``_sweep.json`` (``spec_d``: its ``"spec"``),
    their ids recomputed from it; ``None`` for a spec this version cannot read."""
    try:
        return {f"cell-{cid}.parquet" for _a, _v, cid, _s in _cell_keys(spec_d)}
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def sweep_cells(names, expected: set[str] | None, manifest: dict[str, str] | None) -> tuple[list[str], list[str]]:
    """(the cell files of a sweep, the other files) among the Parquet file ``names`` of its folder: a cell file is one
    of the cells of its recorded spec (``expected``, :func:`expected_cells`; not applied when no file matches it, or
    when the spec cannot be read) and listed in its manifest (when the folder has one).  The others (a copy of a cell,
    a cell of another spec, a file of another tool) are never read as data nor counted as cells: one rule for
    :func:`load_sweep`, the dashboard's list of sweeps and its opening of a folder or upload."""
    names = sorted(names)
    left: list[str] = []
    if expected is not None and any(n in expected for n in names):
        left += [n for n in names if n not in expected]
        names = [n for n in names if n in expected]
    if manifest is not None:
        left += [n for n in names if n not in manifest]
        names = [n for n in names if n in manifest]
    return names, sorted(left)


def strays_note(strays) -> str:
    """The note that names the Parquet files left out of a sweep (:func:`sweep_cells`)."""
    strays = sorted(strays)
    return (f"{len(strays)} Parquet file(s) in the folder are not cells of its sweep (not in its spec or its "
            f"manifest) and were not read: {', '.join(s[:80] for s in strays[:5])}"
            + (f" and {len(strays) - 5} more" if len(strays) > 5 else ""))


def _record(out: Path, name: str, digest: str) -> None:
    """Append one cell's hash to the manifest (one short write; flushed to disk before the next cell is written)."""
    path = out / MANIFEST_FILE
    torn = False
    if path.is_file() and path.stat().st_size:
        with open(path, "rb") as fh:  # a run killed while appending left a last line without its end: end it
            fh.seek(-1, os.SEEK_END)
            torn = fh.read(1) != b"\n"
    with open(path, "a", encoding="ascii") as fh:
        fh.write(("\n" if torn else "") + f"{digest}  {name}\n")
        fh.flush()
        os.fsync(fh.fileno())


def _cell_problem(path: Path, cell: Cell, manifest: dict[str, str] | None) -> str | None:
    """Why the file of ``cell`` is not a finished cell (missing, not in the manifest, altered since it was written,
    damaged, another cell's rows), or ``None``."""
    if not path.is_file():
        return "missing"
    why = check_cell_file(path, cell_id=cell.cell_id, reps=cell.spec.reps)
    if why is None and manifest is not None:
        want = manifest.get(path.name)
        if want is None:
            return _UNLISTED
        if file_sha256(path) != want:
            return _ALTERED
    return why


_UNLISTED = "not in the sweep's manifest (_cells.sha256): not written by this sweep, or its run was stopped"
_ALTERED = "its content differs from the SHA-256 recorded in the manifest when it was written (altered since)"


def finished_cells(out_dir: str | os.PathLike, cells=None) -> set[str]:
    """Cell ids whose Parquet file exists under ``out_dir``; with ``cells`` (of one spec) only those whose file is a
    finished cell: listed in the manifest with the SHA-256 of its bytes (when the folder has a manifest) and
    complete (:func:`check_cell_file`)."""
    p = Path(out_dir)
    if not p.is_dir():
        return set()
    if cells is None:
        return {f.name[len("cell-"):-len(".parquet")] for f in p.glob("cell-*.parquet")}
    manifest = read_manifest(p)
    return {c.cell_id for c in cells if _cell_problem(_cell_path(p, c.cell_id), c, manifest) is None}


def _write_cell(frame, out: Path, cell_id: str) -> None:
    """Write a cell's rows atomically (a temporary file renamed into place), then record its SHA-256 in the manifest.
    A run killed between the two leaves a cell that is not in the manifest: the next run names it and runs it again."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = out / f".cell-{cell_id}.parquet.tmp"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp, write_page_checksum=True)
    digest = file_sha256(tmp)
    os.replace(tmp, _cell_path(out, cell_id))
    _record(out, _cell_path(out, cell_id).name, digest)


def _strays(out: Path, cells, manifest: dict[str, str] | None) -> list[str]:
    """The Parquet files of the folder that are neither a cell of the spec nor listed in the manifest (a copy, a file
    of another tool): reported, never read."""
    mine = {_cell_path(out, c.cell_id).name for c in cells}
    return sorted(f.name for f in out.glob("*.parquet")
                  if f.name not in mine and (manifest is None or f.name not in manifest))
