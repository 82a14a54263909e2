"""A seeded job's result is kept for every session of the server (dpviz_ui.helpers.jobs.run_job(share=True)): a link
opened by a whole class, or a view opened again, is computed once -- and only a job asked to share is shared."""

import pytest

from dpviz_ui import workers
from dpviz_ui.helpers import jobs


class _Done:
    def __init__(self, value):
        self.value = value

    def done(self):
        return True

    def progress(self):
        return 1.0

    def result(self, timeout=None):
        return self.value

    def cancel(self):
        pass


class _Pool:
    def __init__(self):
        self.calls = []

    def submit(self, owner, fn, *args, **kwargs):
        self.calls.append((fn.__name__, args, kwargs))
        return _Done(fn(*args, **kwargs))


def _audit(state, extra=None):
    return {"eps_lower": state["eps"] * 0.5, "samples": [state["seed"], state["seed"] + 1]}


@pytest.fixture()
def pool(monkeypatch):
    p = _Pool()
    monkeypatch.setattr(workers, "shared_pool", lambda: p)
    monkeypatch.setattr(jobs, "_SHARED", type(jobs._SHARED)())
    return p


def test_same_arguments_are_computed_once_and_each_caller_gets_its_own_copy(pool):
    a = jobs.run_job(_audit, {"eps": 2.0, "seed": 7}, share=True)
    b = jobs.run_job(_audit, {"seed": 7, "eps": 2.0}, share=True)  # the same view, keys in another order
    assert a == b == {"eps_lower": 1.0, "samples": [7, 8]} and len(pool.calls) == 1
    b["samples"].append("changed by one page")
    assert jobs.run_job(_audit, {"eps": 2.0, "seed": 7}, share=True)["samples"] == [7, 8]
    assert len(pool.calls) == 1


def test_another_seed_or_value_or_unshared_job_runs_again(pool):
    jobs.run_job(_audit, {"eps": 2.0, "seed": 7}, share=True)
    jobs.run_job(_audit, {"eps": 2.0, "seed": 8}, share=True)
    jobs.run_job(_audit, {"eps": 2.5, "seed": 7}, share=True)
    jobs.run_job(_audit, {"eps": 2.0, "seed": 7})  # not asked to share: always computed
    jobs.run_job(_audit, {"eps": 2.0, "seed": 7})
    assert len(pool.calls) == 5


def test_arguments_that_are_not_plain_data_are_never_shared(pool):
    jobs.run_job(_audit, {"eps": 2.0, "seed": 7}, object(), share=True)
    jobs.run_job(_audit, {"eps": 2.0, "seed": 7}, object(), share=True)
    assert len(pool.calls) == 2


def test_only_the_latest_results_are_kept(pool, monkeypatch):
    monkeypatch.setattr(jobs, "_SHARED_KEPT", 3)
    for seed in range(5):
        jobs.run_job(_audit, {"eps": 1.0, "seed": seed}, share=True)
    assert len(jobs._SHARED) == 3
    jobs.run_job(_audit, {"eps": 1.0, "seed": 4}, share=True)  # kept
    jobs.run_job(_audit, {"eps": 1.0, "seed": 0}, share=True)  # dropped: computed again
    assert [c[1][0]["seed"] for c in pool.calls] == [0, 1, 2, 3, 4, 0]
