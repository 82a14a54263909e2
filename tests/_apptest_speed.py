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
3. **Compiling the pages.**  Each ``AppTest`` has its own ``ScriptCache``, so every test parses app.py and each page
   it opens again and rewrites the tree for Streamlit's "magic" (``magic.add_magic``, ``ast.parse``, ``compile``):
   4 % of the samples of ``make check`` (py-spy, session 41).  The compiled code is kept per test process, keyed by
   the script's path, its bytes (a SHA-256) and the magic setting, so an edited script is compiled afresh; a code
   object is immutable, and Streamlit shares it between all the runs of one server in the same way.

Measured figures are in benchmarks/RESULTS.md ("Session 40" and "Session 41").  If Streamlit changes these internals,
:func:`install` leaves the harness as it is (nothing is patched that is not found), and
``tests/test_apptest_speed.py`` fails so that the change is seen.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading

#: (absolute path, SHA-256 of the script's bytes, magic enabled) -> the code object Streamlit compiled for it
_BYTECODE: dict[tuple, object] = {}


def _install_bytecode_cache() -> bool:
    """Share compiled page scripts between the AppTests of one process (step 3 above)."""
    try:
        from streamlit import config
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    except ImportError:  # pragma: no cover
        return False
    original = ScriptCache.get_bytecode
    if getattr(original, "_dpviz", False):
        return True

    def get_bytecode(self, script_path: str):
        """Streamlit's ``ScriptCache.get_bytecode``, first looking in the process-wide store."""
        path = os.path.abspath(script_path)
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).digest()
        except OSError:  # Streamlit raises its own error for a missing script
            return original(self, script_path)
        key = (path, digest, bool(config.get_option("runner.magicEnabled")))
        code = _BYTECODE.get(key)
        if code is None:
            code = _BYTECODE[key] = original(self, script_path)
        return code

    get_bytecode.__wrapped__ = original
    get_bytecode._dpviz = True
    ScriptCache.get_bytecode = get_bytecode
    return True


def install() -> bool:
    """Patch the three steps above; True when all were found and patched."""
    cached = _install_bytecode_cache()
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
        return done == 1 and cached
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
    return done == 2 and cached
