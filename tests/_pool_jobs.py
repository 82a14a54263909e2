"""Module-level jobs for tests/test_workers.py (worker processes import them by name)."""

import os
import time


def sleep_steps(steps: int, dt: float, *, progress, cancel=None) -> int:
    """Sleep ``steps`` times ``dt`` seconds, reporting progress after each; returns the steps done."""
    for k in range(steps):
        time.sleep(dt)
        progress((k + 1) / steps)
    return steps


def niceness(*, progress) -> tuple[int, str | None]:
    progress(1.0)
    return os.getpriority(os.PRIO_PROCESS, 0), os.environ.get("OPENBLAS_NUM_THREADS")


def fail(*, progress):
    raise ValueError("a message for the student")
