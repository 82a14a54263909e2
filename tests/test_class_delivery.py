"""The race behind "stored but never confirmed" (issue 35), reproduced deterministically on Streamlit's own AppSession.

A page run finishes in its ScriptRunner thread, whose request queue then goes to STOP; the run's output is still
queued as events on the server's event loop.  A fragment timer's rerun request (the live class page's one-second
follow check) arrives before the loop has handled them: ``AppSession.request_rerun`` starts a new runner, and
Streamlit drops the old runner's remaining events -- here the "is recorded" message and the run's end.  With
:func:`dpviz_ui.classroom.delivery.patch` they reach the browser, in order, before the new run; a runner stopped on
request (a full rerun with fastReruns) still has its late events dropped.  No timing, no threads: the event loop
is driven by hand, so the order of events is exactly the one the benchmark's driver caught on a loaded server
(benchmarks/RESULTS.md, "Live class, session 38").
"""

from __future__ import annotations

import asyncio
from unittest import mock

import pytest

from _fake_runner import runner_class
from dpviz_ui.classroom import delivery
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.script_data import ScriptData
from streamlit.runtime.scriptrunner import ScriptRunnerEvent
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests


def _delta(text: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = text
    return msg


def _session_classes(fixed: bool):
    class Requests(ScriptRequests):
        pass

    Runner = runner_class(Requests)

    class Session(AppSession):
        def _create_scriptrunner(self, initial_rerun_data) -> None:  # the real one starts a thread
            self._scriptrunner = Runner(**{})
            self.created.append(self._scriptrunner)

    if fixed:
        delivery.patch(Session, Requests, ScriptRunnerEvent.SHUTDOWN)
    elif getattr(AppSession, "_dpviz_delivery", False):  # install() ran in this process: Streamlit's own code
        originals = AppSession._dpviz_originals
        Session._handle_scriptrunner_event_on_event_loop = originals["_handle_scriptrunner_event_on_event_loop"]
        Requests.request_stop = originals["request_stop"]
    return Session, Runner


def _finished_run_then_fragment_tick(fixed: bool, stop_first: bool = False) -> list[str]:
    """One finished page run whose events the loop has not handled yet, then a fragment timer's rerun request;
    returns what the browser queue holds when the loop is idle."""
    Session, Runner = _session_classes(fixed)

    async def scenario() -> list[str]:
        session = Session(ScriptData("app.py", is_hello=False), mock.MagicMock(), mock.MagicMock(), None, {})
        session.created = []
        session._fragment_storage = mock.MagicMock()
        session._fragment_storage.contains.return_value = True
        old = session._scriptrunner = Runner()
        assert old._requests.on_scriptrunner_ready().type.name == "RERUN"  # the run starts
        # the run's output, sent from the script thread (queued on the loop, not handled yet)
        session._on_scriptrunner_event(old, ScriptRunnerEvent.ENQUEUE_FORWARD_MSG,
                                       forward_msg=_delta("Your prediction 2.5 is recorded."))
        session._on_scriptrunner_event(old, ScriptRunnerEvent.SCRIPT_STOPPED_WITH_SUCCESS)
        if stop_first:
            old.request_stop()  # stopped on request: its late events must stay dropped
        assert old._requests.on_scriptrunner_ready().type.name == "STOP"  # nothing queued: the thread ends
        session._on_scriptrunner_event(old, ScriptRunnerEvent.SHUTDOWN)
        # the follow check's timer fires now, before the loop has handled the run's events
        tick = ClientState(fragment_id="follow", is_auto_rerun=True, page_script_hash="h")
        with mock.patch("streamlit.config.get_option", return_value=True):  # runner.fastReruns, the default
            session.request_rerun(tick)
        assert len(session.created) == 1 and session._scriptrunner is session.created[0]
        for _ in range(5):
            await asyncio.sleep(0)
        got = []
        for m in session._browser_queue.flush():
            kind = m.WhichOneof("type")
            if kind == "delta":
                got.append(m.delta.new_element.markdown.body)
            elif kind == "script_finished":
                got.append(ForwardMsg.ScriptFinishedStatus.Name(m.script_finished))
        return got

    return asyncio.run(scenario())


def test_streamlit_alone_drops_the_end_of_a_finished_run_when_a_fragment_tick_arrives():
    """The root cause: without the fix the confirmation and the run's end never reach the browser."""
    got = _finished_run_then_fragment_tick(fixed=False)
    assert "Your prediction 2.5 is recorded." not in got
    assert "FINISHED_SUCCESSFULLY" not in got


def test_with_the_fix_the_finished_run_reaches_the_browser_in_order():
    got = _finished_run_then_fragment_tick(fixed=True)
    assert got == ["Your prediction 2.5 is recorded.", "FINISHED_SUCCESSFULLY"]


def test_a_runner_stopped_on_request_still_has_its_late_events_dropped():
    got = _finished_run_then_fragment_tick(fixed=True, stop_first=True)
    assert got == []


def test_install_applies_to_this_streamlit_once():
    assert delivery.install() is True
    patched = AppSession._handle_scriptrunner_event_on_event_loop
    assert delivery.install() is True  # idempotent: not wrapped twice
    assert AppSession._handle_scriptrunner_event_on_event_loop is patched
    assert getattr(AppSession, "_dpviz_delivery", False)


@pytest.mark.parametrize("name", ["_create_scriptrunner", "_handle_scriptrunner_event_on_event_loop",
                                  "request_rerun"])
def test_the_streamlit_internals_the_fix_relies_on_exist(name):
    assert callable(getattr(AppSession, name))
