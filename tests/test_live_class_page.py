"""AppTest checks of the Live class page (pages/live_class.py, issue 35): start a class, the presenter's Next / Back /
Reveal / End and their refusal with a wrong or missing key, a student's join, predictions (6e4 and 60,000 read as
60000, nonsense refused and shown as text), the reveal and a student's result, hostile links.  The store is a
temporary SQLite file (DPVIZ_DATA_DIR)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import lessons as L
from dpviz_ui.classroom import store as S

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("DPVIZ_CLASS_DB", raising=False)
    monkeypatch.setenv("DPVIZ_DATA_DIR", str(tmp_path))
    return tmp_path


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/live_class.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "error", "warning", "success", "info", "caption")
                    for e in at.get(kind))


def _q(at, name: str) -> str:
    v = at.query_params[name]
    return v[0] if isinstance(v, list) else v


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_start_a_class_then_move_reveal_and_end():
    at = _open({})
    assert "Join a class" in [s.value for s in at.subheader]
    at.selectbox(key="cls_lesson").select("gaussian").run()
    _button(at, "Start a class").click().run()
    assert not at.exception
    code, key = _q(at, "cls_code"), _q(at, "cls_key")
    store = S.ClassStore()
    cls = store.get(code)
    assert cls.lesson_id == "gaussian" and cls.step == 1 and cls.n_steps == len(L.get_lesson("gaussian").steps)
    assert S.display_code(code) in [t.value for t in at.title]
    assert at.header[0].value == "1. " + L.get_lesson("gaussian").steps[0].title
    for k in (2, 3):
        _button(at, "Next ▶").click().run()
        assert store.get(code).step == k and at.header[0].value.startswith(f"{k}. ")
    _button(at, "◀ Back").click().run()
    assert store.get(code).step == 2
    # a student's prediction, then the reveal
    store.submit(code, 2, "0" * 16, "2.0")
    _button(at, "Reveal").click().run()
    assert not at.exception
    rev = store.get(code).revealed[2]
    assert rev["kind"] == "number" and rev["answer"] == pytest.approx(2.0)  # σ ∝ 1/ε: halving ε doubles σ
    assert "The answer: 2" in _texts(at) and "1 prediction; 1 (100 %) within 5 % of it." in _texts(at)
    _button(at, "End class").click().run()
    assert store.get(code).ended and "This class has ended" in _texts(at)


@pytest.mark.parametrize("key", ["", "wrong", "x" * 300, "<img src=x>"])
def test_wrong_or_missing_presenter_key_is_refused(key):
    code, good = S.ClassStore().create("gaussian", 7)
    at = _open({"cls_code": code, "cls_key": key})
    assert [e.value for e in at.error] == ["This presenter link is not valid for this class (wrong or missing "
                                           "presenter key, or the class expired): nothing was changed."]
    assert not [b for b in at.button if b.label in ("Next ▶", "Reveal", "End class")]
    assert S.ClassStore().get(code).step == 1
    assert good not in _texts(at)


def test_student_joins_predicts_and_sees_the_result():
    store = S.ClassStore()
    code, key = store.create("gaussian", 7, step=2)
    at = _open({"cls_join": code.lower()[:4] + "-" + code.lower()[4:]})  # typed in lower case with a dash
    assert _q(at, "cls_join") == code
    me = _q(at, "cls_me")
    assert len(me) == 16 and key not in str(at.query_params)
    assert at.header[0].value.startswith("2. ")
    assert not [b for b in at.button if b.label in ("Next ▶", "Reveal", "End class")]
    for typed, stored in (("6e4", "60000.0"), ("60,000", "60000.0"), ("2", "2.0")):
        at.text_input(key="cls_pred_2").set_value(typed)
        at.button(key="FormSubmitter:cls_form_2-Submit prediction").click().run()
        assert not at.exception
        assert store.answer_of(code, 2, me) == stored
    assert store.count(code, 2) == 1  # one answer per student: the last one
    box = at.text_input(key="cls_pred_2")
    box.set_value("[x](https://ev.il)")
    at.button(key="FormSubmitter:cls_form_2-Submit prediction").click().run()
    errors = " ".join(e.value for e in at.error)
    assert "Your prediction is not read" in errors and "](https" not in errors
    assert store.answer_of(code, 2, me) == "2.0"
    assert "The answer" not in _texts(at)
    store.reveal(code, key, 2, {"kind": "number", "answer": 2.0, "rtol": 0.05, "options": [], "shown": "2"})
    at.run()
    assert "Right: you predicted 2." in _texts(at)


def test_choice_question():
    store = S.ClassStore()
    lesson = L.get_lesson("gaussian")
    k = next(i for i, s in enumerate(lesson.steps, 1) if s.question and s.question.kind == "choice")
    code, key = store.create("gaussian", 7, step=k)
    at = _open({"cls_join": code})
    me = _q(at, "cls_me")
    at.radio(key=f"cls_pred_{k}").set_value("no")
    at.button(key=f"FormSubmitter:cls_form_{k}-Submit prediction").click().run()
    assert store.answer_of(code, k, me) == "no"


def test_unknown_code_and_hostile_links():
    at = _open({"cls_join": "[x](https://ev.il)"})
    err = " ".join(e.value for e in at.error)
    assert "No class has the code" in err and "](https" not in err
    at = _open({"cls_join": "ZZZZ-ZZZZ", "cls_me": "<script>"})
    assert "No class has the code" in " ".join(e.value for e in at.error)
    code, _ = S.ClassStore().create("gaussian", 7)
    at = _open({"cls_join": code, "cls_me": "<script>"})
    assert _q(at, "cls_me") != "<script>"  # a malformed id is replaced by a fresh one
    at = _open({"cls_code": "[x](https://ev.il)", "cls_key": "k"})
    assert "presenter link is not valid" in " ".join(e.value for e in at.error)


def test_start_from_a_lesson_step():
    """The Lessons page's "Start a live class from this step" opens the presenter's view of a new class there."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["les_id"] = "gaussian"
    at.query_params["les_step"] = "3"
    at.run()
    at.switch_page("pages/lessons.py").run()
    _button(at, "Start a live class from this step").click().run()
    assert not at.exception
    code = _q(at, "cls_code")
    cls = S.ClassStore().get(code)
    assert (cls.lesson_id, cls.step) == ("gaussian", 3)
    assert S.ClassStore().check_key(code, _q(at, "cls_key"))
    assert at.header[0].value.startswith("3. ")
