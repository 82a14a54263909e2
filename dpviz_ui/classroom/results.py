"""A student's prediction read from what they typed, the class's distribution of predictions beside the right answer,
and the QR code of the join link.  Pure functions (no streamlit); the figure is a Plotly figure of data.

A revealed answer (what :meth:`dpviz_ui.classroom.store.ClassStore.reveal` stores) is a dict ``{"kind": "number" or
"choice", "answer": the right number or option, "rtol": the question's tolerance, "options": [...], "shown": the
answer as the page writes it}``; whether a prediction counts as right is the lessons' own rule
(:func:`dpviz_ui.lessons.check_prediction`: within ``rtol`` of a number, equal to a choice).
"""

from __future__ import annotations

import copy
import functools
import io
import json
import math

import numpy as np
import plotly.graph_objects as go

from dpviz.foundation import urlstate
from dpviz_ui.lessons import Question, check_prediction

#: longest prediction text read (anything longer is refused before it is parsed)
MAX_TYPED_CHARS = 64


def normalise(question: Question, raw) -> str:
    """The stored form of a prediction typed for ``question``: a number parsed as everywhere in dpviz (``6e4``,
    ``60,000`` and ``60 000`` are 60000) written as its shortest repr, or exactly one of a choice question's options.
    ValueError with a message a student understands otherwise."""
    if question.kind == "choice":
        if not isinstance(raw, str) or raw not in question.options:
            raise ValueError("choose one of " + ", ".join(question.options))
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise ValueError("the box is empty: type a number such as 2.5 or 6e4")
    if isinstance(raw, str) and len(raw) > MAX_TYPED_CHARS:
        raise ValueError(f"a prediction is at most {MAX_TYPED_CHARS} characters")
    x = urlstate.parse_number(raw)
    return repr(float(x))


def revealed_answer(question: Question, answer, shown: str, text: str = "", tex: str = "") -> dict:
    """The dict stored when a question is revealed (see the module's docstring), with the solver's explanation
    (``text``, ``tex``) so that the students' pages show it without computing it again."""
    if question.kind == "choice":
        ans = str(answer)
    else:
        ans = float(answer)
        if not math.isfinite(ans):
            raise ValueError("the answer is not a finite number")
    return {"kind": question.kind, "answer": ans, "rtol": float(question.rtol), "options": list(question.options),
            "shown": str(shown), "text": str(text or "")[:8000], "tex": str(tex or "")[:8000]}


def _question_of(rev: dict) -> Question:
    return Question(prompt="", solver="", kind=rev["kind"], options=tuple(rev.get("options") or ()),
                    rtol=float(rev.get("rtol", 0.1)))


def is_right(rev: dict, value: str) -> bool:
    """Whether the stored prediction ``value`` counts as right against the revealed answer ``rev``."""
    return bool(check_prediction(_question_of(rev), value, rev["answer"]))


def summary(rev: dict, values: list[str]) -> dict:
    """``{"n", "n_right", "share"}`` (share None when no one answered) and, for numbers, ``"numbers"`` (the parsed
    predictions) or, for choices, ``"counts"`` (option -> how many)."""
    n = len(values)
    n_right = sum(1 for v in values if is_right(rev, v))
    out = {"n": n, "n_right": n_right, "share": (n_right / n) if n else None}
    if rev["kind"] == "choice":
        out["counts"] = {opt: sum(1 for v in values if v == opt) for opt in rev.get("options") or ()}
    else:
        out["numbers"] = [float(v) for v in values]
    return out


def use_log_axis(numbers, answer: float) -> bool:
    """A log axis when every value (predictions and answer) is positive and they spread over more than a factor 10."""
    xs = [float(x) for x in numbers] + [float(answer)]
    return all(x > 0 for x in xs) and max(xs) / min(xs) > 10


def _fmt(x: float) -> str:
    return f"{x:.3g}"


#: the class's figures kept per process (one per class, question and set of answers; a few kB each)
FIGURES_KEPT = 64
_MINE_COL = "#1565c0"


def distribution_figure(rev: dict, values: list[str], mine: str | None = None) -> go.Figure:
    """The class's predictions: a histogram for a number question (log-spaced bins on a log axis where
    :func:`use_log_axis`), bars for a choice question; the right answer marked (and the band of predictions that
    count as right), and the student's own prediction ``mine`` if given.

    The class's part is built (and validated by Plotly) once per revealed answer and set of answers, not once per
    student: at a reveal every student's page draws the same figure but for the "you" marker, and building it cost
    ~55 ms of server CPU per page (benchmarks/RESULTS.md, "Live class, session 39").  The marker is added to a copy of
    that figure's dict exactly as :func:`build_distribution_figure` adds it (tests/test_class_results.py compares
    the two)."""
    if not isinstance(rev, dict) or rev.get("kind") not in ("number", "choice"):
        raise ValueError("a revealed answer is a dict whose kind is 'number' or 'choice'")
    spec, log = _class_figure(json.dumps(rev, sort_keys=True, default=str), tuple(str(v) for v in values))
    spec = copy.deepcopy(spec)
    layout = spec.setdefault("layout", {})
    mark = _mine_marks(rev, mine, log)
    if mark:
        shape, note = mark
        if shape is not None:
            layout["shapes"] = [*layout.get("shapes", ()), shape]
        layout["annotations"] = [*layout.get("annotations", ()), note]
    try:
        return go.Figure(spec, _validate=False)  # the class's part was validated when it was built
    except TypeError:  # a Plotly without the private switch: validate again (slower, same figure)
        return go.Figure(spec)


@functools.lru_cache(maxsize=FIGURES_KEPT)
def _class_figure(rev_json: str, values: tuple[str, ...]) -> tuple[dict, bool]:
    rev = json.loads(rev_json)
    fig = build_distribution_figure(rev, list(values))
    log = rev["kind"] != "choice" and use_log_axis([float(v) for v in values], float(rev["answer"]))
    return fig.to_dict(), log


def _mine_marks(rev: dict, mine: str | None, log: bool):
    """The student's "you" marker as :func:`build_distribution_figure` draws it: (shape or None, annotation), or
    None when it is not drawn."""
    if mine is None:
        return None
    if rev["kind"] == "choice":
        if mine not in list(rev.get("options") or ()):
            return None
        return None, {"arrowhead": 2, "ay": 30, "font": {"color": _MINE_COL}, "showarrow": True, "text": "you",
                      "x": mine, "y": 0, "yanchor": "top"}
    try:
        m = float(mine)
    except ValueError:
        return None
    if log and not m > 0:
        return None
    x = float(np.log10(m)) if log else m
    return ({"line": {"color": _MINE_COL, "dash": "dash", "width": 2}, "type": "line", "x0": x, "x1": x, "xref": "x",
             "y0": 0, "y1": 1, "yref": "y domain"},
            {"font": {"color": _MINE_COL}, "showarrow": False, "text": "you", "x": x, "xanchor": "left", "xref": "x",
             "y": 0, "yanchor": "bottom", "yref": "y domain"})


def build_distribution_figure(rev: dict, values: list[str], mine: str | None = None) -> go.Figure:
    """:func:`distribution_figure` built from scratch by Plotly (every call; the reference the fast path is checked
    against)."""
    s = summary(rev, values)
    fig = go.Figure()
    right_col, other_col, mine_col = "#2e7d32", "#90a4ae", _MINE_COL
    if rev["kind"] == "choice":
        opts = list(rev.get("options") or ())
        fig.add_bar(x=opts, y=[s["counts"][o] for o in opts],
                    marker_color=[right_col if o == rev["answer"] else other_col for o in opts],
                    text=[str(s["counts"][o]) for o in opts], textposition="outside", hoverinfo="x+y")
        fig.update_layout(xaxis_title="prediction (green: the right answer)", yaxis_title="students")
        if mine is not None and mine in opts:
            fig.add_annotation(x=mine, y=0, text="you", showarrow=True, arrowhead=2, ay=30, yanchor="top",
                               font={"color": mine_col})
    else:
        nums = np.asarray(s["numbers"], dtype=float)
        ans = float(rev["answer"])
        rtol = float(rev.get("rtol", 0.1))
        log = use_log_axis(nums, ans)
        tr = np.log10 if log else (lambda v: v)
        lo_band, hi_band = ans - rtol * max(abs(ans), 1e-12), ans + rtol * max(abs(ans), 1e-12)
        if nums.size:
            t = tr(nums)
            lo, hi = float(min(t.min(), tr(ans))), float(max(t.max(), tr(ans)))
            if hi - lo < 1e-12 * max(1.0, abs(hi)):
                lo, hi = lo - 0.5 * max(abs(lo), 1e-3) * 0.2, hi + 0.5 * max(abs(hi), 1e-3) * 0.2
            bins = int(min(30, max(5, math.ceil(math.sqrt(nums.size) * 2))))
            counts, edges = np.histogram(t, bins=bins, range=(lo, hi))
            centers = (edges[:-1] + edges[1:]) / 2
            labels = [f"{_fmt(10 ** a if log else a)} to {_fmt(10 ** b if log else b)}"
                      for a, b in zip(edges[:-1], edges[1:])]
            # plain lists, not arrays: the cached dict of the figure keeps numbers, not Plotly's base64 array specs
            fig.add_bar(x=centers.tolist(), y=counts.tolist(), width=(np.diff(edges) * 0.95).tolist(),
                        marker_color=other_col,
                        customdata=labels, hovertemplate="%{customdata}: %{y} students<extra></extra>")
        band = (tr(max(lo_band, 1e-300)) if log else lo_band, tr(hi_band) if log else hi_band)
        fig.add_vrect(x0=band[0], x1=band[1], fillcolor=right_col, opacity=0.15, line_width=0)
        fig.add_vline(x=float(tr(ans)), line_color=right_col, line_width=3,
                      annotation_text=f"right answer {rev.get('shown') or _fmt(ans)}",
                      annotation_position="top", annotation_font_color=right_col)
        if mine is not None:
            try:
                m = float(mine)
                if not log or m > 0:
                    fig.add_vline(x=float(tr(m)), line_color=mine_col, line_dash="dash", line_width=2,
                                  annotation_text="you", annotation_position="bottom right",
                                  annotation_font_color=mine_col)
            except ValueError:
                pass
        if log:
            xs = list(tr(nums)) + [tr(ans)]
            ks = range(math.floor(min(xs)), math.ceil(max(xs)) + 1)
            fig.update_xaxes(tickvals=list(ks), ticktext=[f"1e{k}" if abs(k) > 3 else _fmt(10.0 ** k) for k in ks],
                             title="prediction (log scale)")
        else:
            fig.update_xaxes(title="prediction")
        fig.update_layout(yaxis_title="students", bargap=0.05)
    fig.update_layout(showlegend=False, margin={"l": 40, "r": 10, "t": 40, "b": 40}, height=320)
    return fig


def qr_png(text: str, scale: int = 8) -> bytes:
    """The QR code of ``text`` (a join link) as PNG bytes, drawn locally by ``segno`` (no network service)."""
    import segno

    if not isinstance(text, str) or not text or len(text) > 1000:
        raise ValueError("a QR code needs a link of 1 to 1000 characters")
    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=int(scale), border=2)
    return buf.getvalue()
