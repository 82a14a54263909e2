"""A throwaway PostgreSQL server for the tests: ``initdb`` + ``pg_ctl`` in a temporary directory (Debian's
``postgresql`` package, which ``.ci/run`` installs), listening only on a Unix socket in that directory, stopped and
deleted at the end.  :func:`start` raises :class:`Unavailable` with the reason when it cannot run here (the tests
then skip with that reason, never silently)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time


class Unavailable(RuntimeError):
    pass


def _binaries() -> tuple[str, str]:
    found = []
    for name in ("initdb", "pg_ctl"):
        path = shutil.which(name)
        if path is None:
            cands = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
            path = cands[-1] if cands else None
        if path is None:
            raise Unavailable(f"PostgreSQL's {name} was not found (install Debian's postgresql package: "
                              "apt-get install -y postgresql); the store's PostgreSQL tests are skipped")
        found.append(path)
    return found[0], found[1]


class Server:
    """A running throwaway server: :meth:`url` of a database, :meth:`create_database`, :meth:`stop`."""

    def __init__(self):
        self.initdb, self.pg_ctl = _binaries()
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root: run it as the package's postgres user
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("running as root and there is no 'postgres' user to run initdb as; the store's "
                                  "PostgreSQL tests are skipped") from None
            runuser = shutil.which("runuser")
            if runuser is None:
                raise Unavailable("running as root without runuser to start PostgreSQL as 'postgres'; skipped")
            self.as_user = [runuser, "-u", "postgres", "--"]
        self.dir = tempfile.mkdtemp(prefix="dpviz-pg-")
        os.chmod(self.dir, 0o755)
        if self.as_user:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.port = 54000 + os.getpid() % 1000
        self.n = 0

    def _run(self, args: list[str], timeout: float = 120) -> None:
        res = subprocess.run(self.as_user + args, capture_output=True, text=True, timeout=timeout)
        if res.returncode != 0:
            raise Unavailable(f"{os.path.basename(args[0])} failed: {(res.stderr or res.stdout).strip()[-500:]}")

    def start(self) -> "Server":
        self._run([self.initdb, "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        opts = f"-k {self.dir} -p {self.port} -c listen_addresses='' -c fsync=off -c max_connections=200"
        self._run([self.pg_ctl, "-D", self.data, "-o", opts, "-l", os.path.join(self.dir, "log"), "-w", "-t", "60",
                   "start"])
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.dir}&port={self.port}"

    def create_database(self) -> str:
        """A fresh empty database; returns its URL."""
        import sqlalchemy as sa

        self.n += 1
        name = f"t{os.getpid()}_{self.n}_{int(time.time() * 1000) % 100000}"
        eng = sa.create_engine("postgresql+psycopg://" + self.url().split("://", 1)[1],
                               isolation_level="AUTOCOMMIT")
        with eng.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        eng.dispose()
        return self.url(name)

    def stop(self) -> None:
        try:
            subprocess.run(self.as_user + [self.pg_ctl, "-D", self.data, "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def start() -> Server:
    """Start a throwaway server (:class:`Unavailable` with the reason if it cannot)."""
    srv = Server()
    try:
        return srv.start()
    except Exception:
        srv.stop()
        raise
