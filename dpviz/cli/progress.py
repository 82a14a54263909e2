"""The progress line of long command-line runs (``audit``, ``stability``, ``reproduce``), in one place.

Imported by :mod:`dpviz.cli.commands` and :mod:`dpviz.cli.audit`; it imports neither (no import cycle).
"""

from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """Progress of a run on stderr.  On a terminal: ``\rname: 42.0 %`` rewritten in place, the line ended with a
    newline when the run ends, even by an error.  Written to a file or a pipe (no terminal to rewrite a line in):
    one whole line per 10 % step reached (``name:  10.0 %``, ..., ``name: 100.0 %``), so a log reads line by line.
    Used by ``audit``, ``stability`` and ``reproduce``."""

    def __init__(self, name, stream=None):
        self.name, self.started = name, False
        self.stream = sys.stderr if stream is None else stream
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self.last_step = -1

    def __call__(self, frac: float) -> None:
        frac = min(1.0, max(0.0, float(frac)))
        if self.tty:
            self.started = True
            print(f"\r{self.name}: {100 * frac:5.1f} %", end="", file=self.stream, flush=True)
            return
        step = int(frac * 10 + 1e-9)  # 0 .. 10: a line each time a new tenth is reached
        if step > self.last_step and (step > 0 or frac > 0):
            self.last_step = step
            print(f"{self.name}: {10.0 * step:5.1f} %", file=self.stream, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.started:
            print(file=self.stream, flush=True)
        return False
