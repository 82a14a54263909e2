"""Lesson handouts (issues 23 and 30): the Jupyter notebooks (exercise and solution versions) are executed with
nbclient from a fresh kernel and the numbers they print (4 significant digits) compared with the lesson's; they use
dpviz's public names only and their first cell says how to install dpviz when it is missing."""

import ast
import re

import pytest

from dpviz_ui import lessons as L

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def _run(nb):
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute()
    return nb


def _printed(cell) -> list[str]:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])).splitlines()


def _step_cells(nb, lesson):
    """For each step, the output lines of its numbers cell and (for a question) of its answer cell."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    out, i = [], 1  # code[0] is the imports
    for step in lesson.steps:
        numbers = _printed(code[i])
        i += 1
        answer = None
        if step.question:
            i += 1  # the prediction cell
            answer = _printed(code[i])
            i += 1
        out.append((numbers, answer))
    return out


def _names(src: str) -> set[str]:
    """Every name a piece of code uses or imports (identifiers, attributes, imported names)."""
    tree = ast.parse(src)
    got = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            got.add(node.id)
        elif isinstance(node, ast.Attribute):
            got.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            got |= {a.name.split(".")[-1] for a in node.names}
            if isinstance(node, ast.ImportFrom) and node.module:
                got |= set(node.module.split("."))
    return got


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_notebooks_use_only_public_names_and_say_how_to_install_dpviz(lesson_id):
    for solutions in (False, True):
        nb = L.lesson_notebook(lesson_id, solutions=solutions)
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert code[0].startswith("try:\n    import dpviz\n") and "pip install -e ." in code[0]
        private = {n for src in code for n in _names(src) if n.startswith("_") and not n.startswith("__")}
        assert not private, (lesson_id, solutions, private)


def test_the_first_cell_explains_a_missing_dpviz(tmp_path):
    """Run in a Python where dpviz cannot be imported, the first cell fails with the install message."""
    import subprocess
    import sys

    first = L.lesson_notebook("gaussian", solutions=False).cells[1].source
    (tmp_path / "dpviz.py").write_text("raise ImportError('no dpviz here')\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-c", first], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert res.returncode != 0 and "This notebook needs dpviz" in res.stderr and "pip install -e ." in res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_solution_notebook_recomputes_the_lesson(lesson_id):
    lesson = L.get_lesson(lesson_id)
    nb = _run(L.lesson_notebook(lesson_id, solutions=True))
    for step, (numbers, answer) in zip(lesson.steps, _step_cells(nb, lesson)):
        state = L.step_state(step)
        out = L.live(step.view, state, figure=False)
        want = [f"{label}: {L.number_text(value)}" for label, value in L.on_screen(step, out, True)["numbers"]]
        assert numbers == want, (lesson_id, step.title, numbers, want)
        for line in numbers:  # at most 4 significant digits, never a float's full repr
            for tok in re.findall(r"\d[\d.]*(?:e[+-]\d+)?", line.split(": ", 1)[1]):
                mant = tok.split("e")[0].replace(".", "").lstrip("0").rstrip("0")
                assert len(mant) <= 4, line
        if step.question:
            ans = L.answer(step, state, out["values"])["answer"]
            assert answer and answer[0].startswith(f"Answer: {L.number_text(ans)} - "), (answer, ans)


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", ["gaussian", "audit"])
def test_exercise_notebook_runs_and_leaves_the_answers_to_the_student(lesson_id):
    lesson = L.get_lesson(lesson_id)
    nb = L.lesson_notebook(lesson_id, solutions=False)
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "def solve_" not in src and src.count("answer = None  # your turn") == sum(
        1 for s in lesson.steps if s.question)
    nb = _run(nb)
    cells = _step_cells(nb, lesson)
    for step, (numbers, _a) in zip(lesson.steps, cells):  # what the page shows before the question is answered
        out = L.on_screen(step, L.live(step.view, L.step_state(step), figure=False), False)
        assert numbers == [f"{label}: {L.number_text(value)}" for label, value in out["numbers"]]
    assert not any(line.startswith("Answer:") for _n, a in cells for line in a or [])
