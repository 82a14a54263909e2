"""Two costs of Streamlit's test harness (``streamlit.testing.v1.AppTest``) that are not the dashboard's, taken out
of the test process without changing what a page run does or what a test sees.

1. **The component scan.**  Every new ``AppTest`` scans the metadata of every installed distribution for Streamlit
   "v2 component" manifests (``BidiComponentManager.discover_and_register_components``): ~0.25 s a test here, for a
   result (no such component is installed) that cannot change while pytest runs.  The scan runs once per test
   process; its result is reused.
2. **The wait for a run.**  ``AppTest.run`` waits for its script thread with a 1 ms polling loop
   (``local_script_runner.require_widgets_deltas``) that rescans the run's whole event list (one event per element
   sent) on every wake-up, holding the GIL the page's own thread needs: ~11 % of the samples of an AppTest file
   (py-spy, tests/test_app_pages.py).  Here the wait is a ``threading.Event`` set by the runner's own SHUTDOWN
   event — the very condition the loop polls — with the same timeout and the same error when it passes.

Measured figures are in benchmarks/RESULTS.md ("Test suite, session 40").  If Streamlit changes these internals,
:func:`install` leaves the harness as it is (nothing is patched that is not found), and
``tests/test_apptest_speed.py`` fails so that the change is seen.
"""

from __future__ import annotations

import functools
import threading


def install() -> bool:
    """Patch the two steps above; True when both were found and patched."""
    try:
        from streamlit.components.v2 import manifest_scanner
        from streamlit.runtime.scriptrunner import ScriptRunnerEvent
        from streamlit.testing.v1 import local_script_runner as lsr
    except ImportError:  # pragma: no cover -- a Streamlit without these modules: nothing to speed up
        return False
    done = 0
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is not None and not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.lru_cache(maxsize=None)(scan)
    done += hasattr(manifest_scanner.scan_component_manifests, "cache_info")
    original = getattr(lsr, "require_widgets_deltas", None)
    if getattr(original, "_dpviz", False):  # installed already (install() is idempotent)
        return done == 1
    if original is not None and hasattr(lsr.LocalScriptRunner, "script_stopped"):

        def require_widgets_deltas(runner, timeout: float = 3) -> None:
            """Streamlit's ``require_widgets_deltas`` (wait for the runner's SHUTDOWN event, else stop it and raise
            the same RuntimeError), waiting on an event instead of polling."""
            stopped = threading.Event()

            def on_event(sender, event=None, **kwargs) -> None:
                if event == ScriptRunnerEvent.SHUTDOWN:
                    stopped.set()

            runner.on_event.connect(on_event, weak=False)
            try:
                # the event may have been sent before the receiver was connected: the runner's own record says so
                if runner.script_stopped() or stopped.wait(timeout):
                    return
                if runner.script_stopped():  # pragma: no cover -- sent between the wait's end and this line
                    return
            finally:
                runner.on_event.disconnect(on_event)
            runner.request_stop()
            runner.join()
            raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

        require_widgets_deltas.__wrapped__ = original
        require_widgets_deltas._dpviz = True
        lsr.require_widgets_deltas = require_widgets_deltas
        done += 1
    return done == 2
