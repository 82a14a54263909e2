"""The shared worker pool (dpviz_ui.workers): bounded, per-owner limits, progress, cancel, same numbers as in-process."""

import os
import time

import pandas as pd
import pytest

import _pool_jobs as jobs
from dpviz.engine import data, simulate
from dpviz_ui import workers


@pytest.fixture(scope="module")
def pool():
    p = workers.WorkerPool(2, per_owner=1, max_pending=3)
    p.warm()
    yield p
    p.shutdown()


def _wait(job, timeout=60.0):
    t0 = time.monotonic()
    while not job.done():
        assert time.monotonic() - t0 < timeout, "job did not finish"
        time.sleep(0.02)


def test_simulation_in_a_worker_gives_the_same_numbers_as_in_process(pool):
    ds = data.load_dataset("wang-least-squares", n=300)
    kw = dict(grid={"eps": [1.0, 4.0]}, reps=20, seed=11, params={"T": 300, "eta": 0.01, "R": 1.0})
    job = pool.submit("alice", workers.run_simulation, "dpsgd-rdp", ds, "least-squares", 0.0, **kw)
    here = simulate.simulate("dpsgd-rdp", ds, "least-squares", **kw)
    pd.testing.assert_frame_equal(job.result(timeout=120).frame, here.frame)
    # with an L2 regulariser the loss is rebuilt in the worker from (id, weight)
    job = pool.submit("alice", workers.run_simulation, "dpsgd-rdp", ds, "least-squares", 1e-3, **kw)
    from dpviz.engine import losses
    here = simulate.simulate("dpsgd-rdp", ds, losses.get_loss("least-squares", l2=1e-3), **kw)
    pd.testing.assert_frame_equal(job.result(timeout=120).frame, here.frame)


def test_progress_is_reported_and_a_job_can_be_cancelled(pool):
    job = pool.submit("bob", jobs.sleep_steps, 400, 0.01)
    t0 = time.monotonic()
    while job.progress() == 0.0 and time.monotonic() - t0 < 30:
        time.sleep(0.02)
    assert 0.0 < job.progress() < 1.0
    job.cancel()
    with pytest.raises(workers.Cancelled):
        job.result(timeout=30)
    assert time.monotonic() - t0 < 3.5  # stopped long before its 4 s


def test_a_new_job_of_the_same_session_cancels_the_old_one(pool):
    old = pool.submit("carol", jobs.sleep_steps, 400, 0.01)
    new = pool.submit("carol", jobs.sleep_steps, 2, 0.01)
    assert new.result(timeout=30) == 2
    with pytest.raises(workers.Cancelled):
        old.result(timeout=30)


def test_a_full_pool_says_busy_instead_of_queueing_without_end(pool):
    running = [pool.submit(f"user{k}", jobs.sleep_steps, 100, 0.01) for k in range(3)]
    with pytest.raises(workers.Busy, match="busy"):
        pool.submit("latecomer", jobs.sleep_steps, 1, 0.01)
    for j in running:
        j.cancel()
    for j in running:
        _wait(j)
    assert pool.submit("latecomer", jobs.sleep_steps, 1, 0.01).result(timeout=30) == 1


def test_workers_run_at_low_priority_with_one_blas_thread(pool):
    nice, blas = pool.submit("dave", jobs.niceness).result(timeout=30)
    assert nice >= os.getpriority(os.PRIO_PROCESS, 0) + 10 or nice == 19
    assert blas == "1"


def test_errors_of_a_job_reach_the_caller(pool):
    with pytest.raises(ValueError, match="for the student"):
        pool.submit("erin", jobs.fail).result(timeout=30)


def test_zero_workers_runs_on_the_callers_thread_with_the_same_contract():
    p = workers.WorkerPool(0)
    job = p.submit("x", jobs.sleep_steps, 3, 0.001)
    assert job.done() and job.result() == 3 and job.progress() == 1.0
    with pytest.raises(ValueError, match="for the student"):
        p.submit("x", jobs.fail).result()


@pytest.mark.parametrize("kwargs, match", [({"workers": -1}, "workers"), ({"workers": 1.5}, "workers"),
                                           ({"workers": 0, "per_owner": 0}, "per_owner"),
                                           ({"workers": 0, "max_pending": 0}, "max_pending"),
                                           ({"workers": 0, "max_pending": 10**6}, "max_pending")])
def test_bad_settings_are_refused_with_a_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        workers.WorkerPool(**kwargs)


def test_dpviz_workers_environment_variable(monkeypatch):
    monkeypatch.setenv("DPVIZ_WORKERS", "0")
    assert workers.WorkerPool().workers == 0
    monkeypatch.setenv("DPVIZ_WORKERS", "two")
    with pytest.raises(ValueError, match="DPVIZ_WORKERS"):
        workers.WorkerPool()
