"""Every formula renders on every page of the dashboard (issue 30, item 3), in a real browser: the second half of the
walk of tests/test_browser_pages_katex.py (which holds the walk and says what it checks) -- Simulate, Accounting,
Audit, Lessons and Live class, each in its default state and in states that show more formulas.  A file of its own so
that xdist runs the two halves in parallel."""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import CHROMIUM  # noqa: E402  (the shared `server` fixture starts the dashboard)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

from test_browser_pages_katex import STATES_MORE, walk  # noqa: E402


def test_every_page_renders_every_formula_simulate_to_live_class(server):
    problems, counts = walk(server, STATES_MORE)
    assert not problems, "\n".join(problems)
    # the walk saw formulas: a lesson step that shows formulas drew them
    assert counts["lessons_bounds"] > 0, counts
