"""The server pushes the lecturer's move to every student page of this process (issue 35, "within 2 s at N = 60").

Without it each student's browser asked the server once a second whether the class had moved (a fragment timer): N
script runs a second while nothing happens, and up to a second of waiting when something does.  With it:

* each student page, when its step fragment runs, tells :class:`Followers` which class and version it shows, and how
  to rerun that fragment (its Streamlit session id, the fragment id, the page's query string and page hash);
* this process's :class:`~dpviz_ui.classroom.watcher.ClassWatcher` (one thread, one read of all followed classes
  every quarter second; woken at once when the lecturer's page in this process moves the class) passes every
  version it reads to :meth:`Followers.changed`, which asks for one rerun of the step fragment of every page of that
  class that shows an older version (once per version and page);
* the rerun is requested on the server's event loop (``call_soon_threadsafe``), as a browser's own fragment rerun
  would be, but with no widget states (``widget_states=None``: the session keeps its widgets' values, and a
  student's click waiting in the same queue keeps its own) -- :func:`request_fragment_rerun`.  The browser simply
  draws the run the server started.  That part talks to Streamlit's session internals and lives beside the other
  one that does, :mod:`dpviz_ui.classroom.delivery` (:func:`~dpviz_ui.classroom.delivery.push_fragment_rerun`).

The students' fragment timer stays, slower (``pages/live_class.py``: ``FALLBACK_S``), for what a push cannot reach
(a page whose fragment was dropped by a full run in between, a Streamlit without these internals).  Several processes
sharing PostgreSQL: each process's watcher reads the database and pushes to its own sessions.

This module does not import Streamlit.  The push relies on Streamlit 1.67's ``Runtime.instance()._session_mgr``,
``AppSession._event_loop``, ``_state``, ``_scriptrunner``, ``_create_scriptrunner`` and ``has_fragment``; with other
internals it pushes nothing, says so once in the log, and the pages fall back to their timer
(tests/test_class_push.py then fails, so an upgrade is noticed).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable

_LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Target:
    """How to rerun one page's step fragment: what the page's last run was started with (no widget states)."""

    fragment_id: str
    query_string: str = ""
    page_script_hash: str = ""
    context_info: object | None = None  # Streamlit's ContextInfo proto of the page's run (timezone, locale, URL)


@dataclasses.dataclass
class _Entry:
    code: str
    target: Target
    shown: object  # the class version the page's last run drew
    pushed: object = None  # the version a rerun was last requested for (at most one request per version)


class Followers:
    """The student pages of this process and the class version each one shows.

    ``push(session_id, target)`` requests the rerun of ``target`` in session ``session_id`` and returns False when
    that session is gone (it is then forgotten)."""

    def __init__(self, push: Callable[[str, Target], bool]):
        self._push = push
        self._by_code: dict[str, dict[str, _Entry]] = {}
        self._code_of: dict[str, str] = {}
        self._lock = threading.Lock()
        #: reruns requested so far (for tests and the benchmark's notes)
        self.pushes = 0

    def follow(self, code: str, session_id: str, target: Target, shown) -> None:
        """Page ``session_id`` has just drawn version ``shown`` of class ``code`` (its step fragment: ``target``)."""
        if not code or not session_id or not isinstance(target, Target) or not target.fragment_id:
            raise ValueError("a followed page needs a class code, a session id and the fragment to rerun")
        with self._lock:
            old_code = self._code_of.get(session_id)
            old = self._by_code.get(old_code, {}).pop(session_id, None) if old_code is not None else None
            pushed = old.pushed if old is not None and old_code == code else None
            self._by_code.setdefault(code, {})[session_id] = _Entry(code, target, shown, pushed)
            self._code_of[session_id] = code

    def forget(self, session_id: str) -> None:
        with self._lock:
            code = self._code_of.pop(session_id, None)
            if code is not None:
                entries = self._by_code.get(code, {})
                entries.pop(session_id, None)
                if not entries:
                    self._by_code.pop(code, None)

    def following(self, code: str) -> list[str]:
        """The sessions of this process that follow class ``code``."""
        with self._lock:
            return sorted(self._by_code.get(code, {}))

    def changed(self, code: str, version) -> int:
        """The class ``code`` is at ``version`` (None: ended its life or never existed): request one rerun of every
        page that shows another version and has not been asked for this one yet.  Returns the number of requests."""
        with self._lock:
            todo = []
            for sid, e in self._by_code.get(code, {}).items():
                if e.shown != version and e.pushed != version:
                    e.pushed = version
                    todo.append((sid, e.target))
        gone = []
        for sid, target in todo:
            try:
                ok = self._push(sid, target)
            except Exception as exc:  # noqa: BLE001 - one session's failure must not stop the others' pushes
                _LOG.warning("live class: could not push to a student page (%s)", exc)
                ok = False
            if ok:
                self.pushes += 1
            else:
                gone.append(sid)
        for sid in gone:
            self.forget(sid)
        return len(todo) - len(gone)


_FOLLOWERS: Followers | None = None
_FOLLOWERS_LOCK = threading.Lock()


def followers() -> Followers:
    """This process's registry of student pages, pushing through
    :func:`dpviz_ui.classroom.delivery.push_fragment_rerun`."""
    global _FOLLOWERS
    with _FOLLOWERS_LOCK:
        if _FOLLOWERS is None:
            from dpviz_ui.classroom import delivery

            _FOLLOWERS = Followers(delivery.push_fragment_rerun)
        return _FOLLOWERS
