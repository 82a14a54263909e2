"""dpviz is a pure computation library: importing every module must not import streamlit."""
import subprocess
import sys


def test_importing_every_dpviz_module_leaves_streamlit_unimported():
    code = (
        "import pkgutil, importlib, sys, dpviz\n"
        "for m in pkgutil.walk_packages(dpviz.__path__, 'dpviz.'):\n"
        "    if not m.name.endswith('__main__'):\n        importlib.import_module(m.name)\n"
        "import dpviz.theory.catalog as c; c.algorithms(); c.theorems()\n"
        # the dashboard's helpers that worker processes and offline notebooks import: only the package
        # dpviz_ui.helpers is Streamlit (not walked into: walk_packages would import it to list its modules)
        "def walk(path, prefix):\n"
        "    for m in pkgutil.iter_modules(path, prefix):\n"
        "        if m.name != 'dpviz_ui.helpers':\n"
        "            mod = importlib.import_module(m.name)\n"
        "            if m.ispkg:\n                walk(mod.__path__, m.name + '.')\n"
        "walk(importlib.import_module('dpviz_ui').__path__, 'dpviz_ui.')\n"
        "assert 'dpviz_ui.lessons.handout' in sys.modules and 'dpviz_ui.workers' in sys.modules\n"
        "assert 'streamlit' not in sys.modules, 'streamlit was imported'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
