"""The class-session store: classes, their step and reveals, and the students' answers, in a real database.

**Where.** An embedded SQLite file ``classes.sqlite3`` under the data directory (``DPVIZ_DATA_DIR``, default
``~/.local/share/dpviz``), created on first use, in WAL mode (readers never wait for the writer; several processes
may share the file).  When ``DPVIZ_CLASS_DB`` is a PostgreSQL URL (``postgresql://user:pw@host/db``) the same code
runs against PostgreSQL through SQLAlchemy (driver psycopg 3), so several dashboard processes behind one address
share a class.

**Tables.** ``classes`` (code, SHA-256 of the presenter key, lesson id, number of steps, current step, ended flag,
created / expires times), ``reveals`` (class, question, the right answer as JSON; a question is revealed when it has
a row) and ``answers`` (class, question, student id, value, time; primary key (class, question, student), so a new
submission replaces the student's earlier one: an upsert).  A question is identified by its step number.

**Class codes** are 8 symbols of Crockford's base-32 alphabet (no I, L, O, U), drawn with :mod:`secrets`: 32^8 =
2^40 ≈ 1.1·10^12 codes.  A class expires 12 h after it starts (``ttl_s``).  Failed look-ups are limited to
:data:`FAILED_LOOKUPS_PER_CLIENT` a minute per client and :data:`FAILED_LOOKUPS_PER_PROCESS` a minute per server
process (:meth:`ClassStore.find`); at 100 a minute, with 1 000 classes open at once, finding any one of them takes
1.1·10^12 / 1 000 / 100 minutes ≈ 21 years on average, and the chance of hitting one within a class's 12 h is
12 · 60 · 100 · 1 000 / 1.1·10^12 ≈ 6.5·10^-5.

**Presenter key**: :func:`secrets.token_urlsafe` of 24 bytes (192 bits), stored only as its SHA-256 (a key of 192
random bits needs no slow hash) and compared with :func:`hmac.compare_digest`.  Only a call with the key moves the
step, reveals, ends the class or exports the answers; a wrong or missing key raises :class:`Refused` and changes
nothing.

**Answers** are stored normalised (:func:`dpviz_ui.classroom.results.normalise`: a number's shortest repr, or one of
the question's options), at most :data:`MAX_VALUE_CHARS` characters; each student may submit
:data:`SUBMITS_PER_WINDOW` times per :data:`SUBMIT_WINDOW_S` seconds (:mod:`.limits`); a question takes at most
:data:`MAX_STUDENTS` students.  Answers to a revealed question, or of an ended or expired class, are refused.
Expired classes are deleted with their answers when the next class starts (:meth:`ClassStore.purge_expired`).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from dpviz_ui.classroom.limits import RateLimiter

#: Crockford's base-32 alphabet: digits and letters without I, L, O, U (read aloud and typed without confusion)
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8
#: a class lives this long after it starts (seconds)
DEFAULT_TTL_S = 12 * 3600
MAX_VALUE_CHARS = 64
MAX_STUDENTS = 1000
MAX_STEPS = 200
SUBMITS_PER_WINDOW = 8
SUBMIT_WINDOW_S = 30.0
FAILED_LOOKUPS_PER_CLIENT = 10
FAILED_LOOKUPS_PER_PROCESS = 100
KEY_BYTES = 24
STUDENT_ID = re.compile(r"[0-9a-f]{16,64}")
LESSON_ID = re.compile(r"[a-z0-9_-]{1,40}")

metadata = sa.MetaData()
classes = sa.Table(
    "classes", metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("key_hash", sa.String(64), nullable=False),
    sa.Column("lesson_id", sa.String(40), nullable=False),
    sa.Column("n_steps", sa.Integer, nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("ended", sa.Boolean, nullable=False, default=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False, index=True),
    sa.Column("updated_at", sa.Float, nullable=False),
)
reveals = sa.Table(
    "reveals", metadata,
    sa.Column("class_code", sa.String(CODE_LENGTH), sa.ForeignKey("classes.code", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("question", sa.Integer, primary_key=True),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("revealed_at", sa.Float, nullable=False),
)
answers = sa.Table(
    "answers", metadata,
    sa.Column("class_code", sa.String(CODE_LENGTH), sa.ForeignKey("classes.code", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("question", sa.Integer, primary_key=True),
    sa.Column("student", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(MAX_VALUE_CHARS), nullable=False),
    sa.Column("submitted_at", sa.Float, nullable=False),
)


class Refused(Exception):
    """An action the request may not do (a wrong or missing presenter key, an ended class, a closed question, too
    many submissions); its message is the one line shown to the user."""


@dataclass(frozen=True)
class ClassState:
    code: str
    lesson_id: str
    n_steps: int
    step: int
    ended: bool
    created_at: float
    expires_at: float
    updated_at: float
    revealed: dict  # question (step number) -> the right answer as revealed (a dict)

    @property
    def display_code(self) -> str:
        return display_code(self.code)

    @property
    def version(self) -> tuple:
        """(step, ended, updated_at, number of reveals): what :meth:`ClassStore.versions` reads for this class."""
        return (self.step, self.ended, self.updated_at, len(self.revealed))


def new_code() -> str:
    """A fresh class code: :data:`CODE_LENGTH` symbols of :data:`ALPHABET` from :mod:`secrets` (40 bits)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def display_code(code: str) -> str:
    """``ABCD2345`` as ``ABCD-2345`` (easier to read out)."""
    return f"{code[:4]}-{code[4:]}"


def normalise_code(text) -> str | None:
    """The class code in what a person typed (case, spaces and dashes ignored; O read as 0, I and L as 1, U as V),
    or None when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    s = re.sub(r"[\s\-]", "", text).upper().translate(str.maketrans("OILU", "011V"))
    if len(s) != CODE_LENGTH or any(ch not in ALPHABET for ch in s):
        return None
    return s


def new_student_id() -> str:
    """A random anonymous student id (64 bits, hex)."""
    return secrets.token_hex(8)


def _hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------------------------------------------------
# where the database is
# ----------------------------------------------------------------------------------------------------------------------
def data_dir() -> Path:
    """``DPVIZ_DATA_DIR``, else ``$XDG_DATA_HOME/dpviz``, else ``~/.local/share/dpviz``."""
    env = os.environ.get("DPVIZ_DATA_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "dpviz"


def database_url() -> str:
    """The store's SQLAlchemy URL: ``DPVIZ_CLASS_DB`` (a ``postgresql://`` or ``sqlite:///`` URL) if set, else the
    SQLite file ``classes.sqlite3`` in :func:`data_dir`."""
    env = os.environ.get("DPVIZ_CLASS_DB", "").strip()
    if env:
        return _check_url(env)
    return f"sqlite:///{data_dir() / 'classes.sqlite3'}"


def _check_url(url: str) -> str:
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith(("postgresql+psycopg://", "postgresql+psycopg2://", "sqlite:///")):
        return url
    raise ValueError("DPVIZ_CLASS_DB must be a PostgreSQL URL (postgresql://user:password@host/database) or a "
                     "SQLite URL (sqlite:///path/classes.sqlite3)")


_ENGINES: dict = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(url: str) -> sa.Engine:
    """One engine per URL and process, its tables created on first use (SQLite: the folder too, WAL mode)."""
    url = _check_url(url)
    with _ENGINES_LOCK:
        eng = _ENGINES.get(url)
        if eng is not None:
            return eng
        if url.startswith("sqlite"):
            path = Path(url[len("sqlite:///"):])
            path.parent.mkdir(parents=True, exist_ok=True)
            eng = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                                   pool_size=8, max_overflow=16)

            @sa.event.listens_for(eng, "connect")
            def _pragmas(dbapi_conn, _record):
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.execute("PRAGMA busy_timeout=30000")
                cur.close()
        else:
            eng = sa.create_engine(url, pool_size=8, max_overflow=16, pool_pre_ping=True)
        for attempt in range(3):
            try:
                metadata.create_all(eng)
                break
            except sa.exc.SQLAlchemyError:  # another process created the tables at the same moment
                if attempt == 2:
                    raise
                time.sleep(0.2)
        _ENGINES[url] = eng
        return eng


def _insert(eng: sa.Engine, table: sa.Table):
    if eng.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


# process-wide limits (a student's session lives in one process)
_SUBMITS = RateLimiter(SUBMITS_PER_WINDOW, SUBMIT_WINDOW_S)
_FAILED_CLIENT = RateLimiter(FAILED_LOOKUPS_PER_CLIENT, 60.0)
_FAILED_PROCESS = RateLimiter(FAILED_LOOKUPS_PER_PROCESS, 60.0)


class ClassStore:
    """The classes and answers in the database at ``url`` (default :func:`database_url`)."""

    def __init__(self, url: str | None = None, *, clock=time.time):
        self.url = _check_url(url) if url else database_url()
        self.engine = engine_for(self.url)
        self.clock = clock
        self.submits = _SUBMITS
        self.failed_client = _FAILED_CLIENT
        self.failed_process = _FAILED_PROCESS

    # --- classes ------------------------------------------------------------------------------------------------------
    def create(self, lesson_id: str, n_steps: int, *, step: int = 1, ttl_s: float = DEFAULT_TTL_S) -> tuple[str, str]:
        """Start a class of ``lesson_id`` (``n_steps`` steps) at ``step``; returns (code, presenter key).  The key
        is returned once and stored only hashed."""
        if not isinstance(lesson_id, str) or not LESSON_ID.fullmatch(lesson_id):
            raise ValueError("lesson_id must be a lesson's id (lower-case letters, digits, - and _)")
        n_steps = _int(n_steps, "n_steps", 1, MAX_STEPS)
        step = _int(step, "step", 1, n_steps)
        if not (isinstance(ttl_s, (int, float)) and 60 <= ttl_s <= 7 * 24 * 3600):
            raise ValueError("ttl_s (how long a class lives) must be between 60 s and 7 days")
        self.purge_expired()
        key = secrets.token_urlsafe(KEY_BYTES)
        now = self.clock()
        for _ in range(10):
            code = new_code()
            try:
                with self.engine.begin() as conn:
                    conn.execute(classes.insert().values(
                        code=code, key_hash=_hash_key(key), lesson_id=lesson_id, n_steps=n_steps, step=step,
                        ended=False, created_at=now, expires_at=now + float(ttl_s), updated_at=now))
                return code, key
            except sa.exc.IntegrityError:  # the code is taken (about once in 10^9 starts with 1 000 classes open)
                continue
        raise RuntimeError("could not draw a free class code")

    def get(self, code) -> ClassState | None:
        """The class with ``code`` (as typed: see :func:`normalise_code`), or None if there is none or it expired."""
        code = normalise_code(code)
        if code is None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(classes).where(classes.c.code == code)).mappings().first()
            if row is None or row["expires_at"] <= self.clock():
                return None
            revealed = {int(r.question): json.loads(r.answer) for r in conn.execute(
                sa.select(reveals.c.question, reveals.c.answer).where(reveals.c.class_code == code))}
        return ClassState(code=row["code"], lesson_id=row["lesson_id"], n_steps=int(row["n_steps"]),
                          step=int(row["step"]), ended=bool(row["ended"]), created_at=float(row["created_at"]),
                          expires_at=float(row["expires_at"]), updated_at=float(row["updated_at"]),
                          revealed=revealed)

    def versions(self, codes) -> dict:
        """``{code: version}`` of the (unexpired) classes among ``codes``, in one read: a class's version is
        (step, ended, updated_at, number of reveals) and changes with every Next / Back, Reveal and End, so a page
        that follows the class compares it with the version it shows (:mod:`.watcher` reads it for a whole server
        process).  Codes that are malformed, unknown or expired are left out."""
        wanted = sorted({c for c in (normalise_code(c) for c in codes) if c is not None})
        if not wanted:
            return {}
        now = self.clock()
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(classes.c.code, classes.c.step, classes.c.ended, classes.c.updated_at,
                                          classes.c.expires_at).where(classes.c.code.in_(wanted))).all()
            n_rev = dict(conn.execute(sa.select(reveals.c.class_code, sa.func.count()).where(
                reveals.c.class_code.in_(wanted)).group_by(reveals.c.class_code)).all())
        return {r.code: (int(r.step), bool(r.ended), float(r.updated_at), int(n_rev.get(r.code, 0)))
                for r in rows if r.expires_at > now}

    def find(self, code, client: str) -> ClassState | None:
        """:meth:`get` for a student who typed or followed a code, rate-limited: after
        :data:`FAILED_LOOKUPS_PER_CLIENT` failed look-ups a minute from ``client`` (or
        :data:`FAILED_LOOKUPS_PER_PROCESS` from everyone in this process) :class:`Refused` until the minute passes."""
        if self.failed_client.blocked(client) or self.failed_process.blocked("all"):
            raise Refused("Too many wrong class codes were tried: wait a minute, then check the code with your "
                          "lecturer.")
        cls = self.get(code)
        if cls is None:
            self.failed_client.record(client)
            self.failed_process.record("all")
        return cls

    def check_key(self, code, key) -> bool:
        """Whether ``key`` is the presenter key of the (unexpired) class ``code``; constant-time comparison."""
        code = normalise_code(code)
        if code is None or not isinstance(key, str) or not key or len(key) > 200:
            return False
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(classes.c.key_hash, classes.c.expires_at)
                               .where(classes.c.code == code)).first()
        if row is None or row.expires_at <= self.clock():
            return False
        return hmac.compare_digest(row.key_hash, _hash_key(key))

    def _presenter(self, code, key) -> str:
        if not self.check_key(code, key):
            raise Refused("This presenter link is not valid for this class (wrong or missing presenter key, or the "
                          "class expired): nothing was changed.")
        return normalise_code(code)

    def set_step(self, code, key, step: int) -> ClassState:
        """Move the class to ``step`` (1-based); presenter only."""
        code = self._presenter(code, key)
        cls = self.get(code)
        if cls.ended:
            raise Refused("This class has ended: nothing was changed.")
        step = _int(step, "step", 1, cls.n_steps)
        with self.engine.begin() as conn:
            conn.execute(classes.update().where(classes.c.code == code).values(step=step, updated_at=self.clock()))
        return self.get(code)

    def reveal(self, code, key, question: int, answer: dict) -> ClassState:
        """Reveal ``question`` (a step number) with its right ``answer`` (a JSON-serialisable dict); presenter only.
        Revealing again keeps the first answer."""
        code = self._presenter(code, key)
        cls = self.get(code)
        question = _int(question, "question", 1, cls.n_steps)
        if not isinstance(answer, dict):
            raise ValueError("answer must be a dict")
        text = json.dumps(answer, sort_keys=True, allow_nan=False)
        if len(text) > 20000:
            raise ValueError("the revealed answer is too long")
        now = self.clock()
        with self.engine.begin() as conn:
            conn.execute(_insert(self.engine, reveals).values(
                class_code=code, question=question, answer=text, revealed_at=now).on_conflict_do_nothing())
            conn.execute(classes.update().where(classes.c.code == code).values(updated_at=now))
        return self.get(code)

    def end(self, code, key) -> ClassState:
        """End the class (students see that it ended; the answers stay until it expires); presenter only."""
        code = self._presenter(code, key)
        with self.engine.begin() as conn:
            conn.execute(classes.update().where(classes.c.code == code).values(ended=True,
                                                                              updated_at=self.clock()))
        return self.get(code)

    def purge_expired(self) -> int:
        """Delete the expired classes with their reveals and answers; returns how many classes went."""
        now = self.clock()
        with self.engine.begin() as conn:
            old = sa.select(classes.c.code).where(classes.c.expires_at <= now)
            conn.execute(answers.delete().where(answers.c.class_code.in_(old)))
            conn.execute(reveals.delete().where(reveals.c.class_code.in_(old)))
            return conn.execute(classes.delete().where(classes.c.expires_at <= now)).rowcount

    # --- answers ------------------------------------------------------------------------------------------------------
    def submit(self, code, question: int, student: str, value: str) -> None:
        """Record ``student``'s answer ``value`` (already normalised) to ``question``, replacing an earlier one.
        Refused (:class:`Refused`) when the class ended or expired, the question is revealed, the student submits too
        often or the question is full; ValueError for a malformed value or id."""
        if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
            raise ValueError("the student id must be 16 to 64 hexadecimal digits")
        if not isinstance(value, str) or not value or len(value) > MAX_VALUE_CHARS:
            raise ValueError(f"an answer is 1 to {MAX_VALUE_CHARS} characters")
        cls = self.get(code)
        if cls is None:
            raise Refused("This class has ended or expired: your answer was not recorded.")
        question = _int(question, "question", 1, cls.n_steps)
        if cls.ended:
            raise Refused("This class has ended: your answer was not recorded.")
        if question in cls.revealed:
            raise Refused("The answer has been revealed: predictions for this question are closed.")
        if not self.submits.allow((cls.code, student)):
            raise Refused("Too many submissions in a short time: wait a few seconds, then submit again.")
        now = self.clock()
        with self.engine.begin() as conn:
            mine = conn.execute(sa.select(answers.c.student).where(
                answers.c.class_code == cls.code, answers.c.question == question,
                answers.c.student == student)).first()
            if mine is None:
                n = conn.execute(sa.select(sa.func.count()).select_from(answers).where(
                    answers.c.class_code == cls.code, answers.c.question == question)).scalar_one()
                if n >= MAX_STUDENTS:
                    raise Refused(f"This question already has {MAX_STUDENTS} answers: yours was not recorded.")
            stmt = _insert(self.engine, answers).values(class_code=cls.code, question=question, student=student,
                                                        value=value, submitted_at=now)
            conn.execute(stmt.on_conflict_do_update(
                index_elements=[answers.c.class_code, answers.c.question, answers.c.student],
                set_={"value": value, "submitted_at": now}))

    def answer_of(self, code, question: int, student: str) -> str | None:
        """``student``'s recorded answer to ``question``, or None."""
        code = normalise_code(code)
        if code is None or not isinstance(student, str):
            return None
        with self.engine.connect() as conn:
            return conn.execute(sa.select(answers.c.value).where(
                answers.c.class_code == code, answers.c.question == int(question),
                answers.c.student == student)).scalar()

    def values(self, code, question: int) -> list[str]:
        """Every recorded answer to ``question`` (one per student), oldest first."""
        code = normalise_code(code)
        if code is None:
            return []
        with self.engine.connect() as conn:
            return list(conn.execute(sa.select(answers.c.value).where(
                answers.c.class_code == code, answers.c.question == int(question))
                .order_by(answers.c.submitted_at, answers.c.student)).scalars())

    def count(self, code, question: int) -> int:
        """How many students have answered ``question``."""
        code = normalise_code(code)
        if code is None:
            return 0
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(answers).where(
                answers.c.class_code == code, answers.c.question == int(question))).scalar_one())

    def export_csv(self, code, key, titles: dict | None = None) -> str:
        """The class's answers as CSV, anonymous (no student id): ``question`` (step number), ``step`` (its title,
        from ``titles``), ``answer``, ``correct`` (yes / no once revealed, else empty), ``seconds_after_start``;
        presenter only.  Values are the normalised answers (numbers and the questions' options only), so no cell
        starts with a formula character other than a minus sign of a number."""
        from dpviz_ui.classroom.results import is_right

        code = self._presenter(code, key)
        cls = self.get(code)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(answers.c.question, answers.c.value, answers.c.submitted_at).where(
                answers.c.class_code == code).order_by(answers.c.question, answers.c.submitted_at,
                                                       answers.c.student)).all()
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["question", "step", "answer", "correct", "seconds_after_start"])
        for q, value, t in rows:
            rev = cls.revealed.get(int(q))
            right = "" if rev is None else ("yes" if is_right(rev, value) else "no")
            w.writerow([int(q), (titles or {}).get(int(q), ""), value, right, f"{t - cls.created_at:.1f}"])
        return out.getvalue()


def _int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number from {lo} to {hi}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be from {lo} to {hi}, not {value}")
    return int(value)
