"""One watcher per server process and database: the students' pages follow their class without a database read each.

Every student's page checks its class about once a second (``pages/live_class.py``: a small ``st.fragment`` that
compares the version it shows with :meth:`ClassWatcher.version` and returns, or, when the version changed, draws the
page again).  That check reads no database: :class:`ClassWatcher` keeps the latest version of every class someone in
this process follows, and one background thread refreshes all of them in one read of the store
(:meth:`dpviz_ui.classroom.store.ClassStore.versions`) every :data:`INTERVAL_S` seconds -- one read per process and
interval, however many students follow and however many classes run.  A class nobody has asked about for
:data:`IDLE_S` seconds is no longer read.  A failed read (the database restarting) keeps the last versions; the next
interval tries again.

A page that has just read its class itself (a full run of the page) tells the watcher with :meth:`ClassWatcher.note`,
so that its next check compares against what it shows, not against an older read of the thread.  Every version is
kept with the time its read started, and a read replaces the kept version only if it started later: the versions
served only move forward, so one page's slow run, whose read is older, cannot make every other page of the class
draw itself again.

Every version read or told is passed to the watcher's listeners (:meth:`ClassWatcher.listen`): on a Streamlit
server the live class page's listener is :meth:`dpviz_ui.classroom.push.Followers.changed`, which has the server
rerun the step of every student page that shows an older version -- the pages' own once-a-second check is then
only a slow fallback.  :meth:`ClassWatcher.poke` has the thread read at once (the lecturer's page in this process
has just moved the class).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from dpviz_ui.classroom.store import ClassStore

#: seconds between two reads of the followed classes' versions (per process and database)
INTERVAL_S = 0.25
#: a class nobody in this process asked about for this many seconds is no longer read
IDLE_S = 30.0

_LOG = logging.getLogger(__name__)


class ClassWatcher:
    """The versions of the classes followed in this process, refreshed by one thread.

    ``read_versions(codes)`` returns ``{code: version}`` for the classes that exist (a missing code: the class ended
    its life or never existed; its version is None).  ``thread=False`` (tests): no background thread; call
    :meth:`refresh` yourself."""

    def __init__(self, read_versions: Callable[[list[str]], dict], *, interval: float = INTERVAL_S,
                 idle_s: float = IDLE_S, clock: Callable[[], float] = time.monotonic, thread: bool = True):
        if not interval > 0 or not idle_s > 0:
            raise ValueError("the watcher's interval and idle time must be positive (seconds)")
        self._read = read_versions
        self.interval, self.idle_s, self.clock = float(interval), float(idle_s), clock
        self._versions: dict[str, tuple | None] = {}
        self._read_at: dict[str, float] = {}  # when the read of the kept version started
        self._asked: dict[str, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._listeners: list[Callable[[str, object], object]] = []
        self._thread: threading.Thread | None = None
        self._use_thread = thread
        #: reads of the store so far (the thread's refreshes and first looks at a class)
        self.reads = 0

    # --- what a page calls --------------------------------------------------------------------------------------------
    def version(self, code: str):
        """The latest version of class ``code`` known to this process (None: no such class).  No database read once
        the class is watched; the first question about a class reads it at once and starts watching it."""
        with self._lock:
            now = self._asked[code] = self.clock()
            if code in self._versions:
                return self._versions[code]
        got = self._read_now([code]).get(code)
        with self._lock:
            self._keep(code, got, now)
            got = self._versions[code]
        self._start()
        return got

    def note(self, code: str, version, read_at: float) -> None:
        """What a page has just read itself (its full run; ``read_at``: :attr:`clock` when its read started): kept
        unless the watcher holds a version read later.  The listeners hear the version kept."""
        with self._lock:
            self._asked[code] = max(self._asked.get(code, read_at), read_at)
            self._keep(code, version, read_at)
            kept = self._versions[code]
        self._tell({code: kept})
        self._start()

    def listen(self, listener: Callable[[str, object], object]) -> None:
        """Call ``listener(code, version)`` with every version this watcher reads or is told (from the refreshing
        thread or the page that told it; once per class and refresh).  Adding the same listener again does
        nothing.  The live class page's listener pushes the move to the students' pages
        (:meth:`dpviz_ui.classroom.push.Followers.changed`)."""
        if not callable(listener):
            raise ValueError("a watcher's listener must be a function of (class code, version)")
        with self._lock:
            if listener not in self._listeners:
                self._listeners.append(listener)

    def poke(self) -> None:
        """Read the followed classes now instead of at the end of the current interval (the lecturer's page in this
        process has just moved, revealed or ended its class)."""
        self._wake.set()

    def _tell(self, versions: dict) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            for code, version in versions.items():
                try:
                    listener(code, version)
                except Exception as exc:  # noqa: BLE001 - a listener's failure must not stop the watcher
                    _LOG.warning("live class: a watcher listener failed (%s)", exc)

    def _keep(self, code: str, version, read_at: float) -> None:  # under the lock
        if read_at >= self._read_at.get(code, -float("inf")):
            self._versions[code] = version
            self._read_at[code] = read_at

    def watched(self) -> list[str]:
        """The classes read at each refresh (asked about within :attr:`idle_s`)."""
        now = self.clock()
        with self._lock:
            return sorted(c for c, t in self._asked.items() if now - t <= self.idle_s)

    # --- the thread ---------------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the versions of every watched class at once; forget the classes nobody asked about lately."""
        started = self.clock()
        with self._lock:
            for c in [c for c, t in self._asked.items() if started - t > self.idle_s]:
                self._asked.pop(c, None)
                self._versions.pop(c, None)
                self._read_at.pop(c, None)
            codes = sorted(self._asked)
        if not codes:
            return
        got = self._read_now(codes)
        with self._lock:
            for c in codes:
                if c in self._asked:
                    self._keep(c, got.get(c), started)
            kept = {c: self._versions[c] for c in codes if c in self._versions}
        self._tell(kept)

    def _read_now(self, codes: list[str]) -> dict:
        self.reads += 1
        return self._read(codes)

    def _start(self) -> None:
        if not self._use_thread or self._thread is not None:
            return
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="dpviz-class-watcher", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        failing = False
        while not self._stop.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.refresh()
                failing = False
            except Exception as exc:  # noqa: BLE001 - a database hiccup: keep the last versions, retry next interval
                if not failing:
                    _LOG.warning("live class: could not read the classes' versions (%s); retrying", exc)
                failing = True

    def stop(self) -> None:
        """Stop the thread (tests; a server process stops with its daemon thread)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


_WATCHERS: dict[str, ClassWatcher] = {}
_WATCHERS_LOCK = threading.Lock()


def for_url(url: str, read_versions: Callable[[Iterable[str]], dict] | None = None) -> ClassWatcher:
    """This process's watcher of the database at ``url`` (created on first use; ``read_versions`` defaults to
    :meth:`ClassStore(url).versions <dpviz_ui.classroom.store.ClassStore.versions>`)."""
    with _WATCHERS_LOCK:
        w = _WATCHERS.get(url)
        if w is None:
            if read_versions is None:
                read_versions = ClassStore(url).versions
            w = _WATCHERS[url] = ClassWatcher(read_versions)
        return w
