"""The test harness's speed-ups (tests/_apptest_speed.py) are in place and change nothing a test sees."""

import threading

import pytest

import _apptest_speed
from conftest import APPTEST_SPEED, ROOT


def test_the_three_speed_ups_are_installed():
    # False when Streamlit's internals moved: the harness then runs as shipped, slower; look at _apptest_speed.py
    assert APPTEST_SPEED
    assert _apptest_speed.install()  # a second install patches nothing twice
    from streamlit.testing.v1 import local_script_runner as lsr

    assert not getattr(lsr.require_widgets_deltas.__wrapped__, "_dpviz", False)
    from streamlit.components.v2 import manifest_scanner

    assert hasattr(manifest_scanner.scan_component_manifests, "cache_info")
    from streamlit.runtime.scriptrunner import script_cache

    assert not getattr(script_cache.ScriptCache.get_bytecode.__wrapped__, "_dpviz", False)


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


def test_pages_are_compiled_once_per_process_and_again_when_edited(tmp_path):
    from streamlit.runtime.scriptrunner import script_cache
    from streamlit.testing.v1 import AppTest

    assert getattr(script_cache.ScriptCache.get_bytecode, "_dpviz", False)
    script = tmp_path / "page.py"
    script.write_text("import streamlit as st\nst.write('one')\n")
    n0 = len(_apptest_speed._BYTECODE)
    first = AppTest.from_file(str(script), default_timeout=30).run()
    assert [m.value for m in first.markdown] == ["one"]
    assert len(_apptest_speed._BYTECODE) == n0 + 1
    second = AppTest.from_file(str(script), default_timeout=30).run()
    assert [m.value for m in second.markdown] == ["one"]
    assert len(_apptest_speed._BYTECODE) == n0 + 1  # the same bytes: the first test's code object
    script.write_text("import streamlit as st\nst.write('two')\n")  # an edited page is compiled afresh
    third = AppTest.from_file(str(script), default_timeout=30).run()
    assert [m.value for m in third.markdown] == ["two"]
    assert len(_apptest_speed._BYTECODE) == n0 + 2
