r"""The handouts of a lesson: one offline HTML page (:func:`lesson_html`; formulas as MathML, numbers and charts
computed now) and a Jupyter notebook, exercise or solution version, that recomputes every number with dpviz
(:func:`lesson_notebook`, written out by :func:`dumps_notebook`).

Imports :mod:`.model`, :mod:`.views`, :mod:`.solvers` and :mod:`.content`.
"""

from __future__ import annotations

import html
import inspect
import math

from dpviz_ui.lessons.content import get_lesson
from dpviz_ui.lessons.model import step_state
from dpviz_ui.lessons.solvers import SOLVERS, answer
from dpviz_ui.lessons.views import live


def _md_html(text: str) -> str:
    """Lesson text (authored here, never user input) as HTML: escaped, **bold**, $math$ as MathML."""
    from dpviz.foundation import mathml

    return mathml.text_html(text)


def _num_html(x) -> str:
    if isinstance(x, float) and math.isfinite(x):
        return f"{x:.4g}"
    return html.escape(str(x))


def lesson_html(lesson_id: str, *, figures: bool = True) -> str:
    """One offline HTML file of a lesson: text, formulas (MathML, which the browser renders with no script; the
    LaTeX source kept with each), numbers, answers and charts (plotly.js embedded once), every number computed now
    by :func:`live` and the solvers at each step's default state."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from dpviz.foundation.mathml import math_html

    lesson = get_lesson(lesson_id)
    parts = [f"<h1>{html.escape(lesson.title)}</h1>", "<p><b>After this lesson you can:</b></p><ul>"]
    parts += [f"<li>{html.escape(o)}</li>" for o in lesson.objectives] + ["</ul>"]
    first_fig = True
    for i, step in enumerate(lesson.steps, 1):
        state = step_state(step)
        res = live(step.view, state, figure=figures, animate=step.animate)
        parts.append(f"<h2>Step {i}. {html.escape(step.title)}</h2><p>{_md_html(step.text)}</p>")
        parts.append("<table>" + "".join(f"<tr><td>{html.escape(str(k))}</td><td>{_num_html(v)}</td></tr>"
                                         for k, v in res["numbers"]) + "</table>")
        if res["status"]:
            parts.append(f"<p class='{res['status'][0]}'>{html.escape(res['status'][1])}</p>")
        if res["tex"]:
            parts.append(f"<div class='formula'>{math_html(res['tex'], display=True)}</div>")
        if res["figure"] is not None:
            parts.append(pio.to_html(go.Figure(res["figure"]), include_plotlyjs=first_fig, full_html=False))
            first_fig = False
        if step.question:
            rev = answer(step, state, res["values"])
            parts.append(f"<div class='q'><p><b>Predict:</b> {_md_html(step.question.prompt)}</p>"
                         f"<details><summary>Reveal</summary><p><b>Answer: {_num_html(rev['answer'])}</b>. "
                         f"{html.escape(rev['text'])}</p><div class='formula'>{math_html(rev['tex'], display=True)}</div>"
                         "</details></div>")
    from dpviz import __version__

    style = ("body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em;line-height:1.45}"
             "td{padding:2px 12px;border-bottom:1px solid #ddd}.error{color:#a00}.success{color:#070}"
             ".formula{overflow-x:auto;padding:4px 0}math[display=block]{margin:.3em 0}"
             # fonts with an OpenType MATH table, where installed (stretchy brackets, radicals); else the browser's
             "math{font-size:1.1em;font-family:'STIX Two Math','Latin Modern Math','Cambria Math',"
             "'DejaVu Math TeX Gyre',math}"
             ".tex-fallback{background:#fff4e5;border:1px dashed #c60;padding:1px 4px;white-space:pre-wrap}"
             ".q{border-left:4px solid #48c;padding-left:10px}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(lesson.title)}</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}<hr><p><small>dpviz {__version__}; formulas are "
            "MathML, drawn by the browser with nothing loaded (copying a formula copies its LaTeX source); every "
            "number was computed by dpviz when this file was written.</small></p>"
            f"<script>{_COPY_TEX_JS}</script></body></html>")


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


def html_job(lesson_id: str, progress=None, cancel=None) -> str:
    """:func:`lesson_html` for the worker pool (the page's "prepare the handout" button)."""
    return lesson_html(lesson_id)


def _solver_source(name: str) -> str:
    return inspect.getsource(SOLVERS[name])


def lesson_notebook(lesson_id: str, *, solutions: bool):
    """A Jupyter notebook (nbformat v4) of a lesson that recomputes every number with dpviz.

    Each step: its text, a code cell computing the step's numbers with ``dpviz_ui.lessons.live`` at the step's state
    (printed as ``NUMBERS {json}``), and for a question a prediction cell and an answer cell: in the exercise
    version the answer is left to compute (``answer = None``), in the solution version the solver's own source is
    given and run (printed as ``ANSWER {json}``)."""
    import nbformat
    from nbformat import v4

    lesson = get_lesson(lesson_id)
    cells = [v4.new_markdown_cell(f"# {lesson.title}\n\n" + ("**Solutions.**" if solutions else "**Exercises**: "
                                  "fill in the cells marked `# your turn`.") + "\n\nAfter this lesson you can:\n"
                                  + "\n".join(f"- {o}" for o in lesson.objectives)),
             v4.new_code_cell("import json\nfrom dpviz_ui import lessons\nfrom dpviz.theory import catalog, gaussian\n"
                              "from dpviz.labs import audit\n"
                              "# helpers the solutions use: the view's parameters, formatting, feasibility search\n"
                              "from dpviz_ui.lessons import params_of, _only, _fmt, _txt, _LE, _cal_noise, _ratio_of, "
                              "_smallest_feasible_eps\n"
                              f"LESSON = lessons.get_lesson({lesson_id!r})")]
    for i, step in enumerate(lesson.steps, 1):
        state = {k: v for k, v in step.state.items()}
        cells.append(v4.new_markdown_cell(f"## Step {i}. {step.title}\n\n{step.text}"))
        cells.append(v4.new_code_cell(
            f"step = LESSON.steps[{i - 1}]\nstate = lessons.step_state(step, {state!r})\n"
            f"view = lessons.live({step.view!r}, state, figure=False)\n"
            "for label, value in view['numbers']:\n    print(f'{label}: {value}')\n"
            "print('NUMBERS', json.dumps(view['values'], default=str))"))
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
                    "print('Answer:', answer, '-', rev['text'])\nprint('ANSWER', json.dumps(answer))"))
            else:
                cells.append(v4.new_code_cell(
                    "answer = None  # your turn: compute it with dpviz (catalog.calibrate, catalog.bound, gaussian,\n"
                    "#                audit ...) at `state`; lessons.params_of(state) gives n, eps, delta, ...\n"
                    "if answer is not None and prediction is not None:\n"
                    "    print('your prediction:', prediction, ' computed:', answer)"))
    nb = v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                               "language": "python"}})
    nbformat.validate(nb)
    return nb


def dumps_notebook(nb) -> str:
    import nbformat

    return nbformat.writes(nb)
