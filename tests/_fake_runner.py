"""A Streamlit ScriptRunner reduced to what AppSession asks of it, its request queue (no thread): shared by the
live-class tests that drive a real AppSession (tests/test_class_delivery.py, tests/test_class_push.py)."""

from __future__ import annotations

from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests


def runner_class(requests_class: type = ScriptRequests) -> type:
    """A runner class whose queue is a ``requests_class`` (the delivery tests patch a subclass of their own),
    started with a rerun request (``RerunData()`` unless one is given)."""

    class Runner:
        def __init__(self, data: RerunData | None = None):
            self._requests = requests_class()
            self._requests.request_rerun(data or RerunData())

        def request_rerun(self, rerun_data) -> bool:
            return self._requests.request_rerun(rerun_data)

        def request_stop(self) -> None:
            self._requests.request_stop()

    return Runner
