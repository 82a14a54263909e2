"""serve.py's lesson warm-up gives way to the visitors' page runs (issue 35: on a loaded machine it held back the first
page loads of a class): one lesson at a time, each started only when no page run is in progress (or after max_wait)."""

import threading
import time

import serve
from dpviz_ui import lessons


def test_the_warm_up_computes_every_lesson_once_in_order(monkeypatch):
    done = []
    monkeypatch.setattr(lessons, "precompute", lambda ids: done.append(tuple(ids)) or 0.5)
    assert serve.precompute_lessons() == 0.5 * len(lessons.LESSONS)
    assert done == [(les.id,) for les in lessons.LESSONS]


def test_the_warm_up_waits_while_a_page_runs(monkeypatch):
    started = []
    monkeypatch.setattr(lessons, "precompute", lambda ids: started.append(time.monotonic()) or 0.0)
    release = threading.Event()
    page = threading.Thread(target=release.wait, name="ScriptRunner.scriptThread", daemon=True)
    page.start()
    assert serve._page_runs_in_progress()
    t0 = time.monotonic()
    threading.Timer(0.6, release.set).start()  # the visitor's run ends after 0.6 s
    serve.precompute_lessons(max_wait=10.0)
    page.join(5)
    assert not serve._page_runs_in_progress()
    assert started and started[0] - t0 >= 0.55  # nothing computed while the page ran


def test_the_warm_up_does_not_wait_for_ever(monkeypatch):
    monkeypatch.setattr(lessons, "precompute", lambda ids: 0.0)
    release = threading.Event()
    page = threading.Thread(target=release.wait, name="ScriptRunner.scriptThread", daemon=True)
    page.start()
    try:
        t0 = time.monotonic()
        serve.precompute_lessons(max_wait=0.2)
        assert time.monotonic() - t0 < 0.2 * len(lessons.LESSONS) + 2.0
    finally:
        release.set()
        page.join(5)
