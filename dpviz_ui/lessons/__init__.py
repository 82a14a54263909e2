r"""Lessons: guided, live, self-checking walks through the five papers (issue 23).  Pure: no streamlit.

A lesson is plain data: a list of :class:`Step`, each with a short text in the papers' notation, the **view** it
sets (parameters named and checked as in the dashboard's URL schema, :data:`dpviz.foundation.urlstate.SCHEMA`, or the Audit
page's ``aud_*`` schema), the kind of live computation it shows (:data:`VIEWS`), the inputs a student may change,
an optional animated parameter and an optional **predict, then reveal** :class:`Question`.

Nothing in a lesson is a typed number: every number on screen, in a question's answer and in a handout comes from
:func:`live` (the catalogue, the accountants, the simulation engine) or a solver of :data:`SOLVERS` at the step's
state.  :func:`validate_lesson` checks a lesson the way the presets are checked; :func:`lesson_html` and
:func:`lesson_notebook` write the handouts (an offline HTML page; a Jupyter notebook, exercise or solution version,
that recomputes every number with ``dpviz``).

Which file holds what (each imports only the ones above it):

* :mod:`.model` — what a lesson is made of (:class:`Question`, :class:`Step`, :class:`Lesson`, :data:`LESSON_INPUTS`,
  :data:`VIEWS`, :data:`HEAVY`, the animated values), a step's view state (:func:`step_state`, :func:`params_of`),
  number formatting, and the calibrated noise with its feasibility search shared by the views and the solvers;
* :mod:`.curves` — the charts of the curve views (a quantity against one parameter), still or animated
  (:func:`animated_figure`);
* :mod:`.views` — the live computation of each view kind (:func:`live`, :func:`chart`, :data:`LATE_FIGURES`);
* :mod:`.solvers` — the questions' answers (every ``solve_*``, :data:`SOLVERS`, :func:`answer`,
  :func:`check_prediction`);
* :mod:`.content` — the lessons themselves (:data:`LESSONS`), :func:`get_lesson`, :func:`validate_lesson`,
  :func:`validate_all` and the warm-up :func:`precompute`;
* :mod:`.links` — the page's link state (:data:`STATE_SCHEMA`, :func:`state_from_query`, :func:`encode_state`) and
  :func:`page_link` to the dashboard page of a step;
* :mod:`.handout` — the handouts (:func:`lesson_html`, :func:`html_job`, :func:`lesson_notebook`,
  :func:`dumps_notebook`);
* :mod:`.noise_table` — ``python -m dpviz_ui.lessons.noise_table`` writes ``noise_table.json``, the calibrated σ
  at the points the lessons ask for, which :func:`.model.calibrated_noise` reads (handouts in seconds).

Every name of ``__all__`` is importable from this package (``from dpviz_ui import lessons``; ``lessons.live``),
among them the helpers the solution notebooks import (``params_of``, ``only_params``, ``number_text``,
``tex_number``, ``LE``, ``calibrated_noise``, ``ratio_of``, ``smallest_feasible_eps``, ``fixed_beta_change``,
``fixed_beta_text``: public names only); so are ``_validate_entry`` and ``urlstate`` (the Lessons page),
``_FEASIBLE_MEMO`` (the tests) and the older private spellings of the helpers (``_fmt``, ``_txt``, ``_only``, …).
"""

from __future__ import annotations

from dpviz.foundation import urlstate
from dpviz_ui.lessons.model import (_FEASIBLE_MEMO, _LE, FRAME_MS, HEAVY, LESSON_INPUTS, PARTS, VIEWS, Lesson, Question,
                                    Step, _cal_noise, _fmt, _only, _smallest_feasible_eps, _txt, _validate_entry,
                                    animation_values, calibrated_noise, number_text, on_screen, only_params, params_of,
                                    smallest_feasible_eps, step_state, tex_number)
from dpviz_ui.lessons.curves import animated_figure
from dpviz_ui.lessons.views import LATE_FIGURES, chart, live
from dpviz_ui.lessons.solvers import (LE, SOLVERS, answer, check_prediction, fixed_beta_change, fixed_beta_text,
                                      ratio_of)

_ratio_of = ratio_of
from dpviz_ui.lessons.content import LESSONS, get_lesson, precompute, validate_all, validate_lesson
from dpviz_ui.lessons.links import STATE_SCHEMA, encode_state, page_link, state_from_query
from dpviz_ui.lessons.handout import dumps_notebook, html_job, lesson_html, lesson_notebook

__all__ = ["Question", "Step", "Lesson", "LESSONS", "VIEWS", "HEAVY", "SOLVERS", "get_lesson", "validate_lesson",
           "validate_all", "step_state", "params_of", "live", "answer", "check_prediction", "page_link",
           "lesson_html", "lesson_notebook", "STATE_SCHEMA", "state_from_query", "encode_state", "LESSON_INPUTS",
           "animation_values"]
__all__ += ["dumps_notebook", "animated_figure", "html_job", "chart", "LATE_FIGURES", "precompute"]
# what the page and the solution notebooks use (the notebooks use no name that starts with "_")
__all__ += ["PARTS", "on_screen", "number_text", "tex_number", "only_params", "calibrated_noise",
            "smallest_feasible_eps", "ratio_of", "fixed_beta_change", "fixed_beta_text", "LE"]
