"""The server pushes the lecturer's move to the students' pages (dpviz_ui/classroom/push.py, and the Streamlit side
in dpviz_ui/classroom/delivery.py): which pages are asked to rerun and how often, what the rerun request carries
(the step fragment, the page's link, no widget states), on which thread it is made, and that the watcher's
versions reach the registry.  AppTest cannot push (it has no server); the real push is exercised end to end by
tests/test_class_follow.py (the websocket driver) and tests/test_browser_live_class.py (Chromium)."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from unittest import mock

import pytest

from _fake_runner import runner_class
from dpviz_ui.classroom import delivery, push
from dpviz_ui.classroom import store as S
from dpviz_ui.classroom import watcher as W
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.script_data import ScriptData
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

V1, V2, V3 = (1, False, (), 0), (2, False, (), 0), (3, False, (), 0)


def _target(fid="step-frag"):
    return push.Target(fid, "cls_join=ABCD2345&cls_me=0123456789abcdef", "pagehash")


class Recorder:
    def __init__(self, gone=()):
        self.calls: list[tuple[str, push.Target]] = []
        self.gone = set(gone)

    def __call__(self, sid, target):
        self.calls.append((sid, target))
        return sid not in self.gone


# ----------------------------------------------------------------------------------------------------------------------
# the registry
# ----------------------------------------------------------------------------------------------------------------------
def test_a_move_reruns_every_page_of_that_class_showing_an_older_version_once():
    rec = Recorder()
    f = push.Followers(rec)
    for i in range(60):
        f.follow("CLASSA", f"s{i}", _target(f"frag{i}"), V1)
    f.follow("CLASSB", "other", _target(), V1)
    assert f.changed("CLASSA", V1) == 0 and rec.calls == []  # nothing moved: no rerun at all
    assert f.changed("CLASSA", V2) == 60
    assert sorted(sid for sid, _ in rec.calls) == sorted(f"s{i}" for i in range(60))
    assert {sid: t.fragment_id for sid, t in rec.calls}["s7"] == "frag7"  # each page's own step fragment
    assert f.changed("CLASSA", V2) == 0 and len(rec.calls) == 60  # the watcher's next reads: no second request
    f.follow("CLASSA", "s3", _target("frag3"), V2)  # page s3 has drawn step 2
    assert f.changed("CLASSA", V3) == 60 and len(rec.calls) == 120  # Next again: every page once more
    assert f.pushes == 120 and f.following("CLASSB") == ["other"]


def test_back_and_reveal_are_moves_too_and_a_page_already_there_is_left_alone():
    rec = Recorder()
    f = push.Followers(rec)
    f.follow("C", "a", _target(), V2)
    f.follow("C", "b", _target(), V1)  # a slow page still drew step 1
    assert f.changed("C", V2) == 1 and [sid for sid, _ in rec.calls] == ["b"]
    f.follow("C", "a", _target(), V2)
    f.follow("C", "b", _target(), V2)
    assert f.changed("C", V1) == 2  # Back to step 1: a version seen before is a move as well
    f.follow("C", "a", _target(), V1)
    f.follow("C", "b", _target(), V1)
    assert f.changed("C", None) == 2  # the class ended its life: the pages say so
    assert len(rec.calls) == 5


def test_a_page_redrawn_after_the_push_is_not_pushed_twice_for_the_same_version():
    rec = Recorder()
    f = push.Followers(rec)
    f.follow("C", "a", _target(), V1)
    assert f.changed("C", V2) == 1
    f.follow("C", "a", _target(), V1)  # a run that started before the push ends after it (its rerun is queued)
    assert f.changed("C", V2) == 0 and len(rec.calls) == 1
    f.follow("C", "a", _target(), V2)
    assert f.changed("C", V2) == 0


def test_gone_sessions_are_forgotten_and_a_failing_push_does_not_stop_the_others():
    def push_fn(sid, target):
        if sid == "boom":
            raise RuntimeError("the session's loop is closed")
        return sid != "closed"

    f = push.Followers(push_fn)
    for sid in ("a", "closed", "boom", "b"):
        f.follow("C", sid, _target(), V1)
    assert f.changed("C", V2) == 2
    assert f.following("C") == ["a", "b"]
    f.follow("D", "a", _target(), V1)  # the page joined another class: it follows that one only
    assert f.following("C") == ["b"] and f.following("D") == ["a"]
    f.forget("b")
    assert f.following("C") == []


@pytest.mark.parametrize("args", [("", "s", _target(), V1), ("C", "", _target(), V1), ("C", "s", "frag", V1),
                                  ("C", "s", push.Target(""), V1)])
def test_follow_validates_its_inputs(args):
    with pytest.raises(ValueError, match="class code, a session id and the fragment"):
        push.Followers(Recorder()).follow(*args)


# ----------------------------------------------------------------------------------------------------------------------
# the watcher tells the registry
# ----------------------------------------------------------------------------------------------------------------------
def test_the_watchers_reads_and_a_pages_note_reach_the_listener(tmp_path):
    store = S.ClassStore(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    code, key = store.create("gaussian", 7)
    w = W.ClassWatcher(store.versions, thread=False)
    rec = Recorder()
    f = push.Followers(rec)
    w.listen(f.changed)
    w.listen(f.changed)  # idempotent: one call per read
    v1 = w.version(code)
    f.follow(code, "s1", _target(), v1)
    f.follow(code, "s2", _target(), v1)
    w.refresh()
    assert rec.calls == []
    store.set_step(code, key, 2)
    w.refresh()
    assert sorted(sid for sid, _ in rec.calls) == ["s1", "s2"]
    f.follow(code, "s1", _target(), w.version(code))
    f.follow(code, "s2", _target(), w.version(code))
    store.set_step(code, key, 3)
    v3 = store.get(code).version
    w.note(code, v3, w.clock())  # a page's own run read step 3 before the thread did
    assert len(rec.calls) == 4
    with pytest.raises(ValueError, match="listener"):
        w.listen("not a function")


def test_a_poke_reads_at_once_instead_of_at_the_end_of_the_interval(tmp_path):
    store = S.ClassStore(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    code, key = store.create("gaussian", 7)
    seen = []
    w = W.ClassWatcher(store.versions, interval=60.0)  # without the poke: the next read in a minute
    w.listen(lambda c, v: seen.append(v))
    try:
        w.version(code)
        time.sleep(0.2)
        store.set_step(code, key, 2)
        w.poke()
        deadline = time.monotonic() + 10
        while not any(v and v[0] == 2 for v in seen) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any(v and v[0] == 2 for v in seen)
        assert w.version(code)[0] == 2
    finally:
        w.stop()


# ----------------------------------------------------------------------------------------------------------------------
# Streamlit's side: the request on a real AppSession (its runner reduced to the request queue)
# ----------------------------------------------------------------------------------------------------------------------
Runner = runner_class()


class Session(AppSession):
    def _create_scriptrunner(self, initial_rerun_data) -> None:  # the real one starts a thread
        self._scriptrunner = Runner(initial_rerun_data)
        self.created.append(initial_rerun_data)


def _session(holds=True):
    async def make():
        return Session(ScriptData("app.py", is_hello=False), mock.MagicMock(), mock.MagicMock(), None, {})

    s = asyncio.run(make())
    s.created = []
    s._fragment_storage = mock.MagicMock()
    s._fragment_storage.contains.side_effect = lambda fid: holds and fid == "step-frag"
    return s


def test_a_push_to_an_idle_session_starts_a_fragment_run_with_the_pages_link_and_no_widget_states():
    s = _session()
    s._scriptrunner = None  # the page's last run has finished
    assert delivery.request_fragment_rerun(s, _target()) is True
    (data,) = s.created
    assert data.fragment_id == "step-frag" and data.widget_states is None and data.is_auto_rerun
    assert data.query_string == "cls_join=ABCD2345&cls_me=0123456789abcdef" and data.page_script_hash == "pagehash"
    queued = s._scriptrunner._requests.on_scriptrunner_ready()
    assert queued.type.name == "RERUN" and queued.rerun_data.fragment_id_queue == ["step-frag"]


def test_a_push_during_a_students_click_keeps_the_clicks_values_and_adds_the_step_fragment():
    s = _session()
    runner = s._scriptrunner = Runner()
    assert runner._requests.on_scriptrunner_ready().type.name == "RERUN"  # a run is in progress
    click = WidgetStates()
    box = click.widgets.add()
    box.id, box.string_value = "pred", "2.5"
    button = click.widgets.add()
    button.id, button.trigger_value = "submit", True
    assert runner.request_rerun(RerunData(widget_states=click, fragment_id="form-frag", page_script_hash="pagehash"))
    assert delivery.request_fragment_rerun(s, _target()) is True
    assert s.created == []  # the running runner took the request
    assert runner._requests.on_scriptrunner_yield() is None  # fragment runs wait for the run in progress to end
    queued = runner._requests.on_scriptrunner_ready()
    assert queued.type.name == "RERUN"
    states = {w.id: w for w in queued.rerun_data.widget_states.widgets}
    assert states["pred"].string_value == "2.5" and states["submit"].trigger_value is True
    assert queued.rerun_data.fragment_id_queue == ["form-frag", "step-frag"]


def test_no_push_to_a_session_without_the_fragment_or_shutting_down():
    s = _session(holds=False)  # a full run in between dropped the step fragment: the page's timer follows
    s._scriptrunner = None
    assert delivery.request_fragment_rerun(s, _target()) is False and s.created == []
    s = _session()
    s._scriptrunner = None
    s._state = AppSessionState.SHUTDOWN_REQUESTED
    assert delivery.request_fragment_rerun(s, _target()) is False and s.created == []


def test_the_push_is_made_on_the_sessions_event_loop_thread():
    """The watcher's thread only schedules; AppSession's methods run on the server's event loop, as a browser's
    request does."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        s = _session()
        s._scriptrunner = None
        s._event_loop = loop
        where = []
        original = delivery.request_fragment_rerun

        def recording(session, target):
            where.append(threading.current_thread())
            return original(session, target)

        runtime = mock.MagicMock()
        runtime._session_mgr.get_active_session_info.side_effect = (
            lambda sid: mock.MagicMock(session=s) if sid == "s1" else None)
        with mock.patch("streamlit.runtime.Runtime.exists", return_value=True), \
                mock.patch("streamlit.runtime.Runtime.instance", return_value=runtime), \
                mock.patch.object(delivery, "request_fragment_rerun", recording):
            assert delivery.push_fragment_rerun("gone", _target()) is False
            assert delivery.push_fragment_rerun("s1", _target()) is True
            deadline = time.monotonic() + 5
            while not s.created and time.monotonic() < deadline:
                time.sleep(0.01)
        assert where == [thread] and s.created[0].fragment_id == "step-frag"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
    assert delivery.push_fragment_rerun("s1", _target()) is False  # no Streamlit server in this process


def test_the_streamlit_internals_the_push_relies_on_exist():
    from streamlit.runtime import Runtime
    from streamlit.runtime.session_manager import SessionManager

    for name in ("_create_scriptrunner", "has_fragment", "request_rerun"):
        assert callable(getattr(AppSession, name))
    src = inspect.getsource(AppSession.__init__)
    assert "self._event_loop" in src and "self._state" in src and "self._scriptrunner" in src
    assert "self._session_mgr" in inspect.getsource(Runtime.__init__)
    assert callable(getattr(SessionManager, "get_active_session_info"))
    assert "widget_states" in inspect.signature(RerunData).parameters
    assert delivery.can_push() is False  # this test process runs no Streamlit server
