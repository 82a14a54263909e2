"""Every message of a finished page run reaches the browser, also when a fragment's timer fires at that moment.

The bug (issue 35: ~3 % of the students' predictions were stored but their page never said "is recorded"; also a
student page could be left half-drawn after Next, the new step's header over the old step's numbers).  Streamlit
(1.67) runs a session's script in a ``ScriptRunner`` thread that ends when a run finishes with nothing queued; the
run's output travels to the browser as events that the server's event loop handles later
(``AppSession._on_scriptrunner_event`` → ``call_soon_threadsafe``).  When a rerun request arrives in between -- on
the live class page the student's one-second follow check, an ``st.fragment(run_every=…)`` tick, which the browser
sends whether or not a run is in progress -- ``AppSession.request_rerun`` finds the runner stopped, starts a new
one, and from then on ``AppSession._handle_scriptrunner_event_on_event_loop`` ignores every event of the old runner
that the loop has not handled yet ("Ignoring event from non-current ScriptRunner").  The rest of the finished run
-- on a busy server the prediction form, its confirmation, the run's end -- is lost, and the fragment run that
follows redraws only the fragment.  The driver of ``benchmarks/bench_class.py`` shows it: the submit's run sends
the page down to "Predict.", then the next message is the new runner's fragment run, and that run never ends.

The fix (:func:`install`): remember a runner that was replaced because it had **finished on its own** (its request
queue went to STOP after the run, not because someone asked it to stop), and hand its remaining events to the
session as if it were still the current runner.  Those events were all queued on the loop before the runner
stopped, hence before the new runner existed, so they arrive in order, before anything of the new run.  A runner
stopped on request (a full rerun with ``runner.fastReruns``, the Stop button, a closed session) keeps Streamlit's
behaviour: its late events are dropped, and so is the ``SHUTDOWN`` event of any replaced runner.

The same module holds the other use of those internals: :func:`push_fragment_rerun`, with which the server reruns a
student page's step fragment when the lecturer moves (:mod:`dpviz_ui.classroom.push`).

This module imports Streamlit only inside :func:`install` and the push functions (the ``classroom`` package stays
importable without it); ``pages/live_class.py`` calls them.  If Streamlit's internals it relies on are missing (another version), it changes
nothing and says so (``install`` returns False; tests/test_class_delivery.py fails, so an upgrade is noticed).
"""

from __future__ import annotations

import logging
import threading
import weakref

_LOG = logging.getLogger(__name__)
_LOCK = threading.Lock()
#: what :func:`install` needs from Streamlit (checked before anything is changed)
NEEDS = {"AppSession": ("_create_scriptrunner", "_handle_scriptrunner_event_on_event_loop", "_scriptrunner"),
         "ScriptRequests": ("request_stop", "_state")}


def _stop_requested(runner) -> bool:
    requests = getattr(runner, "_requests", None)
    return requests is None or getattr(requests, "_dpviz_stop_requested", False)


def patch(app_session_cls, script_requests_cls, shutdown_event) -> None:
    """Patch the two classes (Streamlit's ``AppSession`` and ``ScriptRequests``, or test doubles with the same
    methods); ``shutdown_event``: the event a replaced runner's late ``SHUTDOWN`` is recognised by."""
    original_stop = script_requests_cls.request_stop

    def request_stop(self, *args, **kwargs):
        self._dpviz_stop_requested = True
        return original_stop(self, *args, **kwargs)

    original_create = app_session_cls._create_scriptrunner

    def _create_scriptrunner(self, *args, **kwargs):
        old = self._scriptrunner
        original_create(self, *args, **kwargs)
        if old is not None and old is not self._scriptrunner and not _stop_requested(old):
            retired = self.__dict__.get("_dpviz_retired")
            if retired is None:
                retired = self.__dict__["_dpviz_retired"] = weakref.WeakSet()
            retired.add(old)

    original_handle = app_session_cls._handle_scriptrunner_event_on_event_loop

    def _handle_scriptrunner_event_on_event_loop(self, sender, event, *args, **kwargs):
        retired = self.__dict__.get("_dpviz_retired")
        if (sender is not None and sender is not self._scriptrunner and retired is not None and sender in retired
                and event != shutdown_event):
            current = self._scriptrunner
            self._scriptrunner = sender  # on the event loop's thread, like every other use of _scriptrunner here
            try:
                return original_handle(self, sender, event, *args, **kwargs)
            finally:
                self._scriptrunner = current
        return original_handle(self, sender, event, *args, **kwargs)

    app_session_cls._dpviz_originals = {"_create_scriptrunner": original_create,
                                         "_handle_scriptrunner_event_on_event_loop": original_handle,
                                         "request_stop": original_stop}
    script_requests_cls.request_stop = request_stop
    app_session_cls._create_scriptrunner = _create_scriptrunner
    app_session_cls._handle_scriptrunner_event_on_event_loop = _handle_scriptrunner_event_on_event_loop
    app_session_cls._dpviz_delivery = True


def install() -> bool:
    """Apply the fix to this process's Streamlit server once (idempotent, thread-safe).  Returns True when it is in
    place, False when Streamlit's internals differ from what it was written for (nothing is changed then)."""
    try:
        from streamlit.runtime.app_session import AppSession
        from streamlit.runtime.scriptrunner import ScriptRunnerEvent
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests
    except ImportError as exc:
        _LOG.warning("live class: Streamlit's session internals not found (%s); fix not applied", exc)
        return False
    with _LOCK:
        if getattr(AppSession, "_dpviz_delivery", False):
            return True
        import inspect

        ok = (all(hasattr(AppSession, n) for n in NEEDS["AppSession"][:2])
              and "_scriptrunner" in inspect.getsource(AppSession.__init__)
              and hasattr(ScriptRequests, "request_stop")
              and "self._state" in inspect.getsource(ScriptRequests.__init__)
              and hasattr(ScriptRunnerEvent, "SHUTDOWN"))
        if not ok:
            _LOG.warning("live class: Streamlit's session internals changed; the delivery fix is not applied")
            return False
        patch(AppSession, ScriptRequests, ScriptRunnerEvent.SHUTDOWN)
        return True


# ----------------------------------------------------------------------------------------------------------------------
# the server pushes a rerun (dpviz_ui/classroom/push.py: the students' pages follow the lecturer without asking)
# ----------------------------------------------------------------------------------------------------------------------
_WARNED = threading.Event()


def _warn_once(msg: str, *args) -> None:
    if not _WARNED.is_set():
        _WARNED.set()
        _LOG.warning(msg, *args)


def request_fragment_rerun(session, target) -> bool:
    """On the server's event loop: ask ``session`` (Streamlit's ``AppSession``) to rerun the fragment of ``target``
    (a :class:`dpviz_ui.classroom.push.Target`), as ``AppSession.request_rerun`` does for a browser's fragment
    rerun, but with ``widget_states=None`` (the session's widget values stay; a queued click keeps its own).  Nothing when the session is shutting down or no longer holds
    the fragment (a full run dropped it).  Returns whether a rerun was requested."""
    from streamlit.runtime.app_session import AppSessionState
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    if session._state == AppSessionState.SHUTDOWN_REQUESTED or not session.has_fragment(target.fragment_id):
        return False
    data = RerunData(query_string=target.query_string, widget_states=None,
                     page_script_hash=target.page_script_hash, fragment_id=target.fragment_id, is_auto_rerun=True,
                     context_info=target.context_info)
    runner = session._scriptrunner
    if runner is not None and runner.request_rerun(data):
        return True
    session._create_scriptrunner(data)
    return True


def _on_loop(session, target) -> None:
    try:
        request_fragment_rerun(session, target)
    except Exception as exc:  # noqa: BLE001 - the page's timer still follows the class
        _warn_once("live class: a pushed rerun failed (%r); the pages follow by their timer", exc)


def push_fragment_rerun(session_id: str, target) -> bool:
    """Schedule :func:`request_fragment_rerun` on the event loop of this server's session ``session_id`` (any
    thread).  False when the session is gone or this process has no Streamlit server (AppTest, a script)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return False
        info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
        if info is None:
            return False
        session = info.session
        session._event_loop.call_soon_threadsafe(_on_loop, session, target)
        return True
    except RuntimeError:  # the loop is closed: the server is stopping
        return False
    except (ImportError, AttributeError) as exc:
        _warn_once("live class: Streamlit's session internals differ (%r); the pages follow by their timer", exc)
        return False


def can_push() -> bool:
    """Whether this process runs a Streamlit server whose internals :func:`push_fragment_rerun` uses."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.app_session import AppSession, AppSessionState  # noqa: F401
        from streamlit.runtime.scriptrunner_utils.script_requests import RerunData  # noqa: F401
    except ImportError:
        return False
    if not Runtime.exists():
        return False
    rt = Runtime.instance()
    return (hasattr(rt, "_session_mgr") and hasattr(rt._session_mgr, "get_active_session_info")
            and all(hasattr(AppSession, n) for n in ("_create_scriptrunner", "has_fragment")))
