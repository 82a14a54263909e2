r"""The handouts of a lesson: one offline HTML page (:func:`lesson_html`; formulas as MathML, numbers and charts
computed now) and a Jupyter notebook, exercise or solution version, that recomputes every number with dpviz
(:func:`lesson_notebook`, written out by :func:`dumps_notebook`).

Imports :mod:`.model`, :mod:`.views`, :mod:`.solvers` and :mod:`.content`.
"""

from __future__ import annotations

import functools
import html
import inspect
import math
import re
from pathlib import Path

from dpviz.foundation.mathml import tex_sci

from dpviz_ui.lessons.content import get_lesson
from dpviz_ui.lessons.model import on_screen, step_state
from dpviz_ui.lessons.solvers import SOLVERS, answer
from dpviz_ui.lessons.views import live


def _md_html(text: str) -> str:
    """Lesson text (authored here, never user input) as HTML: escaped, **bold**, $math$ as MathML."""
    from dpviz.foundation import mathml

    return mathml.text_html(text)


def _num_html(x) -> str:
    """A number of the handout: 4 significant digits, powers of ten as 10⁻⁶; a missing one in words (never "None",
    "nan" or "inf")."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "none (not defined at these settings)"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return html.escape(str(x))
    if not math.isfinite(x):
        return "∞" if x > 0 else "−∞"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5) and not (isinstance(x, int) and abs(x) < 1e7):
        k = math.floor(math.log10(abs(x)))
        m = x / 10.0**k
        return (f"10<sup>{k}</sup>" if abs(m - 1) < 5e-4 else f"{m:.4g}·10<sup>{k}</sup>").replace("-", "−")
    return f"{x:.4g}"


#: plotly.js's "basic" bundle (scatter, bar and pie traces; 1.2 MB, MIT licence, from the npm package
#: plotly.js-basic-dist-min of the version the plotly package ships): the handout embeds it once, so that a file
#: stays under 1.5 MB; the full bundle (4.8 MB) only when the basic one is missing from the installation
_PLOTLY_BASIC = Path(__file__).with_name("plotly-basic.min.js")


def _plotly_js() -> str:
    if _PLOTLY_BASIC.exists():
        return _PLOTLY_BASIC.read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@functools.lru_cache(maxsize=1)
def _look() -> dict:
    """The default look of a chart (plotly's template, its layout part only: the per-trace defaults add a few kB a
    chart)."""
    import plotly.io as pio

    return {"layout": pio.templates["plotly"].layout.to_plotly_json()}


def _still(fig: dict) -> dict:
    """A chart as the handout draws it (a plain dict, not validated again): still (no animation frames, Play buttons
    or slider: a page on paper or a screen at the step's own settings) and with basic traces only (a histogram as
    the bars of its counts)."""
    import numpy as np

    layout = {k: v for k, v in (fig.get("layout") or {}).items() if k not in ("updatemenus", "sliders", "template")}
    layout["template"] = _look()
    layout["height"] = min(int(layout.get("height") or 420), 420)
    if isinstance(layout.get("margin"), dict) and "b" in layout["margin"]:
        layout["margin"] = {**layout["margin"], "b": 60}
    data = []
    for tr in fig.get("data") or []:
        if tr.get("type") == "histogram":
            x = _array(tr.get("x"))
            x = x[np.isfinite(x)]
            counts, edges = np.histogram(x, bins=int(tr.get("nbinsx") or 50)) if x.size else (np.zeros(0),
                                                                                             np.zeros(1))
            tr = {k: v for k, v in {"type": "bar", "x": ((edges[:-1] + edges[1:]) / 2).tolist(),
                                    "y": np.asarray(counts).tolist(), "width": np.diff(edges).tolist(),
                                    "name": tr.get("name"), "opacity": tr.get("opacity"),
                                    "marker": tr.get("marker")}.items() if v is not None}
            layout.update(barmode="overlay", bargap=0)
        data.append(tr)
    return {"data": data, "layout": layout}


def _array(x):
    """A trace's coordinates as a float array (plotly's JSON writes numpy arrays as base64 ``bdata``)."""
    import base64

    import numpy as np

    if x is None:
        return np.zeros(0)
    if isinstance(x, dict) and "bdata" in x:
        return np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]).astype(float).ravel()
    return np.asarray(x, dtype=float).ravel()


def _chart_html(fig: dict, div_id: str) -> str:
    """A chart's ``<div>`` and the call that draws it (plotly.js is in the page once)."""
    from plotly.io.json import to_json_plotly

    f = _still(fig)

    def js(obj) -> str:  # JSON inside a script: "</" cannot close it
        return to_json_plotly(obj).replace("</", "<\\/")

    return (f'<div id="{div_id}" class="plotly-graph-div" style="height:{f["layout"]["height"]}px;width:100%">'
            f'</div><script>Plotly.newPlot("{div_id}", {js(f["data"])}, {js(f["layout"])}, '
            '{"displaylogo": false, "responsive": true});</script>')


def _view_html(view: dict, chart_id: str | None) -> list[str]:
    """The parts of a step's view (:func:`~dpviz_ui.lessons.model.on_screen`) as HTML: numbers, verdict, formula,
    notes, chart."""
    from dpviz.foundation.mathml import math_html

    out = []
    if view["numbers"]:
        out.append("<table>" + "".join(f"<tr><td>{html.escape(str(k))}</td><td>{_num_html(v)}</td></tr>"
                                       for k, v in view["numbers"]) + "</table>")
    if view.get("status"):
        out.append(f"<p class='{view['status'][0]}'>{html.escape(_pretty(view['status'][1]))}</p>")
    if view.get("tex"):
        out.append(f"<div class='formula'>{math_html(tex_sci(view['tex']), display=True)}</div>")
    out += [f"<p class='note'>{html.escape(_pretty(n))}</p>" for n in view.get("notes") or []]
    if chart_id and view.get("chart") and view.get("figure") is not None:
        out.append(_chart_html(view["figure"], chart_id))
    return out


def lesson_html(lesson_id: str, *, figures: bool = True, computed: dict | None = None) -> str:
    """One offline HTML file of a lesson: text, formulas (MathML, which the browser renders with no script; the
    LaTeX source kept with each), numbers, answers and charts (plotly.js's basic bundle embedded once, each chart
    still, at the step's settings), every number computed now by :func:`live` and the solvers at each step's
    default state.  Each question's answer is folded away (``<details>``).  ``computed`` maps a step's number
    (1-based) to a :func:`live` result already computed at that step's default state (the page passes the
    simulations and audits its session has run, so that the handout does not run them again)."""
    from dpviz.foundation.mathml import math_html

    lesson = get_lesson(lesson_id)
    parts = [f"<h1>{html.escape(lesson.title)}</h1>", "<p><b>After this lesson you can:</b></p><ul>"]
    parts += [f"<li>{html.escape(o)}</li>" for o in lesson.objectives] + ["</ul>"]
    for i, step in enumerate(lesson.steps, 1):
        state = step_state(step)
        res = (computed or {}).get(i) or live(step.view, state, figure=figures)
        parts.append(f"<h2>Step {i}. {html.escape(step.title)}</h2><p>{_md_html(step.text)}</p>")
        # as on the page: before a question only what cannot give its answer away; the rest with the answer
        before = on_screen(step, res, answered=False)
        after = on_screen(step, res, answered=True)
        shown_labels = {label for label, _v in before["numbers"]}
        parts += _view_html(before, f"chart{i}" if figures else None)
        if step.question:
            rev = answer(step, state, res["values"])
            rest = {**after, "numbers": [(k, v) for k, v in after["numbers"] if k not in shown_labels],
                    "status": after["status"] if not before["status"] else None,
                    "tex": after["tex"] if not before["tex"] else "",
                    "notes": after["notes"] if not before["notes"] else [],
                    "chart": after["chart"] and not before["chart"]}
            parts.append(f"<div class='q'><p><b>Predict:</b> {_md_html(step.question.prompt)}</p>"
                         f"<details><summary>Reveal</summary><p><b>Answer: {_num_html(rev['answer'])}</b>. "
                         f"{html.escape(_pretty(rev['text']))}</p><div class='formula'>"
                         f"{math_html(tex_sci(rev['tex']), display=True)}</div>"
                         + "".join(_view_html(rest, f"chart{i}r" if figures else None)) + "</details></div>")
    charts = sum(1 for p in parts if "Plotly.newPlot" in p)
    from dpviz import __version__

    style = ("body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em;line-height:1.45}"
             "td{padding:2px 12px;border-bottom:1px solid #ddd}.error{color:#a00}.success{color:#070}"
             ".warning{color:#850}.note{color:#555;font-size:.92em}"
             # a long formula wraps at its operators on screen and in print, instead of being cut at the margin
             ".formula{overflow-x:auto;padding:4px 0}math[display=block]{margin:.3em 0;overflow-wrap:anywhere}"
             "@media print{.formula{overflow:visible}math{font-size:.95em}}"
             # fonts with an OpenType MATH table, where installed (stretchy brackets, radicals); else the browser's
             "math{font-size:1.1em;font-family:'STIX Two Math','Latin Modern Math','Cambria Math',"
             "'DejaVu Math TeX Gyre',math}"
             ".tex-fallback{background:#fff4e5;border:1px dashed #c60;padding:1px 4px;white-space:pre-wrap}"
             ".q{border-left:4px solid #48c;padding-left:10px}")
    script = f"<script>{_plotly_js()}</script>" if charts else ""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(lesson.title)}</title>"
            f"<style>{style}</style>{script}</head><body>{''.join(parts)}<hr><p><small>dpviz {__version__}; formulas "
            "are MathML, drawn by the browser with nothing loaded (copying a formula copies its LaTeX source); every "
            "number was computed by dpviz when this file was written; charts by plotly.js (basic bundle, MIT "
            "licence), included once in this file.</small></p>"
            f"<script>{_COPY_TEX_JS}{_DETAILS_JS}</script></body></html>")


_GREEK = {"sigma": "σ", "lambda": "λ", "beta": "β", "epsilon": "ε", "eps": "ε", "delta": "δ", "eta": "η",
          "alpha": "α", "kappa": "κ", "gamma": "γ", "zeta": "ζ", "mu": "μ"}
_GREEK_RE = re.compile(r"(?<![\\a-zA-Z])(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![a-zA-Z])")
_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _pretty(text: str) -> str:
    """A library note in the papers' notation, as the page writes it (``dpviz_ui.helpers.pretty``, which this
    module cannot import: it imports streamlit): σ for sigma, σ² for sigma^2, 10⁻⁶ for 1e-06."""
    from dpviz.foundation.mathml import _SCI

    out = _GREEK_RE.sub(lambda m: _GREEK[m.group(1)], str(text)).replace("^2", "²")

    def rep(m):
        power = "10" + (("-" if m.group(2) == "-" else "") + str(int(m.group(3)))).translate(_SUP)
        return power if float(m.group(1)) == 1.0 else f"{m.group(1)}·{power}"

    return _SCI.sub(rep, out)


#: a constant script of the handout: copying a selection that holds formulas puts their LaTeX source ($…$) on the
#: clipboard in place of the MathML's text
_COPY_TEX_JS = (
    "document.addEventListener('copy',function(e){var s=window.getSelection();if(!s||!s.rangeCount)return;"
    "var f=s.getRangeAt(0).cloneContents();var m=f.querySelectorAll('math');"
    "var a=s.anchorNode&&s.anchorNode.parentElement&&s.anchorNode.parentElement.closest('math');"
    "if(!m.length&&!a)return;"
    "if(!m.length){e.clipboardData.setData('text/plain',a.getAttribute('alttext')||'');e.preventDefault();return;}"
    "m.forEach(function(x){var t=x.getAttribute('alttext')||'';"
    "x.replaceWith(document.createTextNode(x.getAttribute('display')==='block'?'$$'+t+'$$':'$'+t+'$'));});"
    "var d=document.createElement('div');d.appendChild(f);"
    "e.clipboardData.setData('text/plain',d.textContent);e.preventDefault();});")


#: a constant script of the handout: a chart inside a folded answer is laid out again when the answer is unfolded
#: (drawn while hidden, it has no width)
_DETAILS_JS = ("document.querySelectorAll('details').forEach(function(d){d.addEventListener('toggle',function(){"
               "if(d.open&&window.Plotly){d.querySelectorAll('.plotly-graph-div').forEach(function(g){"
               "Plotly.Plots.resize(g);});}});});")


def html_job(lesson_id: str, computed: dict | None = None, progress=None, cancel=None) -> str:
    """:func:`lesson_html` for the worker pool (the page's "prepare the handout" button)."""
    return lesson_html(lesson_id, computed=computed)


def _solver_source(name: str) -> str:
    return inspect.getsource(SOLVERS[name])


def lesson_notebook(lesson_id: str, *, solutions: bool):
    """A Jupyter notebook (nbformat v4) of a lesson that recomputes every number with dpviz.

    The first cell imports dpviz (and says how to install it when it is missing).  Each step: its text, a code cell
    computing the step's numbers with ``dpviz_ui.lessons.live`` at the step's state (printed ``label: value``, 4
    significant digits), and for a question a prediction cell and an answer cell: in the exercise version the
    answer is left to compute (``answer = None``), in the solution version the solver's own source is given and run
    (printed ``Answer: value - explanation``).  The code uses public names only (none starting with "_")."""
    import nbformat
    from nbformat import v4

    lesson = get_lesson(lesson_id)
    cells = [v4.new_markdown_cell(f"# {lesson.title}\n\n" + ("**Solutions.**" if solutions else "**Exercises**: "
                                  "fill in the cells marked `# your turn`.") + "\n\nAfter this lesson you can:\n"
                                  + "\n".join(f"- {o}" for o in lesson.objectives)),
             v4.new_code_cell(_FIRST_CELL + f"LESSON = lessons.get_lesson({lesson_id!r})")]
    for i, step in enumerate(lesson.steps, 1):
        state = {k: v for k, v in step.state.items()}
        cells.append(v4.new_markdown_cell(f"## Step {i}. {step.title}\n\n{step.text}"))
        cells.append(v4.new_code_cell(
            f"step = LESSON.steps[{i - 1}]\nstate = lessons.step_state(step, {state!r})\n"
            f"view = lessons.live({step.view!r}, state, figure=False)\n"
            # the exercise version holds back what gives the question's answer away, as the page does
            f"for label, value in lessons.on_screen(step, view, answered={solutions})['numbers']:\n"
            "    print(f'{label}: {lessons.number_text(value)}')"))
        if step.question:
            q = step.question
            opts = f" (one of: {', '.join(q.options)})" if q.kind == "choice" else ""
            cells.append(v4.new_markdown_cell(f"**Predict, then compute.** {q.prompt}{opts}"))
            cells.append(v4.new_code_cell("prediction = None  # your turn: write your prediction before computing"))
            if solutions:
                src = _solver_source(q.solver)
                fname = SOLVERS[q.solver].__name__
                cells.append(v4.new_code_cell(
                    f"{src}\nrev = {fname}(state, view['values'])\nanswer = rev['answer']\n"
                    "print('Answer:', lessons.number_text(answer), '-', rev['text'])"))
            else:
                cells.append(v4.new_code_cell(
                    "answer = None  # your turn: compute it with dpviz (catalog.calibrate, catalog.bound, gaussian,\n"
                    "#                audit ...) at `state`; lessons.params_of(state) gives n, eps, delta, ...\n"
                    "if answer is not None and prediction is not None:\n"
                    "    print('your prediction:', prediction, ' computed:', lessons.number_text(answer))"))
    nb = v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                               "language": "python"}})
    nbformat.validate(nb)
    return nb


#: the first code cell of a notebook: dpviz, or a message saying how to install it
_FIRST_CELL = (
    "try:\n"
    "    import dpviz\n"
    "    from dpviz_ui import lessons\n"
    "except ImportError as exc:\n"
    "    raise ImportError(\n"
    "        'This notebook needs dpviz, which is not installed in this Python. From the dpviz source folder run '\n"
    "        '`pip install -e .` (or `make install`) in a terminal, then restart the kernel and run this cell again.'\n"
    "    ) from exc\n"
    "from dpviz.theory import catalog, gaussian\n"
    "from dpviz.labs import canary_audit\n"
    "# helpers the solutions use (public names of dpviz_ui.lessons): the view's parameters, number formatting,\n"
    "# the calibrated noise and its feasibility search, the fixed-β comparisons of line 5\n"
    "from dpviz_ui.lessons import (LE, calibrated_noise, fixed_beta_change, fixed_beta_text, number_text,\n"
    "                              only_params, params_of, ratio_of, smallest_feasible_eps, tex_number)\n"
    "print('dpviz', dpviz.__version__)\n")


def dumps_notebook(nb) -> str:
    import nbformat

    return nbformat.writes(nb)
