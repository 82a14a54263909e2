"""Nothing is revealed early (issue 30): every question step of every lesson is opened with AppTest, and before the
question is answered nothing on screen -- metric labels and values, captions, alerts, formulas, the solver's words,
the chart's title, axes, legend, annotations and slider labels, the URL -- shows the answer printed at 3 or 4
significant digits (or as the page prints it); after "Reveal" the answer is there.

Answers that print as one significant digit ("2", "0.5") are common digits of formulas (the 2 of √(2 ln(1.25/δ)),
the μ = 0.5 of a step's settings, the step number in the URL): for them the formulas, the legend's formulas and the
lesson's own les_* link entries are left out of the search (the lesson's author wrote those, not the computation);
metrics, captions, alerts, the chart's titles and the link's inputs are still searched.  A chart's tick labels are
never searched (the axis's round numbers).  A
choice question's answer is a word ("yes", "below"), so for those the test checks that the step holds back every
number it declared as giving the answer away (``Question.shown``), that no verdict box is on screen, and that the
answer is there after the reveal.
"""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import helpers as ui
from dpviz_ui import lessons as L

APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"
QUESTIONS = [(lesson.id, k) for lesson in L.LESSONS for k, s in enumerate(lesson.steps, 1) if s.question]


def _figure_text(spec: dict, legend: bool = True) -> list[str]:
    """The words a chart shows: title, axis titles, annotations, buttons and sliders, and (``legend``) the trace
    names.  Tick labels are left out: they are the axis's round numbers (1, 2, 5, 10, ...), not computed values."""
    lay = spec.get("layout", {})
    out = []

    def title(x):
        return (x or {}).get("text", "") if isinstance(x, dict) else str(x or "")

    out.append(title(lay.get("title")))
    for key, val in lay.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(val, dict):
            out.append(title(val.get("title")))
    if legend:
        out += [str(tr.get("name", "")) for tr in spec.get("data", [])]
    out += [str(tr.get("text", "")) for tr in spec.get("data", []) if isinstance(tr.get("text"), str)]
    out += [str(a.get("text", "")) for a in lay.get("annotations", [])]
    for menu in lay.get("updatemenus", []):
        out += [str(b.get("label", "")) for b in menu.get("buttons", [])]
    for slider in lay.get("sliders", []):
        out.append(str((slider.get("currentvalue") or {}).get("prefix", "")))
        out += [str(s.get("label", "")) for s in slider.get("steps", [])]
    return [t for t in out if t]


def _screen(at, step) -> dict[str, list[str]]:
    """What is on screen, by kind (the step's own text and prompt, written by the lesson's author, apart)."""
    authored = {step.text, f"**Predict, then reveal.** {step.question.prompt}"}
    return {
        "metric": [f"{m.label} {m.value}" for m in at.metric],
        "alert": [e.value for kind in ("success", "info", "warning", "error") for e in at.get(kind)],
        "caption": [c.value for c in at.caption],
        "chart": [t for c in at.get("plotly_chart") for t in _figure_text(json.loads(c.proto.spec), legend=False)],
        "legend": [t for c in at.get("plotly_chart") for t in _figure_text(json.loads(c.proto.spec))],
        "url": [f"{k}={v}" for k, v in at.query_params.items()],
        "url_values": [f"{k}={v}" for k, v in at.query_params.items() if not k.startswith("les_")],
        "latex": [x.value for x in at.latex],
        "markdown": [m.value for m in at.markdown if m.value not in authored],
    }


def _forms(answer: float) -> set[str]:
    forms = {f"{answer:.3g}", f"{answer:.4g}", ui.fmt(answer)}
    return forms | {f.replace("-", "−") for f in forms} | {f.replace("−", "-") for f in forms}


def _short(answer: float) -> bool:
    """An answer printed with one significant digit (2, 0.5, 1e+04)."""
    return len(re.sub(r"e[+-]\d+$", "", f"{answer:.3g}").replace("-", "").replace("0.", "").replace(".", "")) <= 1


def _found(forms, texts) -> list[str]:
    pats = [re.compile(r"(?<![\d.])" + re.escape(f) + r"(?!\d|\.\d)") for f in forms]
    return [t for t in texts if any(p.search(t) for p in pats)]


def _open(lesson_id: str, k: int) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.query_params["les_id"] = lesson_id
    at.query_params["les_step"] = str(k)
    at.run()
    at.switch_page("pages/lessons.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lesson_id,k", QUESTIONS)
def test_no_answer_on_screen_before_the_reveal(lesson_id, k):
    step = L.get_lesson(lesson_id).steps[k - 1]
    q = step.question
    at = _open(lesson_id, k)
    assert at.header[0].value.startswith(f"{k}. ")
    state = L.step_state(step)
    out = L.live(step.view, state, figure=False)
    answer = L.answer(step, state, out["values"])["answer"]
    before = _screen(at, step)
    assert not at.error, [e.value for e in at.error]
    assert not any("answer is" in a.lower() or a.startswith(("Answer", "Right", "Not quite")) for a in before["alert"])
    # the numbers on screen are only those the question lets through (and the held part is said to come later)
    held = [label for label, _v in out["numbers"] if label not in q.shown and label not in step.hide]
    on_screen = [m.label for m in at.metric]
    assert not set(on_screen) & set(held), (on_screen, held)
    if held:
        assert any("appear with the answer" in c for c in before["caption"])
    if q.kind == "number":
        kinds = ("metric", "alert", "caption", "chart", "url_values") if _short(answer) else (
            "metric", "alert", "caption", "legend", "url", "latex", "markdown")
        leaks = _found(_forms(answer), [t for kind in kinds for t in before[kind]])
        assert not leaks, f"{lesson_id} step {k}: the answer {answer:.4g} is on screen before the reveal: {leaks}"
    else:  # a verdict box would give the choice away (every step's status is held back or says nothing of it)
        if "status" not in q.shown:
            assert not before["alert"], before["alert"]

    at.button(key=f"les_q_{lesson_id}_{k}_reveal").click().run()
    assert not at.exception, [e.value for e in at.exception]
    after = _screen(at, step)
    if q.kind == "number":
        assert _found(_forms(answer), after["alert"]), (answer, after["alert"])
    else:
        assert any(f"**{answer}**" in a or answer in a for a in after["alert"]), (answer, after["alert"])
    # after the answer, every number of the step is on screen (the first five as metrics, the rest in a caption)
    shown = {m.label for m in at.metric} | {c for c in after["caption"]}
    for label, _v in out["numbers"]:
        if label not in step.hide:
            assert label in shown or any(label in c for c in after["caption"]), label


def test_an_answer_given_reveals_and_a_step_opens_unanswered():
    """A prediction entered (a number, or a choice picked) reveals, as Reveal does; Next and Back open a step with its
    question unanswered and its numbers held back again."""
    at = _open("gaussian", 4)
    assert "exact σ" not in {m.label for m in at.metric}
    at.text_input(key="les_q_gaussian_4_pred").input("0.8").run()
    assert any("the answer is" in a.value for a in at.get("success")), [a.value for a in at.get("success")]
    assert "exact σ" in {m.label for m in at.metric}
    at.text_input(key="les_q_gaussian_4_pred").input("not a number").run()  # an unreadable number: still revealed
    at.button(key="les_next").click().run()
    at.button(key="les_next").click().run()  # step 6: a choice
    assert at.header[0].value.startswith("6. ")
    assert "true δ of the classical σ" not in {m.label for m in at.metric} and not at.get("success")
    at.radio(key="les_q_gaussian_6_pred").set_value("yes").run()
    assert any("the answer is" in a.value for a in at.get("success"))
    at.button(key="les_back").click().run()
    at.button(key="les_back").click().run()
    assert at.header[0].value.startswith("4. ")
    assert "exact σ" not in {m.label for m in at.metric}


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_every_shown_and_hidden_name_exists(lesson_id):
    """A misspelt label in ``Question.shown`` or ``Step.hide`` would silently hold back (or fail to hold back) a
    number: every name is a part of the screen or a label of the step's numbers (quick steps, computed here)."""
    for k, step in enumerate(L.get_lesson(lesson_id).steps, 1):
        names = set(step.hide) | set(step.question.shown if step.question else ())
        if step.view in L.HEAVY or not names:
            continue
        labels = {label for label, _v in L.live(step.view, L.step_state(step), figure=False)["numbers"]}
        assert names <= labels | set(L.PARTS), (lesson_id, k, names - labels - set(L.PARTS))
