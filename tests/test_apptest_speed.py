"""The test harness's speed-ups (tests/_apptest_speed.py) are in place and change nothing a test sees."""

import threading

import pytest

import _apptest_speed
from conftest import APPTEST_SPEED, ROOT


def test_both_speed_ups_are_installed():
    # False when Streamlit's internals moved: the harness then runs as shipped, slower; look at _apptest_speed.py
    assert APPTEST_SPEED
    assert _apptest_speed.install()  # a second install patches nothing twice
    from streamlit.testing.v1 import local_script_runner as lsr

    assert not getattr(lsr.require_widgets_deltas.__wrapped__, "_dpviz", False)
    from streamlit.components.v2 import manifest_scanner

    assert hasattr(manifest_scanner.scan_component_manifests, "cache_info")


def test_the_wait_returns_with_the_run_and_pages_render_as_before():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    at.switch_page("pages/bounds.py").run()
    assert not at.exception
    assert at.title[0].value
    assert threading.active_count() < 50  # no waiting threads left behind


def test_a_run_past_its_timeout_raises_streamlits_error(tmp_path):
    from streamlit.testing.v1 import AppTest

    script = tmp_path / "slow.py"
    script.write_text("import time\nimport streamlit as st\nst.write('start')\ntime.sleep(3)\nst.write('end')\n")
    at = AppTest.from_file(str(script), default_timeout=0.5)
    with pytest.raises(RuntimeError, match=r"timed out after 0.5\(s\)"):
        at.run()
