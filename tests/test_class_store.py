"""The live class's store (dpviz_ui/classroom/store.py) against SQLite (always) and a throwaway PostgreSQL server
that the tests start themselves (tests/_postgres.py: initdb + pg_ctl in a temporary directory; skipped, with the
reason, where PostgreSQL's binaries are absent), and the predictions' parsing and distribution (results.py)."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from dpviz_ui.classroom import results as R
from dpviz_ui.classroom import store as S
from dpviz_ui.classroom.limits import RateLimiter
from dpviz_ui.lessons import Question

import _postgres


@pytest.fixture(scope="module")
def pg_server():
    try:
        srv = _postgres.start()
    except _postgres.Unavailable as exc:
        pytest.skip(str(exc))
    yield srv
    srv.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'classes.sqlite3'}"
    return request.getfixturevalue("pg_server").create_database()


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(db_url, clock):
    s = S.ClassStore(db_url, clock=clock)
    s.submits = RateLimiter(S.SUBMITS_PER_WINDOW, S.SUBMIT_WINDOW_S)
    s.failed_client = RateLimiter(S.FAILED_LOOKUPS_PER_CLIENT, 60.0)
    s.failed_process = RateLimiter(S.FAILED_LOOKUPS_PER_PROCESS, 60.0)
    return s


def sid(i: int) -> str:
    return f"{i:016x}"


NUMBER = {"kind": "number", "answer": 3.0, "rtol": 0.05, "options": [], "shown": "3"}
CHOICE = {"kind": "choice", "answer": "yes", "rtol": 0.1, "options": ["yes", "no"], "shown": "yes"}


# --- codes and keys ---------------------------------------------------------------------------------------------------
def test_code_space_is_40_bits_and_codes_are_drawn_from_it():
    assert len(S.ALPHABET) == 32 == len(set(S.ALPHABET))
    assert not set("ILOU") & set(S.ALPHABET)
    assert len(S.ALPHABET) ** S.CODE_LENGTH == 2 ** 40 == 1_099_511_627_776
    codes = {S.new_code() for _ in range(2000)}
    assert len(codes) == 2000  # P(any collision) = 2000^2 / 2 / 2^40 ≈ 1.8e-6
    assert all(len(c) == 8 and set(c) <= set(S.ALPHABET) for c in codes)
    # every symbol appears at each position (16 000 draws per position ~ 500 each)
    assert set("".join(codes)) == set(S.ALPHABET)


def test_code_as_typed():
    assert S.normalise_code("abcd-2345") == "ABCD2345"
    assert S.normalise_code(" ab cd 23 45 ") == "ABCD2345"
    assert S.normalise_code("ABCD-O1IL") == "ABCD0111"  # O read as 0, I and L as 1
    assert S.normalise_code("ABCDUUUU") == "ABCDVVVV"
    for bad in ("ABC", "ABCD23456", "ABCD-23!5", "", None, 12345678, "A" * 100):
        assert S.normalise_code(bad) is None
    assert S.display_code("ABCD2345") == "ABCD-2345"


def test_presenter_key_is_long_and_stored_only_hashed(store, db_url):
    code, key = store.create("gaussian", 7)
    assert S.KEY_BYTES * 8 >= 128 and len(key) >= 32  # token_urlsafe(24): 32 characters, 192 bits
    with store.engine.connect() as conn:
        rows = [tuple(map(str, r)) for r in conn.execute(sa.select(S.classes))]
    assert rows and not any(key in cell for row in rows for cell in row)
    import hashlib

    assert rows[0][1] == hashlib.sha256(key.encode()).hexdigest()
    assert store.check_key(code, key)
    assert store.check_key(code.lower(), key)
    assert not store.check_key(code, key[:-1])
    assert not store.check_key(code, key + "x")
    assert not store.check_key(code, "")
    assert not store.check_key(code, None)


def test_create_validates(store):
    for kw in ({"lesson_id": "<b>", "n_steps": 3}, {"lesson_id": "x", "n_steps": 0},
               {"lesson_id": "x", "n_steps": 3, "step": 4}, {"lesson_id": "x", "n_steps": 3, "ttl_s": 1},
               {"lesson_id": "x", "n_steps": 2.5}):
        with pytest.raises(ValueError):
            store.create(**kw)


# --- the presenter's actions ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["set_step", "reveal", "end", "export_csv"])
@pytest.mark.parametrize("bad_key", ["wrong", "", None, "other-class"])
def test_every_presenter_action_refuses_a_wrong_key_and_changes_nothing(store, action, bad_key):
    code, key = store.create("gaussian", 7)
    other_code, other_key = store.create("gaussian", 7)
    store.submit(code, 2, sid(1), "3.0")
    before = store.get(code)
    if bad_key == "other-class":
        bad_key = other_key
    elif bad_key == "wrong":
        bad_key = key[:-2] + ("AA" if not key.endswith("AA") else "BB")
    call = {"set_step": lambda k: store.set_step(code, k, 3), "reveal": lambda k: store.reveal(code, k, 2, NUMBER),
            "end": lambda k: store.end(code, k), "export_csv": lambda k: store.export_csv(code, k)}[action]
    with pytest.raises(S.Refused, match="presenter link is not valid"):
        call(bad_key)
    after = store.get(code)
    assert after == before
    assert store.values(code, 2) == ["3.0"]
    call(key)  # the right key does it
    assert store.get(other_code).step == 1 and not store.get(other_code).ended


def test_step_moves_with_the_key_only_within_the_lesson(store):
    code, key = store.create("gaussian", 7)
    assert store.get(code).step == 1
    for k in (2, 3, 7, 6, 1):
        assert store.set_step(code, key, k).step == k
        assert store.get(code).step == k
    for bad in (0, 8, -1, 2.0, "3", True):
        with pytest.raises(ValueError):
            store.set_step(code, key, bad)
    assert store.get(code).step == 1


def test_reveal_and_end(store):
    code, key = store.create("gaussian", 7, step=2)
    store.submit(code, 2, sid(1), "3.1")
    cls = store.reveal(code, key, 2, NUMBER)
    assert cls.revealed == {2: NUMBER}
    store.reveal(code, key, 2, {**NUMBER, "answer": 99.0})  # revealing again keeps the first answer
    assert store.get(code).revealed[2]["answer"] == 3.0
    with pytest.raises(S.Refused, match="revealed"):
        store.submit(code, 2, sid(2), "3.0")
    assert store.values(code, 2) == ["3.1"]
    store.submit(code, 3, sid(2), "1.0")  # another question is still open
    cls = store.end(code, key)
    assert cls.ended
    with pytest.raises(S.Refused, match="ended"):
        store.submit(code, 3, sid(3), "1.0")
    with pytest.raises(S.Refused, match="ended"):
        store.set_step(code, key, 3)
    assert store.count(code, 3) == 1  # the answers stay until the class expires


# --- answers ----------------------------------------------------------------------------------------------------------
def test_one_answer_per_student_per_question(store):
    code, key = store.create("gaussian", 7)
    store.submit(code, 2, sid(1), "1.0")
    store.submit(code, 2, sid(2), "2.0")
    store.submit(code, 2, sid(1), "5.0")  # replaces student 1's 1.0
    store.submit(code, 3, sid(1), "7.0")  # another question: its own answer
    assert sorted(store.values(code, 2)) == ["2.0", "5.0"]
    assert store.count(code, 2) == 2 and store.count(code, 3) == 1
    assert store.answer_of(code, 2, sid(1)) == "5.0"
    assert store.answer_of(code, 2, sid(9)) is None


def test_answers_are_validated(store):
    code, _ = store.create("gaussian", 7)
    for student, value in ((sid(1), ""), (sid(1), "x" * 65), (sid(1), None), ("not-hex", "1.0"), ("ab", "1.0"),
                           (sid(1) + "<", "1.0")):
        with pytest.raises(ValueError):
            store.submit(code, 2, student, value)
    for q in (0, 8, "2", 2.0):
        with pytest.raises(ValueError):
            store.submit(code, q, sid(1), "1.0")
    with pytest.raises(S.Refused):
        store.submit("ZZZZZZZZ", 2, sid(1), "1.0")
    assert store.count(code, 2) == 0


def test_a_flood_from_one_student_is_rate_limited(store):
    code, _ = store.create("gaussian", 7)
    store.submits = RateLimiter(8, 30.0)
    for i in range(8):
        store.submit(code, 2, sid(1), f"{i}.0")
    with pytest.raises(S.Refused, match="Too many submissions"):
        store.submit(code, 2, sid(1), "99.0")
    assert store.answer_of(code, 2, sid(1)) == "7.0"
    store.submit(code, 2, sid(2), "1.0")  # another student is not held back


def test_rate_limiter_window():
    lim = RateLimiter(3, 10.0)
    assert [lim.allow("a", now=t) for t in (0, 1, 2, 3)] == [True, True, True, False]
    assert lim.allow("b", now=3)
    assert lim.allow("a", now=10.5)  # the event at t=0 left the window
    assert not lim.allow("a", now=10.6)
    with pytest.raises(ValueError):
        RateLimiter(0, 1.0)


def test_students_per_question_are_capped(store, monkeypatch):
    monkeypatch.setattr(S, "MAX_STUDENTS", 3)
    code, _ = store.create("gaussian", 7)
    for i in range(3):
        store.submit(code, 2, sid(i), "1.0")
    with pytest.raises(S.Refused, match="3 answers"):
        store.submit(code, 2, sid(9), "1.0")
    store.submit(code, 2, sid(0), "2.0")  # a student already counted may still change their answer
    assert store.count(code, 2) == 3


def test_wrong_codes_are_rate_limited(store):
    code, _ = store.create("gaussian", 7)
    for i in range(S.FAILED_LOOKUPS_PER_CLIENT):
        assert store.find("ZZZZ-ZZZ" + S.ALPHABET[i], client="10.0.0.1") is None
    with pytest.raises(S.Refused, match="Too many wrong class codes"):
        store.find(code, client="10.0.0.1")  # even the right code, for a minute
    assert store.find(code, client="10.0.0.2").code == code  # another client
    store.failed_process = RateLimiter(3, 60.0)
    for i in range(3):
        store.find("YYYY-YYY" + S.ALPHABET[i], client=f"10.1.0.{i}")
    with pytest.raises(S.Refused):
        store.find(code, client="10.2.0.1")


def test_classes_expire_after_12_hours(store, clock):
    code, key = store.create("gaussian", 7)
    store.submit(code, 2, sid(1), "1.0")
    assert S.DEFAULT_TTL_S == 12 * 3600
    clock.t += 12 * 3600 - 1
    assert store.get(code) is not None
    clock.t += 1
    assert store.get(code) is None
    assert not store.check_key(code, key)
    with pytest.raises(S.Refused):
        store.set_step(code, key, 2)
    with pytest.raises(S.Refused):
        store.submit(code, 2, sid(2), "1.0")
    new_code, _ = store.create("gaussian", 7)  # starting a class deletes the expired ones with their answers
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(S.answers)).scalar_one() == 0
        assert conn.execute(sa.select(S.classes.c.code)).scalars().all() == [new_code]


def test_csv_export_is_anonymous(store):
    code, key = store.create("gaussian", 7, step=2)
    clock = store.clock
    store.submit(code, 2, sid(1), "3.1")     # |3.1 - 3| = 0.1 <= 0.05 * 3 = 0.15: right
    clock.t += 2.5
    store.submit(code, 2, sid(2), "3.2")     # 0.2 > 0.15: wrong
    store.submit(code, 6, sid(1), "no")
    store.reveal(code, key, 2, NUMBER)
    text = store.export_csv(code, key, titles={2: "Halve ε", 6: "Private?"})
    lines = text.strip().split("\n")
    assert lines[0] == "question,step,answer,correct,seconds_after_start"
    assert lines[1:] == ["2,Halve ε,3.1,yes,0.0", "2,Halve ε,3.2,no,2.5", "6,Private?,no,,2.5"]
    assert sid(1) not in text and sid(2) not in text


def test_concurrent_submissions_all_count(store):
    code, _ = store.create("gaussian", 7)
    errors = []

    def student_batch(b: int):
        try:
            for i in range(25):
                store.submit(code, 2, sid(1000 * b + i), f"{b}.{i}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=student_batch, args=(b,)) for b in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.count(code, 2) == 200


def test_a_new_process_sees_everything(db_url, clock):
    """What a server restart does to the store: a fresh engine on the same database finds the class, its step, its
    reveals and every answer."""
    s1 = S.ClassStore(db_url, clock=clock)
    code, key = s1.create("rates", 7)
    s1.set_step(code, key, 3)
    for i in range(5):
        s1.submit(code, 3, sid(i), f"{i}.0")
    s1.reveal(code, key, 3, NUMBER)
    s1.engine.dispose()
    S._ENGINES.clear()
    s2 = S.ClassStore(db_url, clock=clock)
    assert s2.engine is not s1.engine
    cls = s2.get(code)
    assert (cls.lesson_id, cls.step, cls.revealed) == ("rates", 3, {3: NUMBER})
    assert sorted(s2.values(code, 3)) == [f"{i}.0" for i in range(5)]
    assert s2.check_key(code, key)


def test_sqlite_file_in_data_dir_in_wal_mode(tmp_path, monkeypatch):
    monkeypatch.delenv("DPVIZ_CLASS_DB", raising=False)
    monkeypatch.setenv("DPVIZ_DATA_DIR", str(tmp_path / "new" / "dir"))
    assert S.database_url() == f"sqlite:///{tmp_path / 'new' / 'dir' / 'classes.sqlite3'}"
    s = S.ClassStore()
    s.create("gaussian", 7)
    assert (tmp_path / "new" / "dir" / "classes.sqlite3").exists()
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_database_url_from_env(monkeypatch):
    monkeypatch.setenv("DPVIZ_CLASS_DB", "postgresql://u:p@db.example/dpviz")
    assert S.database_url() == "postgresql+psycopg://u:p@db.example/dpviz"
    for bad in ("mysql://u@h/d", "ftp://x", "classes.sqlite3"):
        monkeypatch.setenv("DPVIZ_CLASS_DB", bad)
        with pytest.raises(ValueError, match="PostgreSQL URL"):
            S.database_url()


def test_postgresql_is_really_used(pg_server):
    url = pg_server.create_database()
    s = S.ClassStore(url)
    assert s.engine.dialect.name == "postgresql"
    code, _ = s.create("gaussian", 7)
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM classes").scalar() == 1
        assert "PostgreSQL" in conn.exec_driver_sql("SELECT version()").scalar()


# --- predictions and the distribution ---------------------------------------------------------------------------------
def test_predictions_are_parsed_as_everywhere_in_dpviz():
    q = Question(prompt="?", solver="x")
    for typed in ("60000", "6e4", "60,000", "60 000", "6.0E4", " 60000 "):
        assert R.normalise(q, typed) == "60000.0"
    assert R.normalise(q, "−0.5") == "-0.5"
    assert R.normalise(q, "1e-6") == "1e-06"
    for bad in ("", "  ", "abc", "1,5", "nan", "inf", "1e999", "=1+1", "<b>1</b>", "1" * 65, None):
        with pytest.raises(ValueError):
            R.normalise(q, bad)
    c = Question(prompt="?", solver="x", kind="choice", options=("yes", "no"))
    assert R.normalise(c, "yes") == "yes"
    for bad in ("Yes", "maybe", "", None, "yes "):
        with pytest.raises(ValueError, match="choose one of yes, no"):
            R.normalise(c, bad)


def test_share_within_tolerance():
    # answer 3, rtol 5 %: right means |x - 3| <= 0.15 -> 2.9, 3.0, 3.15 right; 2.8, 3.2, 30 wrong
    s = R.summary(NUMBER, ["2.9", "3.0", "3.15", "2.8", "3.2", "30.0"])
    assert (s["n"], s["n_right"]) == (6, 3) and s["share"] == 0.5
    c = R.summary(CHOICE, ["yes", "no", "no", "yes", "yes"])
    assert c["counts"] == {"yes": 3, "no": 2} and c["share"] == 0.6
    assert R.summary(NUMBER, [])["share"] is None


def test_log_axis_only_where_the_spread_needs_it():
    assert not R.use_log_axis([2.0, 4.0, 10.0], 3.0)      # factor 5
    assert R.use_log_axis([0.5, 4.0, 60.0], 3.0)          # factor 120
    assert not R.use_log_axis([-1.0, 4.0, 600.0], 3.0)    # a non-positive value: linear
    fig = R.distribution_figure(NUMBER, ["0.5", "3.0", "60.0", "3000.0"], mine="60.0")
    assert fig.layout.xaxis.title.text == "prediction (log scale)"
    assert list(fig.layout.xaxis.tickvals) == [-1, 0, 1, 2, 3, 4][: len(fig.layout.xaxis.tickvals)]
    bars = fig.data[0]
    assert sum(bars.y) == 4
    lin = R.distribution_figure(NUMBER, ["2.9", "3.0", "3.5"])
    assert lin.layout.xaxis.title.text == "prediction" and sum(lin.data[0].y) == 3
    ch = R.distribution_figure(CHOICE, ["yes", "no", "no"], mine="no")
    assert list(ch.data[0].x) == ["yes", "no"] and list(ch.data[0].y) == [1, 2]
    assert ch.data[0].marker.color[0] != ch.data[0].marker.color[1]  # the right answer stands out
    assert R.distribution_figure(NUMBER, []).data == ()  # no answers: only the answer's mark


def test_qr_code_is_a_png_drawn_locally():
    png = R.qr_png("http://192.168.1.5:8501/class?join=ABCD2345")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        R.qr_png("")


def test_versions_in_one_read_change_with_every_presenter_action(store, clock):
    """The version the per-process watcher reads (step, ended, updated_at, reveals): a Reveal changes it even when
    the clock did not move; answers do not; expired and malformed codes are left out."""
    a, key = store.create("gaussian", 7)
    b, _ = store.create("rates", 7, step=3)
    v = store.versions([a, S.display_code(b), "nonsense", None])
    assert set(v) == {a, b} and v[a][0] == 1 and v[b][0] == 3
    assert v[a] == store.get(a).version
    seen = [v[a]]
    store.set_step(a, key, 2)
    seen.append(store.versions([a])[a])
    store.submit(a, 2, sid(1), "3.0")
    assert store.versions([a])[a] == seen[-1]
    store.reveal(a, key, 2, NUMBER)  # same clock: the number of reveals tells
    seen.append(store.versions([a])[a])
    store.end(a, key)
    seen.append(store.versions([a])[a])
    assert len(set(seen)) == 4 and seen[-1] == store.get(a).version
    assert store.versions([]) == {}
    clock.t += S.DEFAULT_TTL_S + 1
    assert store.versions([a, b]) == {}
