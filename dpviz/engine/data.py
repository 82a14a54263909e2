"""Data sets for the simulation engine: the synthetic designs of the papers, two bundled real data sets, user CSV.

Public API
----------
``DATASETS``
    name -> one-line description of every built-in data set.
``load_dataset(name, *, n=None, kappa=0.0, n_test=None, seed=0)``
    a :class:`Dataset` (training sample + a large fresh / held-out sample for the population risk).
``from_csv(content, label_column, *, max_bytes=MAX_CSV_BYTES, task=None, test_fraction=0.3, seed=0)``
    a :class:`Dataset` from a user's CSV file (bytes or str), parsed with pandas and validated.
``metric_chi(X, *, of="difference")``, ``metric_chi_remark1(X, *, of="difference")``
    χ = ||E[||X||² X Xᵀ]||_{S∞} of Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5 / Corollaries 3–4 / Remark 1,
    estimated from a sample (a Dataset: its fresh / held-out sample), and the quantities Remark 1 compares it with.

Every data set is scaled so that ``||x||_2 <= 1`` (the papers' bounded-input assumption), which makes the Lipschitz
constants of the losses computable from the domain radius.

Synthetic designs (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1, Wang, Lei, Ying & Zhou):

* ``wang-least-squares``: d = 10, w* = [0.5, 0.3, 0, 0.1, 0.2, 0, 0, 0, 0, 0.1], x uniform on the unit sphere,
  y = <x, w*> + gamma with gamma ~ N(0, kappa^2).  The paper requires |y| <= 0.5; we enforce it by **rejection
  sampling** (pairs (x, y) with |y| > 0.5 are redrawn).  For kappa = 0 this keeps y = <x, w*> exactly, so the model
  stays realizable (F(w*) = 0, the low-noise case); for kappa > 0 the truncation makes E[y | x] differ slightly from
  <x, w*>, so the reference risk is then taken from an accurate solver (see :mod:`dpviz.engine.simulate`).
* ``wang-logistic``: d = 10, w* = [5, 3, 0, 0.1, 0.2, 0, 0, 0, 0, 0.1], x uniform on the unit sphere.  The paper
  writes y = 1 if 1/(1 + exp(-y <w*, x> + gamma)) > 0.5 with y on both sides; we read it as the label of the noisy
  score, y = sign(<w*, x> - gamma), gamma ~ N(0, kappa^2) (kappa = 0: separable by w*).
* ``two-class``: two Gaussian classes (for AUC losses), x normalised to the unit sphere.
* ``clusters``: labelled clusters (for metric learning), x normalised.

Real data (offline, bundled with scikit-learn): ``breast-cancer`` (classification, labels +-1), ``diabetes``
(regression, labels scaled to [-1, 1]) and ``diabetes-binary`` (the same rows, label +1 if the disease progression
is above the median of all 442 targets, else -1: the substitute for the Diabetes classification data set of Xue,
Yang, Huai & Wang (xue-pairwise), Section 5); standardised with training statistics, then divided by the largest
training row norm (test rows are clipped to norm 1); fixed 70/30 split (seed 0).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["Dataset", "DATASETS", "DatasetCost", "DatasetPlan", "estimate_dataset_cost", "plan_dataset",
           "load_dataset", "from_csv", "csv_shape", "MAX_CSV_BYTES", "MAX_CSV_ABS", "MAX_CSV_COLUMNS", "MAX_CSV_ROWS",
           "MAX_CSV_CELLS", "CSV_TIME_LIMIT", "CSV_MEMORY_LIMIT", "WANG_LS_W", "WANG_LOGISTIC_W",
           "metric_chi", "metric_chi_remark1"]

#: w* of the least-squares experiment (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1).
WANG_LS_W = np.array([0.5, 0.3, 0, 0.1, 0.2, 0, 0, 0, 0, 0.1])
#: w* of the logistic experiment (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1).
WANG_LOGISTIC_W = np.array([5, 3, 0, 0.1, 0.2, 0, 0, 0, 0, 0.1], dtype=float)

MAX_CSV_BYTES = 5_000_000
#: Most columns, rows and cells (rows x columns) of a user CSV, checked from its first line and its line count
#: before pandas parses it: a header repeating one name 80 000 times (320 KB) made pandas' renaming of duplicate
#: columns quadratic (77 s; issue 22).  With these caps a 5 MB file parses in well under a second.
MAX_CSV_COLUMNS = 1_000
MAX_CSV_ROWS = 1_000_000
MAX_CSV_CELLS = 1_000_000
#: CPU seconds the parse of a user CSV may take (dpviz_ui.workers.load_csv checks it between its steps; the page stops
#: waiting after it)
CSV_TIME_LIMIT = 10.0
#: Bytes of memory (address space) the parse of a user CSV may take beyond what its worker process already holds
#: (dpviz_ui.workers.load_csv sets it as a hard limit while pandas reads): the worst CSVs of MAX_CSV_BYTES measured
#: (one number of 4.9 million digits, a 4 MB text value, 1 000 x 1 000 text cells) peak at about 30 MB above the
#: imports, 135 MB for the whole process (benchmarks/bench_hostile.py, the "CSV memory" cases), so 500 MB bounds any
#: CSV the size limit lets through with a wide margin, and 1 GB per upload holds.
CSV_MEMORY_LIMIT = 500_000_000
#: Largest magnitude accepted in a CSV cell.  Standardising squares deviations, so values near the float limit
#: (1.8e308) would overflow to inf / NaN; 1e100 leaves a wide margin and no real measurement comes close.
MAX_CSV_ABS = 1e100

DATASETS: dict[str, str] = {
    "wang-least-squares": "Synthetic least squares of Wang, Lei, Ying & Zhou (d = 10, ||x|| = 1, |y| <= 0.5, noise kappa)",
    "wang-logistic": "Synthetic logistic classification of Wang, Lei, Ying & Zhou (d = 10, ||x|| = 1, noise kappa)",
    "two-class": "Two Gaussian classes on the unit sphere (for AUC maximisation)",
    "clusters": "Labelled clusters on the unit sphere (for metric learning)",
    "breast-cancer": "Breast cancer Wisconsin (scikit-learn), 30 features, labels +-1",
    "diabetes": "Diabetes (scikit-learn), 10 features, regression target scaled to [-1, 1]",
    "diabetes-binary": "Diabetes (scikit-learn), 10 features, labels +-1: progression above the median",
}


@dataclass
class Dataset:
    """A training sample and an evaluation sample.

    ``X_test, y_test`` is a large fresh sample from the same distribution for synthetic data (the population risk is
    estimated on it) and the held-out split for real / CSV data.  ``w_star`` is the true parameter where known;
    ``realizable`` says that F(w*) = 0 holds (then excess risk is measured against w*).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    task: str  # "regression" | "classification" | "multiclass"
    w_star: np.ndarray | None = None
    realizable: bool = False
    kappa: float = 0.0
    description: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def x_bound(self) -> float:
        """max ||x_i||_2 over the training sample (<= 1 by construction)."""
        return float(np.sqrt((self.X**2).sum(axis=1)).max())

    @property
    def y_bound(self) -> float:
        return float(np.abs(self.y).max())


def _sphere(rng: np.random.Generator, m: int, d: int) -> np.ndarray:
    x = rng.standard_normal((m, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


#: Cap on the rounds of the rejection sampling of ``wang-least-squares`` (each round draws twice the shortfall; with
#: kappa <= 1 about half the draws are kept, so a handful of rounds suffice).
_MAX_REJECTION_ROUNDS = 200


def _wang_ls(rng, m, kappa):
    """Draw m pairs with |y| <= 0.5 by rejection (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1)."""
    xs, ys, have = [], [], 0
    for _ in range(_MAX_REJECTION_ROUNDS):
        if have >= m:
            break
        k = max(2 * (m - have), 64)
        x = _sphere(rng, k, 10)
        y = x @ WANG_LS_W + kappa * rng.standard_normal(k)
        keep = np.abs(y) <= 0.5
        xs.append(x[keep])
        ys.append(y[keep])
        have += int(keep.sum())
    else:
        if have < m:
            raise ValueError(f"kappa = {kappa:g} is so large that almost no draw satisfies |y| <= 0.5 (the rejection "
                             f"sampling kept {have} of the {m} examples needed); use kappa <= 1.")
    return np.concatenate(xs)[:m], np.concatenate(ys)[:m]


def _wang_logistic(rng, m, kappa):
    x = _sphere(rng, m, 10)
    score = x @ WANG_LOGISTIC_W - kappa * rng.standard_normal(m)
    return x, np.where(score > 0, 1.0, -1.0)


def _two_class(rng, m, d=5, p=0.3, sep=1.0):
    y = np.where(rng.random(m) < p, 1.0, -1.0)
    centre = np.zeros(d)
    centre[0] = sep
    x = rng.standard_normal((m, d)) + y[:, None] * centre
    return x / np.linalg.norm(x, axis=1, keepdims=True), y


def _clusters(rng, m, d=4, k=3):
    centres = np.eye(d)[:k] * 2.0
    lab = rng.integers(0, k, m)
    x = centres[lab] + rng.standard_normal((m, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True), lab.astype(float)


def load_dataset(name: str, *, n: int | None = None, kappa: float = 0.0, n_test: int | None = None,
                 seed: int = 0) -> Dataset:
    """Load a built-in data set.

    Parameters
    ----------
    name : str
        One of :data:`DATASETS`.
    n : int, optional
        Training sample size for synthetic data (default 5000, the paper's n).  Ignored for real data.
    kappa : float, default 0
        Standard deviation of the label noise for the Wang et al. designs (0 = low-noise / realizable).
    n_test : int, optional
        Size of the fresh population sample for synthetic data (default 20000).
    seed : int, default 0
        Seed of the data draw (the algorithm's randomness is seeded separately).
    """
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of: {', '.join(DATASETS)}")
    kappa = v.check_nonnegative("kappa (label noise)", kappa)
    seed = v.check_int("seed", seed, minimum=0)
    if name in _REAL_SHAPE:
        return _real(name)
    n = 5000 if n is None else v.check_n(n)
    n_test = 20000 if n_test is None else v.check_int("n_test", n_test, minimum=10)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 7919])))
    if name == "wang-least-squares":
        X, y = _wang_ls(rng, n + n_test, kappa)
        return Dataset(name, X[:n], y[:n], X[n:], y[n:], "regression", w_star=WANG_LS_W.copy(),
                       realizable=kappa == 0, kappa=kappa, description=DATASETS[name],
                       notes=["|y| <= 0.5 enforced by rejection sampling (Wang, Lei, Ying & Zhou, Section 5.1)."])
    if name == "wang-logistic":
        X, y = _wang_logistic(rng, n + n_test, kappa)
        return Dataset(name, X[:n], y[:n], X[n:], y[n:], "classification", w_star=WANG_LOGISTIC_W.copy(),
                       realizable=False, kappa=kappa, description=DATASETS[name],
                       notes=["label y = sign(<w*, x> - gamma), gamma ~ N(0, kappa^2) (our reading of Section 5.1)."])
    if name == "two-class":
        X, y = _two_class(rng, n + n_test)
        return Dataset(name, X[:n], y[:n], X[n:], y[n:], "classification", description=DATASETS[name])
    X, y = _clusters(rng, n + n_test)
    return Dataset(name, X[:n], y[:n], X[n:], y[n:], "multiclass", description=DATASETS[name])


def _scale_split(X: np.ndarray, y: np.ndarray, test_fraction: float, seed: int):
    rng = np.random.Generator(np.random.PCG64(seed))
    perm = rng.permutation(len(y))
    m_test = max(1, int(round(test_fraction * len(y))))
    te, tr = perm[:m_test], perm[m_test:]
    mu = X[tr].mean(axis=0)
    sd = X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - mu) / sd
    scale = np.linalg.norm(Z[tr], axis=1).max()
    Z = Z / (scale if scale > 0 else 1.0)
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    Z = Z / np.maximum(norms, 1.0)  # clip held-out rows to the unit ball
    return Z[tr], y[tr], Z[te], y[te]


def _real(name: str) -> Dataset:
    from sklearn import datasets as skd

    if name == "breast-cancer":
        b = skd.load_breast_cancer()
        y = np.where(b.target == 1, 1.0, -1.0)
        task = "classification"
    elif name == "diabetes-binary":
        # a fixed threshold on all 442 targets (a label definition, not fitted on the training split); the median
        # of the integer targets (140.5) falls between two values, so the classes have 221 rows each
        b = skd.load_diabetes()
        t = b.target.astype(float)
        y = np.where(t > np.median(t), 1.0, -1.0)
        task = "classification"
    else:
        b = skd.load_diabetes()
        t = b.target.astype(float)
        y = (t - (t.max() + t.min()) / 2) / ((t.max() - t.min()) / 2)
        task = "regression"
    X, yy, Xt, yt = _scale_split(np.asarray(b.data, dtype=float), y, 0.3, 0)
    return Dataset(name, X, yy, Xt, yt, task, description=DATASETS[name],
                   notes=["standardised, scaled so ||x|| <= 1, fixed 70/30 split; the held-out split estimates the "
                          "population risk"])


def _names(cols, most: int = 8) -> str:
    """Column names for a message: at most ``most`` of them (each cut to 40 characters), then how many more."""
    cols = [str(c) if len(str(c)) <= 40 else str(c)[:39] + "…" for c in cols]
    return ", ".join(cols[:most]) + (f" and {len(cols) - most} more" if len(cols) > most else "")


def _number_text(text: str) -> bool:
    """Whether ``text`` is written as a decimal number (``-12``, ``3.5e-2``, ``.5``), in time linear in its length
    (no regular expression: a cell can hold millions of characters)."""
    t = text.strip().lower()
    if t[:1] in ("+", "-"):
        t = t[1:]
    mant, e, exp = t.partition("e")
    if e:
        exp = exp[1:] if exp[:1] in ("+", "-") else exp
        if not (exp.isascii() and exp.isdigit()):
            return False
    whole, _, frac = mant.partition(".")
    return bool(whole or frac) and all(part == "" or (part.isascii() and part.isdigit()) for part in (whole, frac))


def _not_a_float(text: str) -> bool:
    """Whether the decimal number ``text`` cannot be read as a finite float: too many digits for pandas' parser (more
    than 1 000 characters) or beyond about 1e308."""
    if len(text) > 1000:
        return True
    try:
        return not math.isfinite(float(text))
    except (ValueError, OverflowError):
        return True


def _why_not_numeric(df, bad: list[str]) -> str:
    """One line saying why the columns ``bad`` are not numeric: a cell that is a number too long or too large to be a
    floating-point number (e.g. one of 4.9 million digits) is named as such, else the first text cell is quoted."""
    for c in bad:
        col = df[c]
        for val in col[col.notna()].head(100_000):
            text = str(val)
            if _number_text(text) and _not_a_float(text):  # (a small number next to a text cell is not the cause)
                digits = sum(ch.isdigit() for ch in text)
                return (f"column {_names([c])} holds a number of {digits:,} digits, too large to read as a "
                        f"floating-point number (at most about 1e308; dpviz accepts |x| <= {MAX_CSV_ABS:g}); rescale "
                        "the column or remove that row.")
    first = bad[0]
    col = df[first]
    sample = next((str(v) for v in col[col.notna()].head(1000) if not _number_text(str(v))), None)
    shown = "" if sample is None else f" (e.g. {sample[:30] + ('…' if len(sample) > 30 else '')!r}" + (
        f", a value of {len(sample):,} characters)" if len(sample) > 1000 else ")")
    return f"these columns are not numeric: {_names(bad)}{shown}; all columns must hold numbers."


def csv_shape(content: bytes) -> tuple[list[str], int]:
    """The header (column names) and the number of data lines of a CSV, checked against :data:`MAX_CSV_COLUMNS`,
    :data:`MAX_CSV_ROWS` and :data:`MAX_CSV_CELLS` and for repeated names, in time linear in the file's size (before
    pandas parses it).

    Raises
    ------
    ValueError
        One short line naming the limit: too many columns, rows or cells, a repeated column name, an unreadable
        header.
    """
    import csv

    end = content.find(b"\n")
    first = content if end < 0 else content[:end]
    try:
        text = first.decode("utf-8-sig").rstrip("\r")
    except UnicodeDecodeError:
        raise ValueError("the CSV's first line is not UTF-8 text.") from None
    commas = text.count(",") + 1
    if commas > 4 * MAX_CSV_COLUMNS:  # certainly too many, whatever the quoting: do not even split it
        raise ValueError(f"the CSV has about {commas:,} columns; the limit is {MAX_CSV_COLUMNS:,}.")
    try:
        header = next(csv.reader([text]), [])
    except csv.Error as exc:
        raise ValueError(f"could not read the CSV's header line ({str(exc)[:80]}).") from None
    if len(header) > MAX_CSV_COLUMNS:
        raise ValueError(f"the CSV has {len(header):,} columns; the limit is {MAX_CSV_COLUMNS:,}.")
    names = [h.strip() for h in header]
    seen: dict[str, int] = {}
    for h in names:
        seen[h] = seen.get(h, 0) + 1
    repeated = [h for h, k in seen.items() if k > 1]
    if repeated:
        h = repeated[0] if len(repeated[0]) <= 40 else repeated[0][:39] + "…"
        raise ValueError(f"column names must be distinct: {h!r} appears {seen[repeated[0]]:,} times"
                         + (f" (and {len(repeated) - 1} other names repeat)" if len(repeated) > 1 else "") + ".")
    # data lines: the lines after the header, the last one counted even without its line end (blank lines included:
    # an upper bound of pandas' rows)
    rows = 0 if end < 0 else content.count(b"\n", end + 1) + (0 if content.endswith(b"\n") else 1)
    if rows > MAX_CSV_ROWS:
        raise ValueError(f"the CSV has {rows:,} rows; the limit is {MAX_CSV_ROWS:,}.")
    if rows * len(header) > MAX_CSV_CELLS:
        raise ValueError(f"the CSV has {rows:,} rows x {len(header):,} columns = {rows * len(header):,} cells; the "
                         f"limit is {MAX_CSV_CELLS:,}.")
    return names, rows


def from_csv(content: bytes | str, label_column: str, *, max_bytes: int = MAX_CSV_BYTES, task: str | None = None,
             test_fraction: float = 0.3, seed: int = 0) -> Dataset:
    """Build a :class:`Dataset` from a CSV file with numeric feature columns and one label column.

    The file's shape is checked first (:func:`csv_shape`: at most :data:`MAX_CSV_COLUMNS` distinct column names,
    :data:`MAX_CSV_ROWS` rows, :data:`MAX_CSV_CELLS` cells), then it is parsed with :func:`pandas.read_csv` (no code
    is evaluated).  A label column with exactly two distinct values is a classification task (mapped to -1 / +1,
    the larger value is +1); otherwise regression (labels scaled to [-1, 1]).  Features are standardised and scaled
    to ``||x|| <= 1``; a random ``test_fraction`` is held out.  Every message is one short line (at most a few
    column names are listed).

    Raises
    ------
    ValueError
        Empty or too large file, too many columns / rows / cells, repeated column names, unparsable CSV, header
        without data rows, unknown label column, non-numeric columns, missing / infinite values, values beyond
        +-MAX_CSV_ABS (1e100, they would overflow when standardised), fewer than 10 rows, a constant label, only
        constant features.
    """
    import pandas as pd

    max_bytes = v.check_int("max_bytes", max_bytes)
    test_fraction = v.check_open_unit("test_fraction", test_fraction)
    if isinstance(content, str):
        content = content.encode("utf-8")
    if not isinstance(content, (bytes, bytearray)):
        raise ValueError("the CSV content must be bytes or text.")
    if len(content) == 0:
        raise ValueError("the CSV file is empty.")
    if len(content) > max_bytes:
        raise ValueError(f"the CSV file is {len(content) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.1f} MB.")
    content = bytes(content)
    nul = content.find(b"\x00")
    if nul >= 0:
        line = content.count(b"\n", 0, nul) + 1
        odd, even = content[1:200:2], content[0:200:2]
        utf16 = content[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(odd) >= 4 and max(
            odd.count(0) / len(odd), even.count(0) / max(len(even), 1)) >= 0.8)
        raise ValueError(f"the CSV contains NUL bytes (the first on line {line:,}): "
                         + ("it looks like UTF-16 text; save it as UTF-8 CSV." if utf16 else
                            "a text CSV never has them (binary data, or a file saved in another encoding); save it "
                            "as UTF-8 CSV."))
    csv_shape(content)
    try:
        df = pd.read_csv(io.BytesIO(content))
    except Exception as exc:  # pandas raises several parser error types
        if isinstance(exc, v.TimeLimit):  # the pool job's CPU-time limit: its own message
            raise
        if isinstance(exc, MemoryError) or "out of memory" in str(exc):  # the pool job's memory limit: its own message
            raise MemoryError(str(exc)) from None
        raise ValueError(f"could not parse the file as CSV: {str(exc)[:160]}") from None
    if len(df) == 0:
        raise ValueError("the CSV has a header but no data rows; add at least 10 rows of numbers.")
    if label_column not in df.columns:
        shown = str(label_column) if len(str(label_column)) <= 40 else str(label_column)[:39] + "…"
        raise ValueError(f"label column {shown!r} not found; the columns are: {_names(df.columns)}.")
    bad = [str(c) for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise ValueError(_why_not_numeric(df, bad))
    if df.shape[1] < 2:
        raise ValueError("the CSV needs at least one feature column besides the label column.")
    arr = df.to_numpy(dtype=float)
    if np.isnan(arr).any():
        cols = [str(c) for c in df.columns[np.isnan(arr).any(axis=0)]]
        raise ValueError(f"missing values (NaN / empty cells) in column(s): {_names(cols)}; remove or fill them.")
    if np.isinf(arr).any():
        cols = [str(c) for c in df.columns[np.isinf(arr).any(axis=0)]]
        raise ValueError(f"infinite values in column(s): {_names(cols)}.")
    huge = np.abs(arr) > MAX_CSV_ABS
    if huge.any():
        cols = [str(c) for c in df.columns[huge.any(axis=0)]]
        raise ValueError(f"values larger than {MAX_CSV_ABS:g} in absolute value in column(s): {_names(cols)}; "
                         "such values overflow when the data are standardised; rescale the column(s) (e.g. change "
                         "the unit).")
    if len(df) < 10:
        raise ValueError(f"the CSV has {len(df)} rows; at least 10 are needed.")
    y = df[label_column].to_numpy(dtype=float)
    X = df.drop(columns=[label_column]).to_numpy(dtype=float)
    vals = np.unique(y)
    if len(vals) < 2:
        raise ValueError(f"the label column {label_column!r} is constant (every row is {vals[0]:g}); there is nothing "
                         "to learn: choose a label that varies.")
    if not (X.max(axis=0) > X.min(axis=0)).any():
        raise ValueError("every feature column is constant; there is nothing to learn from.")
    if task is None:
        task = "classification" if len(vals) == 2 else "regression"
    if task == "classification":
        if len(vals) != 2:
            raise ValueError(f"a classification label needs exactly two distinct values, found {len(vals)}.")
        y = np.where(y == vals[1], 1.0, -1.0)
    elif task == "regression":
        mid = y.max() / 2 + y.min() / 2  # halves first: y.max() + y.min() could overflow
        span = y.max() / 2 - y.min() / 2
        y = (y - mid) / span
    else:
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}.")
    X, yy, Xt, yt = _scale_split(X, y, test_fraction, seed)
    if not (np.isfinite(X).all() and np.isfinite(Xt).all() and np.isfinite(yy).all() and np.isfinite(yt).all()):
        raise ValueError("the data could not be scaled to finite numbers (values too large or too spread out); "
                         "rescale the columns.")
    return Dataset("csv", X, yy, Xt, yt, task, description=f"user CSV ({len(df)} rows, label {label_column!r})",
                   notes=["standardised, scaled so ||x|| <= 1"])


# ----------------------------------------------------------------------------------------------------------------
# Cost of building a data set, estimated BEFORE building it (so a page or a server can refuse with the figures).

#: Dimension d of each synthetic design (the number of feature columns it draws).
_SYNTHETIC_D = {"wang-least-squares": 10, "wang-logistic": 10, "two-class": 5, "clusters": 4}
#: Peak working memory of the generator as a multiple of the retained arrays (measured with tracemalloc: the
#: rejection sampler of wang-least-squares draws twice what it keeps and concatenates, about 6x; the others about 2.2x).
_PEAK_FACTOR = {"wang-least-squares": 6.5, "wang-logistic": 2.5, "two-class": 2.5, "clusters": 2.5}
#: CPU seconds per float of the retained arrays (n + n_test) x (d + 1), measured by benchmarks/bench_cost_estimate.py
#: (see benchmarks/RESULTS.md, "Cost estimate").
_SECONDS_PER_FLOAT = {"wang-least-squares": 1e-7, "wang-logistic": 3e-8, "two-class": 2.3e-8, "clusters": 2.3e-8}
#: CSV: peak memory per byte of the file (pandas' parse, the float array, the scaled copies: about 25x measured) and
#: parse + validation time per byte.
_CSV_PEAK_PER_BYTE = 30.0
_CSV_SECONDS_PER_BYTE = 1.5e-6
#: The bundled real data sets are small and fixed: (rows, columns incl. the label).
_REAL_SHAPE = {"breast-cancer": (569, 31), "diabetes": (442, 11), "diabetes-binary": (442, 11)}


@dataclass(frozen=True)
class DatasetCost:
    """Estimated cost of building a data set: memory kept afterwards (``bytes_retained``: training + evaluation
    arrays), peak memory while building (``bytes_peak``) and time (``seconds``)."""

    rows: int
    columns: int
    bytes_retained: int
    bytes_peak: int
    seconds: float

    def describe(self) -> str:
        """One plain-text line with the figures, e.g. for a refusal message."""
        shape = f"{self.rows:,} rows x {self.columns} columns" if self.columns else f"about {self.rows:,} rows"
        return (f"{shape}: about {_fmt_bytes(self.bytes_peak)} of memory while "
                f"building ({_fmt_bytes(self.bytes_retained)} kept) and {self.seconds:.2g} s")


def _fmt_bytes(b: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def estimate_dataset_cost(name: str, *, n: int | None = None, n_test: int | None = None,
                          csv_bytes: int | None = None) -> DatasetCost:
    """Memory (bytes) and time (seconds) of building a data set, computed from its size alone, without building it.

    Parameters
    ----------
    name : str
        One of :data:`DATASETS`, or ``"csv"`` for a user file (then give ``csv_bytes``).
    n, n_test : int, optional
        As in :func:`load_dataset` (defaults 5000 and 20000); ignored for the real data sets.
    csv_bytes : int, optional
        Size of the CSV file in bytes (for ``name="csv"``); the file is at most :data:`MAX_CSV_BYTES`.

    The synthetic designs keep (n + n_test) x (d + 1) float64 numbers; the peak while drawing them and the time per
    number are measured constants (``_PEAK_FACTOR``, ``_SECONDS_PER_FLOAT``), so the figures are estimates
    within about a factor 2 on the reference machine.  No argument is limited here (any n gives its figures, e.g.
    n = 10^9 gives about 90 GB kept); the caller decides what to refuse.
    """
    if name == "csv":
        if csv_bytes is None:
            raise ValueError("give csv_bytes, the size of the CSV file, to estimate its cost.")
        size = v.check_int("csv_bytes", csv_bytes, minimum=0)
        rows = max(size // 40, 1)  # a rough row count: ~40 bytes per row of a few numeric cells
        return DatasetCost(rows=rows, columns=0, bytes_retained=int(8 * size // 4),
                           bytes_peak=int(_CSV_PEAK_PER_BYTE * size), seconds=_CSV_SECONDS_PER_BYTE * size + 0.01)
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of: {', '.join(DATASETS)}, csv")
    if name in _REAL_SHAPE:
        rows, cols = _REAL_SHAPE[name]
        kept = 8 * rows * cols
        return DatasetCost(rows=rows, columns=cols, bytes_retained=kept, bytes_peak=10 * kept, seconds=0.3)
    n = 5000 if n is None else v.check_n(n)
    n_test = 20000 if n_test is None else v.check_int("n_test", n_test, minimum=10)
    d = _SYNTHETIC_D[name]
    floats = (n + n_test) * (d + 1)
    return DatasetCost(rows=n + n_test, columns=d + 1, bytes_retained=8 * floats,
                       bytes_peak=int(8 * floats * _PEAK_FACTOR[name]),
                       seconds=floats * _SECONDS_PER_FLOAT[name] + 0.001)


#: Task of each built-in data set (as :func:`load_dataset` sets it).
_TASKS = {"wang-least-squares": "regression", "wang-logistic": "classification", "two-class": "classification",
          "clusters": "multiclass", "breast-cancer": "classification", "diabetes": "regression",
          "diabetes-binary": "classification"}


@dataclass(frozen=True)
class DatasetPlan:
    """A built-in data set described by its size only, NOT built: what :func:`dpviz.engine.simulate.estimate_cost` needs
    (n, d, task, the row-norm bound) plus :attr:`cost`, the estimated memory and time of building it.  Pass it to
    ``estimate_cost`` to know the whole cost (data generation + simulation) before building anything; build the
    data set with :meth:`build` (i.e. :func:`load_dataset`) only if the figures are acceptable."""

    name: str
    n: int
    d: int
    n_test: int
    kappa: float
    seed: int
    task: str
    cost: DatasetCost
    x_bound: float = 1.0  # every data set is scaled to ||x|| <= 1
    # present (as None) so that code checking for a Dataset's attributes accepts a plan where only sizes matter
    X = y = X_test = y_test = None

    def build(self) -> Dataset:
        return load_dataset(self.name, n=self.n, kappa=self.kappa, n_test=self.n_test, seed=self.seed)


def plan_dataset(name: str, *, n: int | None = None, kappa: float = 0.0, n_test: int | None = None,
                 seed: int = 0) -> DatasetPlan:
    """The :class:`DatasetPlan` of ``load_dataset(name, n=n, kappa=kappa, n_test=n_test, seed=seed)``: sizes and
    estimated cost, computed without drawing a single number (arguments are validated as by :func:`load_dataset`)."""
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of: {', '.join(DATASETS)}")
    kappa = v.check_nonnegative("kappa (label noise)", kappa)
    seed = v.check_int("seed", seed, minimum=0)
    cost = estimate_dataset_cost(name, n=n, n_test=n_test)
    if name in _REAL_SHAPE:
        rows, cols = _REAL_SHAPE[name]
        n_train = rows - max(1, int(round(0.3 * rows)))
        return DatasetPlan(name, n_train, cols - 1, rows - n_train, 0.0, 0, _TASKS[name], cost)
    n = 5000 if n is None else v.check_n(n)
    n_test = 20000 if n_test is None else v.check_int("n_test", n_test, minimum=10)
    return DatasetPlan(name, n, _SYNTHETIC_D[name], n_test, kappa, seed, _TASKS[name], cost)


# ---------------------------------------------------------------------------------------------------------------
# chi of Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5


def _chi_sample(X, of: str) -> np.ndarray:
    if isinstance(X, Dataset):
        X = X.X_test
    if of not in ("difference", "feature"):
        raise ValueError(f"of must be 'difference' (X = x - x', the reading of the proof) or 'feature' (X = x), "
                         f"got {of!r}.")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"X must be a sample of at least 2 rows of features (an n x d array), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values.")
    return X


def _chi_matrix(X: np.ndarray, of: str) -> np.ndarray:
    """E[||X||² X Xᵀ] over the sample (feature) or over the ordered pairs i != j of differences (difference)."""
    n, d = X.shape
    sq = np.einsum("ij,ij->i", X, X)
    M4 = (X * sq[:, None]).T @ X / n  # E ||x||² x xᵀ
    if of == "feature":
        return M4
    # a, b independent draws from the sample (with replacement); i = j gives a - b = 0, so the mean over the
    # n(n - 1) ordered pairs i != j is n/(n - 1) times E_{a,b}[||a - b||² (a - b)(a - b)ᵀ], which expands to
    #   2 M4 + 2 m2 S - 2 (v mᵀ + m vᵀ) - 4 K + 4 S²
    # with m = E a, S = E a aᵀ, m2 = E ||a||² = tr S, v = E ||a||² a, K = E (aᵀm) a aᵀ; O(n d²).
    m = X.mean(axis=0)
    S = X.T @ X / n
    m2 = float(np.trace(S))
    vv = (X * sq[:, None]).mean(axis=0)
    K = (X * (X @ m)[:, None]).T @ X / n
    V = 2 * M4 + 2 * m2 * S - 2 * (np.outer(vv, m) + np.outer(m, vv)) - 4 * K + 4 * S @ S
    return V * n / (n - 1)


def metric_chi(X, *, of: str = "difference") -> float:
    r"""χ = ||E[||X||² X Xᵀ]||_{S∞} (largest singular value) of Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5 eq.
    (12) and Corollaries 3–4, estimated from a sample instead of typed in.

    Which X: the similarity h_W(x, x') = (x − x')ᵀ W (x − x') and the Rademacher average of eq. (4) runs over pairs,
    so the matrix-Khintchine argument behind Lemma 5 (the paper cites Lust-Piquard & Pisier) bounds
    E||Σ_k σ_k u_k u_kᵀ||_{S∞} with u_k = x_i − x_{i_k}: X is the *difference* of two independent examples
    (``of="difference"``, the default: the mean over the ordered pairs i != j of the sample, computed in O(n d²)).
    The proof is in the paper's appendix, which the text does not reproduce; ``of="feature"`` gives the other
    reading, X = x (the mean of ||x_i||² x_i x_iᵀ).

    Parameters
    ----------
    X : array (n, d) or dpviz.engine.data.Dataset
        A sample of features (n >= 2); for a Dataset its fresh / held-out sample ``X_test`` (χ is a population
        quantity).
    of : {"difference", "feature"}

    Returns
    -------
    float
        χ >= 0 (the matrix is positive semi-definite, so its largest eigenvalue).
    """
    X = _chi_sample(X, of)
    return float(max(np.linalg.eigvalsh(_chi_matrix(X, of))[-1], 0.0))


def metric_chi_remark1(X, *, of: str = "difference") -> dict:
    r"""The quantities of Remark 1 of Yang, Lei, Lyu & Ying (yang-pairwise) for a sample.

    Remark 1 compares the factor √χ of Lemma 5, eq. (12), with sup ||X||² of the earlier bound eq. (13) (Lei &
    Ying 2016), and notes χ >= tr(E[||X||² X Xᵀ])/d = E||X||⁴/d.

    Returns
    -------
    dict
        ``chi``, ``sqrt_chi`` (the factor in eq. (12)), ``sup_sq`` = max ||X||² over the sample (the factor in eq.
        (13)), ``lower_bound`` = E||X||⁴/d, ``ratio`` = sqrt_chi / sup_sq (< 1: eq. (12) is the smaller factor),
        ``of``.
    """
    X = _chi_sample(X, of)
    chi = metric_chi(X, of=of)
    n, d = X.shape
    if of == "feature":
        sq = np.einsum("ij,ij->i", X, X)
        sup_sq, fourth = float(sq.max()), float(np.mean(sq**2))
    else:
        # E||x - x'||⁴ over ordered pairs i != j, and max ||x_i - x_j||², in blocks (O(n²) time, O(n) memory)
        sup_sq, tot = 0.0, 0.0
        for i in range(n):
            dd = np.einsum("ij,ij->i", X - X[i], X - X[i])
            sup_sq = max(sup_sq, float(dd.max()))
            tot += float(np.sum(dd**2))
        fourth = tot / (n * (n - 1))
    return {"chi": chi, "sqrt_chi": math.sqrt(chi), "sup_sq": sup_sq, "lower_bound": fourth / d,
            "ratio": math.sqrt(chi) / sup_sq if sup_sq > 0 else float("nan"), "of": of}
