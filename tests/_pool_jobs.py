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


def allocate(nbytes: int) -> int:
    """Allocate and touch ``nbytes`` bytes (tests of dpviz_ui.workers.run_limited's memory limit); returns the size."""
    block = bytearray(nbytes)
    block[::4096] = b"\1" * len(block[::4096])
    return len(block)


def spin() -> None:
    """Burn CPU without end (tests of run_limited's CPU limit)."""
    x = 0
    while True:
        x += 1
