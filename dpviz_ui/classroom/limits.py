"""A sliding-window rate limiter kept in the process's memory (the bottom of :mod:`dpviz_ui.classroom`).

A student's browser session talks to one server process for its whole life (its websocket), so a limit per student
kept in that process bounds what one client can send, also when several dashboard processes share one database.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds for each key (thread-safe; at most ``max_keys`` keys are
    remembered, the oldest forgotten first)."""

    def __init__(self, limit: int, window: float, max_keys: int = 100_000):
        if int(limit) < 1 or not window > 0:
            raise ValueError("a rate limit needs limit >= 1 and a positive window")
        self.limit, self.window, self.max_keys = int(limit), float(window), int(max_keys)
        self._events: dict = {}
        self._lock = threading.Lock()

    def _recent(self, key, now: float) -> deque:
        q = self._events.get(key)
        if q is None:
            if len(self._events) >= self.max_keys:
                self._events.pop(next(iter(self._events)))
            q = self._events[key] = deque()
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def allow(self, key, now: float | None = None) -> bool:
        """Count one event for ``key`` if it is within the limit (True), else count nothing (False)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._recent(key, now)
            if len(q) >= self.limit:
                return False
            q.append(now)
            return True

    def blocked(self, key, now: float | None = None) -> bool:
        """Whether ``key`` has used up its events of the window (counts nothing)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return len(self._recent(key, now)) >= self.limit

    def record(self, key, now: float | None = None) -> None:
        """Count one event for ``key`` whatever the limit (e.g. a failed look-up)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._recent(key, now)
            q.append(now)
            while len(q) > self.limit:
                q.popleft()
