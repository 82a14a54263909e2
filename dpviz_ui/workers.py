"""A bounded pool of worker processes for heavy work (simulations, audits), shared by every dashboard session.

Why: the dashboard runs every session's script in one Python process. A long simulation run on a script thread holds
the interpreter lock for much of its time and so slows every other session's page, and many long runs at once would
exhaust the machine. :class:`WorkerPool` runs such work in separate processes instead:

* **bounded** -- at most ``workers`` processes (default: the number of cores, at most 4; ``DPVIZ_WORKERS``), and at
  most ``max_pending`` jobs admitted at once (running + queued); beyond that :meth:`WorkerPool.submit` raises
  :class:`Busy` with a message for the user instead of queueing without end;
* **per-session limit** -- each owner (a dashboard session) has at most ``per_owner`` jobs; a new job of an owner at
  its limit cancels the owner's oldest job (its page was re-run, so nobody waits for that result any more);
* **low priority** -- workers run at ``nice`` +10 with one BLAS thread each, so the interactive page scripts of the
  main process get the CPU first: a long simulation does not slow other sessions' main numbers;
* **progress and cancel** -- a job's function receives a ``progress`` callable (fraction done; it raises
  :class:`Cancelled` once the job is cancelled) and, if it takes one, a ``cancel`` callable (the engine's
  :func:`dpviz.engine.simulate.simulate` takes both); they talk to the parent through shared memory.

``DPVIZ_WORKERS=0`` runs jobs on the caller's thread (no processes), e.g. where processes cannot be started.
Results are the same either way: every simulation takes its seed, so the same job gives the same numbers in any
process.

This module imports nothing heavy at load time (the spawned workers import only what their jobs need).
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import itertools
import multiprocessing as mp
import os
import threading
import time
from typing import Any, Callable

from dpviz.foundation.validate import TimeLimit as _TimeLimit

__all__ = ["Busy", "Cancelled", "TimeLimit", "Job", "WorkerPool", "shared_pool", "run_simulation", "load_csv",
           "cpu_time_limit", "run_limited", "MemoryLimit", "memory_cap", "open_sweep"]

#: slots of shared progress / cancel memory (jobs admitted at once can never exceed this)
_SLOTS = 64


class Busy(RuntimeError):
    """The pool is full: too many jobs are running or queued for other users. The message says what to do."""


class Cancelled(RuntimeError):
    """The job was cancelled (by its owner, by a newer job of the same owner, or by :meth:`WorkerPool.shutdown`)."""


#: A job ran out of its CPU-time limit (:func:`cpu_time_limit`); the message names the limit.  Defined in
#: :mod:`dpviz.foundation.validate` so that :mod:`dpviz.engine.data` (a lower layer) can recognise it.
TimeLimit = _TimeLimit


# ----------------------------------------------------------------------------------------------- worker side
_progress_arr = None
_cancel_arr = None


def _init_worker(progress_arr, cancel_arr, nice: int) -> None:
    """Runs once in every worker process, before any job (and before numpy is imported there)."""
    global _progress_arr, _cancel_arr
    _progress_arr, _cancel_arr = progress_arr, cancel_arr
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    if nice:
        try:
            os.nice(nice)
        except OSError:  # not permitted here: the pool still works, only without the priority drop
            pass


def _warm_worker() -> int:
    """A no-op job that imports the engine and the accountant, so the first real job does not pay for the imports."""
    import dp_accounting  # noqa: F401

    import dpviz.labs.canary_audit  # noqa: F401
    import dpviz.engine.simulate  # noqa: F401
    import dpviz.labs.stability  # noqa: F401

    return os.getpid()


def _run_job(slot: int, fn: Callable, args: tuple, kwargs: dict) -> Any:
    def progress(f: float) -> None:
        _progress_arr[slot] = float(f)
        if _cancel_arr[slot]:
            raise Cancelled("cancelled")

    def cancel() -> bool:
        return bool(_cancel_arr[slot])

    if _cancel_arr[slot]:
        raise Cancelled("cancelled before it started")
    if _takes_cancel(fn):
        kwargs["cancel"] = cancel
    return fn(*args, progress=progress, **kwargs)


def _takes_cancel(fn: Callable) -> bool:
    """Whether ``fn`` accepts a ``cancel`` argument (else it is stopped through ``progress``, which raises)."""
    import inspect

    try:
        return "cancel" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------------------------- parent side
class Job:
    """A submitted job: :meth:`progress`, :meth:`done`, :meth:`result`, :meth:`cancel`."""

    def __init__(self, pool: "WorkerPool", owner: str, slot: int, future: cf.Future):
        self._pool, self.owner, self.slot, self.future = pool, owner, slot, future
        self.started = time.monotonic()
        self.cancelled = False

    def progress(self) -> float:
        """Fraction done as last reported by the job (0 while it waits for a worker)."""
        return self._pool._progress[self.slot] if self._pool._progress is not None else self._local_progress

    _local_progress = 0.0

    def done(self) -> bool:
        return self.future.done()

    def result(self, timeout: float | None = None) -> Any:
        """The job's return value; re-raises its exception (:class:`Cancelled` if it was cancelled)."""
        try:
            return self.future.result(timeout)
        except cf.CancelledError:
            raise Cancelled("cancelled before it started") from None

    def cancel(self) -> None:
        """Ask the job to stop at its next progress report (or never start it)."""
        self._pool._cancel_job(self)


class WorkerPool:
    """A bounded process pool with per-owner limits, progress and cancellation (see the module docstring).

    Parameters
    ----------
    workers : int, optional
        Worker processes; 0 runs jobs on the caller's thread. Default: ``DPVIZ_WORKERS`` or min(cores, 4).
    per_owner : int, default 1
        Jobs an owner may have admitted at once; a new one cancels the owner's oldest.
    max_pending : int, optional
        Jobs admitted at once over all owners (running + queued), default ``4 * workers`` (at least 4).
    nice : int, default 10
        Priority drop of the worker processes (0: none).
    """

    def __init__(self, workers: int | None = None, *, per_owner: int = 1, max_pending: int | None = None,
                 nice: int = 10):
        if workers is None:
            env = os.environ.get("DPVIZ_WORKERS", "").strip()
            if env:
                try:
                    workers = int(env)
                except ValueError:
                    raise ValueError(f"DPVIZ_WORKERS must be a whole number of worker processes, not {env!r}") \
                        from None
            else:
                workers = min(os.cpu_count() or 1, 4)
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise ValueError(f"workers must be a whole number >= 0 (0 = run on the caller's thread), got {workers!r}")
        if not isinstance(per_owner, int) or per_owner < 1:
            raise ValueError(f"per_owner must be a whole number >= 1, got {per_owner!r}")
        if max_pending is None:
            max_pending = max(4, 4 * workers)
        if not isinstance(max_pending, int) or max_pending < 1 or max_pending > _SLOTS:
            raise ValueError(f"max_pending must be a whole number between 1 and {_SLOTS}, got {max_pending!r}")
        self.workers, self.per_owner, self.max_pending, self.nice = workers, per_owner, max_pending, nice
        self._lock = threading.RLock()  # a cancelled queued future runs its done-callback (which locks) at once
        self._jobs: dict[int, Job] = {}  # slot -> admitted job
        self._ids = itertools.count()
        self._executor = None
        self._progress = self._cancel = None
        if workers:
            ctx = mp.get_context("spawn")  # the server is multi-threaded: never fork it
            self._progress = ctx.RawArray("d", _SLOTS)
            self._cancel = ctx.RawArray("b", _SLOTS)
            self._executor = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                                                    initargs=(self._progress, self._cancel, nice))

    # -- admission
    def _free_slot(self) -> int:
        for s in range(_SLOTS):
            if s not in self._jobs:
                return s
        raise Busy("the server is at its limit of simultaneous runs")  # pragma: no cover (max_pending <= _SLOTS)

    def _release(self, slot: int, job: Job) -> None:
        with self._lock:
            if self._jobs.get(slot) is job:
                del self._jobs[slot]

    def submit(self, owner: str, fn: Callable, /, *args, **kwargs) -> Job:
        """Admit ``fn(*args, progress=..., cancel=..., **kwargs)`` for ``owner``; raises :class:`Busy` when full.

        ``fn`` must be importable by name (a module-level function) and its arguments picklable.
        """
        if not callable(fn):
            raise ValueError("fn must be a function")
        with self._lock:
            mine = sorted((j for j in self._jobs.values() if j.owner == owner and not j.cancelled),
                          key=lambda j: j.started)
            while len(mine) >= self.per_owner:
                old = mine.pop(0)
                self._cancel_locked(old)
            if len(self._jobs) >= self.max_pending:
                running = min(len(self._jobs), self.workers or 1)
                raise Busy(f"The server is busy: {len(self._jobs)} runs of other users are running or waiting "
                           f"({running} at a time). Try again in a minute, or make the run smaller.")
            slot = self._free_slot()
            if self._executor is None:
                fut: cf.Future = cf.Future()
                job = Job(self, owner, slot, fut)
                self._jobs[slot] = job
            else:
                self._progress[slot] = 0.0
                self._cancel[slot] = 0
                fut = self._executor.submit(_run_job, slot, fn, args, kwargs)
                job = Job(self, owner, slot, fut)
                self._jobs[slot] = job
        fut.add_done_callback(lambda _f, s=slot, j=job: self._release(s, j))
        if self._executor is None:  # in-thread mode: run now, with the same progress / cancel contract

            def progress(f: float) -> None:
                job._local_progress = float(f)
                if job.cancelled:
                    raise Cancelled("cancelled")

            if _takes_cancel(fn):
                kwargs["cancel"] = lambda: job.cancelled
            try:
                fut.set_result(fn(*args, progress=progress, **kwargs))
            except BaseException as exc:  # noqa: BLE001 -- delivered through the future, like a worker's error
                fut.set_exception(exc)
        return job

    def _cancel_locked(self, job: Job) -> None:
        # The slot stays taken until the job has really stopped (its future is done), so that a new job can never
        # reset the cancel flag under a job that has not seen it yet.
        job.cancelled = True
        if self._executor is not None and self._jobs.get(job.slot) is job:
            self._cancel[job.slot] = 1
        job.future.cancel()  # effective only while it still waits for a worker

    def _cancel_job(self, job: Job) -> None:
        with self._lock:
            self._cancel_locked(job)

    def cancel_owner(self, owner: str) -> int:
        """Cancel every job of ``owner``; returns how many."""
        with self._lock:
            mine = [j for j in self._jobs.values() if j.owner == owner and not j.cancelled]
            for j in mine:
                self._cancel_locked(j)
        return len(mine)

    def status(self) -> dict:
        """``{"workers", "admitted", "max_pending"}``: for an operator's view of the load."""
        with self._lock:
            return {"workers": self.workers, "admitted": len(self._jobs), "max_pending": self.max_pending}

    def warm(self) -> None:
        """Start every worker process and import the engine there (returns when they are ready)."""
        if self._executor is not None:
            futs = [self._executor.submit(_warm_worker) for _ in range(self.workers)]
            for f in futs:
                f.result()

    def shutdown(self) -> None:
        with self._lock:
            for j in list(self._jobs.values()):
                self._cancel_locked(j)
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)


_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> WorkerPool:
    """The process-wide pool every dashboard session uses (created on first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = WorkerPool()
            atexit.register(_shared.shutdown)  # stop the workers before the interpreter tears its modules down
        return _shared


# ----------------------------------------------------------------------------------------------- jobs
def run_simulation(algorithm_id: str, data, loss_id: str, l2: float, *, progress=None, cancel=None,
                   loss_q: float | None = None, **kwargs):
    """:func:`dpviz.engine.simulate.simulate` as a pool job: the loss is given by id, L2 weight and exponent q of a
    q-norm loss (``loss_q``; picklable) and rebuilt in the worker; every other argument is passed on unchanged
    (``grid, reps, seed, params, max_work, ...``)."""
    from dpviz.engine import losses, simulate

    extra = {"q": float(loss_q)} if loss_q is not None else {}
    loss = losses.get_loss(loss_id, l2=float(l2), **extra) if (l2 or extra) else loss_id
    return simulate.simulate(algorithm_id, data, loss, progress=progress, cancel=cancel, **kwargs)


class cpu_time_limit:
    """``with cpu_time_limit(seconds, what):`` raises :class:`TimeLimit` once the process has used ``seconds`` more
    CPU time (a ``SIGPROF`` interval timer, so it also stops Python code that never reports progress, e.g. pandas'
    renaming of repeated column names).  Only where signals can be set (the main thread of a process: every pool
    worker); elsewhere (``DPVIZ_WORKERS=0``, a server thread) it does nothing, and the callers' caps bound the work.
    """

    def __init__(self, seconds: float, what: str = "this job"):
        self.seconds, self.what, self._old = float(seconds), what, None

    def _fire(self, _signum, _frame):
        raise TimeLimit(f"{self.what} took more than {self.seconds:g} s of CPU time, this server's limit; "
                        "use a smaller file.")

    def __enter__(self):
        import signal

        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            self._old = signal.signal(signal.SIGPROF, self._fire)
            signal.setitimer(signal.ITIMER_PROF, self.seconds)
        return self

    def __exit__(self, *exc):
        import signal

        if self._old is not None:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, self._old)
            self._old = None
        return False


def load_csv(content: bytes, label_column: str, *, progress=None, time_limit: float | None = None,
             memory_limit: int | None = None):
    """:func:`dpviz.engine.data.from_csv` as a pool job, under a CPU-time limit (default
    :data:`dpviz.engine.data.CSV_TIME_LIMIT`) and a hard memory limit (default
    :data:`dpviz.engine.data.CSV_MEMORY_LIMIT`, :func:`memory_cap`): the Simulate page parses an uploaded CSV in a
    worker, never on its thread, and a CSV that needs more memory is refused with one message."""
    import pandas  # noqa: F401  (imported before the memory cap: its libraries are mapped outside the parse's share)

    from dpviz.engine import data

    limit = data.CSV_TIME_LIMIT if time_limit is None else float(time_limit)
    memory = data.CSV_MEMORY_LIMIT if memory_limit is None else int(memory_limit)
    if progress is not None:
        progress(0.0)
    with cpu_time_limit(limit, "reading the CSV"), memory_cap(memory, (
            f"reading the CSV needed more than {memory / 1e6:,.0f} MB of memory, the limit for an uploaded CSV (very "
            "long lines or values take memory out of proportion to the file's size); split the file, or shorten or "
            "remove those values")):
        return data.from_csv(content, label_column)


# ----------------------------------------------------------------------------------------------- hard limits
class MemoryLimit(ValueError):
    """A job needed more memory than its hard limit (:func:`run_limited`); the message names the limit and the input."""


class memory_cap:
    """Cap this process's address space at its present size plus ``memory`` bytes while the block runs, and turn a
    MemoryError inside it into :class:`MemoryLimit` with ``message``.  Only in a worker process's main thread (a pool
    job): in the server's own process the cap would bind every thread, so there nothing is set (the MemoryError is
    still translated).  The former limit is restored on leaving, so the worker goes on with its next job."""

    def __init__(self, memory: int, message: str):
        self.memory, self.message, self._old = int(memory), message, None

    def __enter__(self):
        import resource

        now = _vm_size()
        if now and mp.parent_process() is not None and threading.current_thread() is threading.main_thread():
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            cap = now + self.memory
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            if soft == resource.RLIM_INFINITY or cap < soft:
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
                self._old = (soft, hard)
        return self

    def __exit__(self, kind, exc, tb):
        import resource

        if self._old is not None:
            resource.setrlimit(resource.RLIMIT_AS, self._old)
            self._old = None
        if kind is not None and issubclass(kind, MemoryError):
            raise MemoryLimit(self.message) from None
        return False


def _vm_size() -> int:
    """This process's address-space size (bytes, /proc/self/status VmSize); 0 where unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _limited_child(conn, fn, args, memory: int, seconds: float, preload: tuple) -> None:
    """The child of :func:`run_limited`: import ``preload``, then cap the address space at what it has now plus
    ``memory`` and the CPU time at ``seconds`` (plus the imports'), run ``fn(*args)``, lift the memory cap (the result
    is bounded by then) and send ``("ok", result)``, ``("memory", None)``, ``("time", message)``, ``("error",
    message)`` (a ValueError) or ``("crash", type name)``."""
    import importlib
    import resource

    out: tuple = ("crash", "unknown")
    try:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = "1"
        for name in preload:
            importlib.import_module(name)
        try:
            import pyarrow as pa

            pa.set_cpu_count(1)
            pa.set_io_thread_count(1)
        except ImportError:
            pass
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = _vm_size() + int(memory) if _vm_size() else None
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (min(cap, hard) if hard != resource.RLIM_INFINITY else cap, hard))
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu_hard = int(used.ru_utime + used.ru_stime + seconds) + 3  # SIGXCPU: the backstop of the timer below
        _, cpu_max = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_hard, cpu_max))
        try:
            with cpu_time_limit(seconds, "this job"):
                result = fn(*args)
        finally:
            if cap is not None:
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        out = ("ok", result)
    except MemoryError:  # pyarrow's ArrowMemoryError is one
        out = ("memory", None)
    except TimeLimit as exc:
        out = ("time", str(exc))
    except ValueError as exc:
        out = ("error", str(exc))
    except BaseException as exc:  # noqa: BLE001 -- reported as one line by the parent
        out = ("crash", type(exc).__name__)
    try:
        conn.send(out)
    except Exception:  # noqa: BLE001 -- e.g. an unpicklable result: the parent sees no answer
        conn.send(("crash", "result could not be sent"))
    finally:
        conn.close()


def run_limited(fn: Callable, *args, memory: int, seconds: float, what: str, preload: tuple = (),
                progress: Callable | None = None, wall: float | None = None):
    """``fn(*args)`` in a new process of its own with hard limits: at most ``memory`` bytes of address space beyond its
    imports (``preload``) and ``seconds`` of CPU time.  Whatever the input does (a Parquet dictionary that expands
    to 100 GB, a parser that loops), only that process pays: it is stopped at the limit and this raises
    :class:`MemoryLimit` or :class:`TimeLimit` (both ValueErrors) naming ``what`` and the limit; a ValueError of
    ``fn`` is raised again with its message.  ``progress`` (a pool job's) is called while waiting, so cancelling the
    job stops the child.  ``fn`` must be a module-level function and its arguments and result picklable."""
    # a pool worker (one thread) forks: the child starts at once with the worker's imports; a threaded process (a
    # server thread when DPVIZ_WORKERS=0) must not fork, so it spawns a fresh interpreter instead
    single = threading.active_count() == 1 and threading.current_thread() is threading.main_thread()
    ctx = mp.get_context("fork" if single and "fork" in mp.get_all_start_methods() else "spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_limited_child, args=(child, fn, args, int(memory), float(seconds), tuple(preload)),
                       daemon=True)
    proc.start()
    child.close()
    deadline = time.monotonic() + (wall if wall is not None else 10 * seconds + 60)
    answer = None
    try:
        while True:
            if parent.poll(0.1):
                try:
                    answer = parent.recv()
                except (EOFError, OSError):
                    answer = None
                break
            if not proc.is_alive():
                if parent.poll(0):
                    continue
                break
            if progress is not None:
                progress(0.5)  # raises Cancelled once the job is cancelled
            if time.monotonic() > deadline:
                break
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
    gb = f"{memory / 1e9:g} GB"
    if answer is None:
        code = proc.exitcode
        if code is not None and code < 0 and -code in (24, 9):  # SIGXCPU, SIGKILL (the kernel's out-of-memory killer)
            if -code == 24:
                raise TimeLimit(f"{what} took more than {seconds:g} s of CPU time, this server's limit; use a smaller "
                                "file.")
            raise MemoryLimit(f"{what} was stopped: it needed more memory than this server allows ({gb}).")
        raise MemoryLimit(f"{what} was stopped before it finished (at its {gb} memory or {seconds:g} s CPU limit).")
    kind, value = answer
    if kind == "ok":
        return value
    if kind == "memory":
        raise MemoryLimit(f"{what} needs more than {gb} of memory, this server's limit for one upload: the file "
                          "expands far beyond its size when decoded.")
    if kind == "time":
        raise TimeLimit(f"{what} took more than {seconds:g} s of CPU time, this server's limit; use a smaller file.")
    if kind == "error":
        raise ValueError(value)
    raise ValueError(f"{what} failed ({value}).")


def _open_sweep_child(kind: str, a, b):
    """In the limited child: open (``"upload"``: file name, bytes; ``"folder"``: root, name) and decode a sweep;
    returns the checked :class:`dpviz_ui.sweep_open.SweepData` without its files' bytes, its rows and notes."""
    from dpviz_ui import sweep_open

    data = sweep_open.read_upload(a, b) if kind == "upload" else sweep_open.open_sweep_dir(a, b)
    frame = data.warm().frame(None)
    notes = list(data.notes)
    data.files = {}
    return data, frame, notes


def open_sweep(kind: str, a, b, *, progress=None):
    """A sweep opened for the Simulate page, as a pool job: every footer check, the decoding and the shaping of the
    rows run in a child process limited to :data:`dpviz_ui.sweep_open.MEMORY_LIMIT` bytes and
    :data:`dpviz_ui.sweep_open.TIME_LIMIT` CPU seconds (:func:`run_limited`); the page's own thread does none of it.
    Returns the :class:`dpviz_ui.sweep_open.SweepData` with its rows."""
    import pandas  # noqa: F401 -- imported once in this worker: the forked child starts with them
    import pyarrow.parquet  # noqa: F401

    from dpviz.studies import sweep  # noqa: F401
    from dpviz_ui import sweep_open

    if kind not in ("upload", "folder"):
        raise ValueError("kind must be 'upload' or 'folder'.")
    if progress is not None:
        progress(0.0)
    what = f"opening {'the upload' if kind == 'upload' else 'the sweep'}"
    data, frame, notes = run_limited(_open_sweep_child, kind, a, b, memory=sweep_open.MEMORY_LIMIT,
                                     seconds=sweep_open.TIME_LIMIT, what=what, progress=progress,
                                     preload=("pandas", "pyarrow.parquet", "dpviz.studies.sweep", "dpviz_ui.sweep_open"))
    return data.adopt(frame, notes)
