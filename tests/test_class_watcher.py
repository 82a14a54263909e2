"""The live class's per-process watcher (dpviz_ui/classroom/watcher.py): one read of the store per interval for every
student page of a process, whatever the number of students and classes; the versions it serves change with Next /
Back, Reveal and End; idle classes are forgotten; a page's own fresher read is not overwritten by an older refresh;
a failing database keeps the last versions.  The store's ``versions`` read itself is tested in
tests/test_class_store.py (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
import time

import pytest

from dpviz_ui.classroom import store as S
from dpviz_ui.classroom import watcher as W

NUMBER = {"kind": "number", "answer": 3.0, "rtol": 0.05, "options": [], "shown": "3"}


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class CountingStore:
    """A real SQLite store whose ``versions`` reads are counted."""

    def __init__(self, url):
        self.store = S.ClassStore(url)
        self.calls: list[list[str]] = []

    def versions(self, codes):
        self.calls.append(list(codes))
        return self.store.versions(codes)


@pytest.fixture
def db(tmp_path):
    return CountingStore(f"sqlite:///{tmp_path / 'classes.sqlite3'}")


def test_many_followers_cost_one_read_per_refresh(db):
    a, key_a = db.store.create("gaussian", 7)
    b, _ = db.store.create("rates", 7)
    w = W.ClassWatcher(db.versions, thread=False)
    first = w.version(a), w.version(b)  # the first look at a class reads it at once
    assert len(db.calls) == 2
    for _ in range(60):  # 60 students' checks: no database read
        assert (w.version(a), w.version(b)) == first
    assert len(db.calls) == 2
    db.store.set_step(a, key_a, 2)
    assert w.version(a) == first[0]  # not read yet: the version of the last refresh
    w.refresh()
    assert db.calls[-1] == sorted([a, b]) and len(db.calls) == 3  # both classes in one read
    assert w.version(a)[0] == 2 and w.version(a) != first[0] and w.version(b) == first[1]
    assert w.reads == 3


def test_versions_follow_next_back_reveal_and_end(db):
    code, key = db.store.create("gaussian", 7)
    w = W.ClassWatcher(db.versions, thread=False)
    seen = [w.version(code)]
    for action in (lambda: db.store.set_step(code, key, 2), lambda: db.store.set_step(code, key, 3),
                   lambda: db.store.set_step(code, key, 2), lambda: db.store.reveal(code, key, 2, NUMBER),
                   lambda: db.store.end(code, key)):
        action()
        w.refresh()
        assert w.version(code) not in seen  # every change is a new version
        seen.append(w.version(code))
    assert [v[0] for v in seen] == [1, 2, 3, 2, 2, 2]
    assert seen[-1][1] is True and seen[-1][3] == 1
    assert w.version(code) == db.store.get(code).version  # the page's full run reads the same version


def test_unknown_class_and_answers_do_not_change_the_version(db):
    code, key = db.store.create("gaussian", 7)
    db.store.set_step(code, key, 2)
    w = W.ClassWatcher(db.versions, thread=False)
    assert w.version("ZZZZ-ZZZZ") is None
    v = w.version(code)
    db.store.submit(code, 2, "0123456789abcdef", "3.0")  # a student's answer: nobody else's page reruns
    w.refresh()
    assert w.version(code) == v


def test_idle_classes_are_no_longer_read(db):
    clock = Clock()
    a, _ = db.store.create("gaussian", 7)
    b, _ = db.store.create("gaussian", 7)
    w = W.ClassWatcher(db.versions, thread=False, clock=clock, idle_s=30)
    w.version(a)
    w.version(b)
    clock.t += 20
    w.version(a)
    clock.t += 15  # b: last asked 35 s ago
    w.refresh()
    assert db.calls[-1] == [a] and w.watched() == [a]
    clock.t += 31
    n = len(db.calls)
    w.refresh()  # nobody follows anything: no read at all
    assert len(db.calls) == n and w.watched() == []


def test_a_pages_fresher_read_is_not_overwritten_by_an_older_refresh(db):
    code, key = db.store.create("gaussian", 7)
    old = db.store.get(code).version
    entered, release = threading.Event(), threading.Event()

    def slow_read(codes):  # a refresh that read before the page's note and returns after it
        got = {code: old}
        entered.set()
        release.wait(5)
        return got

    w = W.ClassWatcher(slow_read, thread=False)
    w.note(code, old, w.clock())
    t = threading.Thread(target=w.refresh)
    t.start()
    assert entered.wait(5)
    read_at = w.clock()
    db.store.set_step(code, key, 2)
    new = db.store.get(code).version
    w.note(code, new, read_at)  # the page's full run has just read step 2
    release.set()
    t.join(5)
    assert w.version(code) == new


def test_a_slow_pages_older_read_does_not_move_the_version_back(db):
    """Sixty pages share one version per class: a page whose run read the class before the latest refresh must not
    set the older version for everyone (every other page would draw itself again)."""
    clock = Clock()
    code, key = db.store.create("gaussian", 7)
    w = W.ClassWatcher(db.versions, thread=False, clock=clock)
    slow_read_at = clock()
    old = db.store.get(code).version  # a slow page reads step 1 ...
    db.store.set_step(code, key, 2)
    clock.t += 0.5
    w.refresh()  # ... the watcher reads step 2 after it ...
    new = w.version(code)
    assert new[0] == 2
    clock.t += 0.1
    w.note(code, old, slow_read_at)  # ... and the slow page reports its older read afterwards
    assert w.version(code) == new
    w.note(code, new, clock())
    assert w.version(code) == new


def test_the_thread_refreshes_and_survives_a_failing_database(db):
    code, key = db.store.create("gaussian", 7)
    broken = threading.Event()

    def read(codes):
        if broken.is_set():
            raise RuntimeError("the database is restarting")
        return db.versions(codes)

    w = W.ClassWatcher(read, interval=0.05)
    try:
        v1 = w.version(code)
        broken.set()
        db.store.set_step(code, key, 2)
        time.sleep(0.3)  # several failed refreshes
        assert w.version(code) == v1  # the last version is kept
        broken.clear()
        deadline = time.monotonic() + 30
        while w.version(code) == v1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert w.version(code)[0] == 2
    finally:
        w.stop()


def test_one_watcher_per_database_and_validated_settings(tmp_path):
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    assert W.for_url(url) is W.for_url(url)
    assert W.for_url(url) is not W.for_url(f"sqlite:///{tmp_path / 'y.sqlite3'}")
    with pytest.raises(ValueError, match="positive"):
        W.ClassWatcher(lambda codes: {}, interval=0)
