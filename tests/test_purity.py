"""dpviz is a pure computation library: importing every module must not import streamlit."""
import subprocess
import sys


def test_importing_every_dpviz_module_leaves_streamlit_unimported():
    code = (
        "import pkgutil, importlib, sys, dpviz\n"
        "for m in pkgutil.walk_packages(dpviz.__path__, 'dpviz.'):\n"
        "    if not m.name.endswith('__main__'):\n        importlib.import_module(m.name)\n"
        "import dpviz.catalog as c; c.algorithms(); c.theorems()\n"
        "assert 'streamlit' not in sys.modules, 'streamlit was imported'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
