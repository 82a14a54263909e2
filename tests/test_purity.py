"""dpviz is a pure computation library: importing every module must not import streamlit."""
import subprocess
import sys


def test_importing_every_dpviz_module_leaves_streamlit_unimported():
    code = (
        "import pkgutil, importlib, sys, dpviz\n"
        "for m in pkgutil.walk_packages(dpviz.__path__, 'dpviz.'):\n"
        "    if not m.name.endswith('__main__'):\n        importlib.import_module(m.name)\n"
        "import dpviz.theory.catalog as c; c.algorithms(); c.theorems()\n"
        # the dashboard's helpers that worker processes and offline notebooks import: only dpviz_ui.helpers is Streamlit
        "for m in pkgutil.walk_packages(importlib.import_module('dpviz_ui').__path__, 'dpviz_ui.'):\n"
        "    if m.name != 'dpviz_ui.helpers':\n        importlib.import_module(m.name)\n"
        "assert 'streamlit' not in sys.modules, 'streamlit was imported'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
