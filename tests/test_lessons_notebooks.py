"""Lesson handouts (issue 23): the Jupyter notebooks (exercise and solution versions) are executed with nbclient
and their numbers compared with the lesson's; the offline HTML handout holds every step's numbers and charts."""

import json
import math

import pytest

from dpviz_ui import lessons as L

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def _run(nb):
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute()
    return nb


def _tagged(nb, tag):
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for o in cell.get("outputs", []):
            for line in o.get("text", "").splitlines():
                if line.startswith(tag + " "):
                    out.append(json.loads(line[len(tag) + 1:]))
    return out


def _same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300) or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b or str(a) == str(b)


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_solution_notebook_recomputes_the_lesson(lesson_id):
    lesson = L.get_lesson(lesson_id)
    nb = _run(L.lesson_notebook(lesson_id, solutions=True))
    numbers, answers = _tagged(nb, "NUMBERS"), _tagged(nb, "ANSWER")
    assert len(numbers) == len(lesson.steps)
    assert len(answers) == sum(1 for s in lesson.steps if s.question)
    qi = 0
    for step, got in zip(lesson.steps, numbers):
        state = L.step_state(step)
        want = json.loads(json.dumps(L.live(step.view, state, figure=False)["values"], default=str))
        assert set(got) == set(want)
        for k in want:
            assert _same(got[k], want[k]), (lesson_id, step.title, k, got[k], want[k])
        if step.question:
            ans = L.answer(step, state, L.live(step.view, state, figure=False)["values"])["answer"]
            assert _same(answers[qi], ans), (lesson_id, step.title)
            qi += 1


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", ["gaussian", "audit"])
def test_exercise_notebook_runs_and_leaves_the_answers_to_the_student(lesson_id):
    lesson = L.get_lesson(lesson_id)
    nb = L.lesson_notebook(lesson_id, solutions=False)
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "def solve_" not in src and src.count("answer = None  # your turn") == sum(
        1 for s in lesson.steps if s.question)
    nb = _run(nb)
    assert len(_tagged(nb, "NUMBERS")) == len(lesson.steps) and _tagged(nb, "ANSWER") == []


def test_html_handout_is_offline_and_holds_the_numbers():
    page = L.lesson_html("gaussian")
    import re

    assert page.startswith("<!DOCTYPE html>") and "Plotly.newPlot" in page
    assert not re.search(r"<script[^>]*\bsrc=", page)  # plotly.js is embedded: nothing is loaded from the network
    assert not re.search(r"<link[^>]*\bhref=", page)
    for i, step in enumerate(L.get_lesson("gaussian").steps, 1):
        assert f"Step {i}. " in page
        out = L.live(step.view, L.step_state(step), figure=False)
        for _label, value in out["numbers"]:
            if isinstance(value, float):
                assert f"{value:.4g}" in page
    assert page.count("<details>") == sum(1 for s in L.get_lesson("gaussian").steps if s.question)
