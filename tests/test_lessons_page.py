"""AppTest checks of the Lessons page: the list, the first step of every lesson, hostile links (one notice each, no
traceback), locks, Back/Next and the URL."""

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import helpers as ui
from dpviz_ui import lessons as L

APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/lessons.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_list_shows_every_lesson_with_objectives_and_length():
    at = _open({})
    assert [s.value for s in at.subheader] == [lesson.title for lesson in L.LESSONS]
    captions = " ".join(c.value for c in at.caption)
    for lesson in L.LESSONS:
        assert f"{len(lesson.steps)} steps" in captions and f"about {lesson.minutes} minutes" in captions


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS if lesson.steps[0].view not in L.HEAVY])
def test_first_step_of_every_lesson(lesson_id):
    at = _open({"les_id": lesson_id})
    step = L.get_lesson(lesson_id).steps[0]
    out = L.on_screen(step, L.live(step.view, L.step_state(step), figure=False))
    shown = _metrics(at)
    for label, value in out["numbers"][:5]:
        assert shown[label] == (ui.fmt(value) if not isinstance(value, str) else value)
    assert not at.error


def test_hostile_link_is_listed_and_ignored():
    at = _open({"les_id": "gaussian", "les_step": "abc", "les_lock": "eps,evil", "eps": "1e999"})
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "les_step" in warnings and "evil" in warnings and "1e999" in warnings
    assert "eps must be a number" in warnings
    assert at.header[0].value.startswith("1. ")  # the lesson opens at its first step, defaults used
    assert not at.error


def test_lock_next_back_and_url():
    at = _open({"les_id": "gaussian", "les_step": "2", "les_lock": "eps", "eps": "0.5"})
    box = at.text_input(key="les_in_gaussian_2_eps")
    assert box.disabled and box.value == "0.5"
    step = L.get_lesson("gaussian").steps[1]
    want = L.live(step.view, L.step_state(step, {"eps": 0.5}), figure=False)["numbers"][0]
    assert _metrics(at)[want[0]] == ui.fmt(want[1])
    at.button(key="les_next").click().run()
    assert at.header[0].value.startswith("3. ")
    assert at.query_params["les_step"] == ["3"] or at.query_params["les_step"] == "3"
    at.button(key="les_back").click().run()
    at.button(key="les_back").click().run()
    assert at.header[0].value.startswith("1. ")
    assert at.button(key="les_back").disabled
    # an unlocked input: changed, then the step's own value again with "Reset"; ε stays locked at 0.5 throughout
    assert at.text_input(key="les_in_gaussian_1_eps").disabled
    at.text_input(key="les_in_gaussian_1_G").input("2").run()
    step1 = L.get_lesson("gaussian").steps[0]
    want = L.live(step1.view, L.step_state(step1, {"G": 2.0, "eps": 0.5}), figure=False)["numbers"][0]
    assert _metrics(at)[want[0]] == ui.fmt(want[1])
    at.button(key="les_reset_gaussian_1").click().run()
    want = L.live(step1.view, L.step_state(step1, {"eps": 0.5}), figure=False)["numbers"][0]
    assert _metrics(at)[want[0]] == ui.fmt(want[1])
    assert at.text_input(key="les_in_gaussian_1_G").value == "1"


def test_invalid_input_shows_one_error_and_no_numbers():
    at = _open({"les_id": "gaussian", "les_step": "2"})
    at.text_input(key="les_in_gaussian_2_eps").input("-1").run()
    assert len(at.error) == 1 and "ε" in at.error[0].value and not at.metric
    at.text_input(key="les_in_gaussian_2_eps").input("0.5").run()
    assert at.metric and not at.error


@pytest.mark.parametrize("typed, n", [("6e4", 60000), ("60,000", 60000), ("60 000", 60000), ("2e3", 2000)])
def test_typed_numbers_are_read_like_on_every_page(typed, n):
    # the dpsgd lesson's step 3 has an n box: 6e4 is 60000 (a browser number box read it as 6), and the step's
    # numbers are those of n = 60000
    lesson = L.get_lesson("dpsgd")
    k = next(i for i, s in enumerate(lesson.steps, 1) if "n" in s.inputs)
    step = lesson.steps[k - 1]
    at = _open({"les_id": "dpsgd", "les_step": str(k)})
    at.text_input(key=f"les_in_dpsgd_{k}_n").input(typed).run()
    assert not at.error and not at.exception
    assert at.query_params["n"] in (str(n), [str(n)])
    out = L.live(step.view, L.step_state(step, {"n": n}), figure=False)
    label, value = out["numbers"][0]
    assert _metrics(at)[label] == (ui.fmt(value) if not isinstance(value, str) else value)


@pytest.mark.parametrize("typed, why", [("2.5", "not a whole number"), ("", "empty"), ("abc", "not a number"),
                                        ("1,5", "comma")])
def test_a_bad_number_is_refused_never_truncated(typed, why):
    lesson = L.get_lesson("dpsgd")
    k = next(i for i, s in enumerate(lesson.steps, 1) if "n" in s.inputs)
    at = _open({"les_id": "dpsgd", "les_step": str(k)})
    at.text_input(key=f"les_in_dpsgd_{k}_n").input(typed).run()
    assert len(at.error) == 1
    msg = at.error[0].value.replace("\\", "")  # the page escapes Markdown in the typed text
    assert why in msg and "n: " in msg
    assert not at.metric and not at.exception
    assert at.text_input(key=f"les_in_dpsgd_{k}_n").value == typed  # what was typed stays in the box


def test_home_leads_a_lecturer_to_the_lessons():
    """Home: "Teaching? Start here", a link to the Lessons page and one line per lesson (title, steps, minutes)."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Teaching? Start here" in [s.value for s in at.subheader]
    links = [el for el in at.get("page_link")]
    assert any(el.proto.page == "lessons" for el in links)
    text = " ".join(m.value for m in at.markdown)
    for lesson in L.LESSONS:
        assert f"**{lesson.title}** — {len(lesson.steps)} steps, about {lesson.minutes} minutes" in text


def test_presenter_mode_has_a_copy_link_control():
    at = _open({"les_id": "dpsgd", "les_step": "3", "les_present": "1", "n": "2000"})
    codes = [c.value for c in at.code]
    assert len(codes) == 2, codes
    assert "les_id=dpsgd" in codes[0] and "les_step=3" in codes[0] and "les_present=1" in codes[0]
    assert "n=2000" in codes[0] and "les_present" not in codes[1] and "n=2000" in codes[1]
