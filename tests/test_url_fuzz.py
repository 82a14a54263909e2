"""Hostile links on every page (AppTest): no exception, nothing from the URL rendered as Markdown, bounded time."""

import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.foundation import urlstate

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = ["pages/calibrate.py", "pages/bounds.py", "pages/simulate.py", "pages/accounting.py", "pages/audit.py"]
EVIL = ["[Fix here](http://evil.invalid/phish)", "![t](http://evil.invalid/pixel.png)", "<script>alert(1)</script>",
        "$\\href{http://evil.invalid}{x}$", "nan", "inf", "-1e309", "1e308", "0", "-0.0", "", "9" * 400, "1,2,,3",
        "true", "None", "__import__('os')"]


def _queries():
    names = sorted(urlstate.SCHEMA)
    out = []
    for k, bad in enumerate(EVIL):  # each query sets every parameter to a hostile value (rotating the values)
        out.append({name: EVIL[(k + j) % len(EVIL)] for j, name in enumerate(names)} | {"unknown_" + str(k): bad})
    return out


def _texts(at) -> list[str]:
    out = []
    for kind in ("markdown", "warning", "error", "info", "caption", "success"):
        out += [e.value for e in at.get(kind)]
    return out


@pytest.mark.parametrize("page", PAGES)
def test_hostile_links(page):
    for query in _queries()[::3]:
        at = AppTest.from_file(APP, default_timeout=60)
        for k, v in query.items():
            at.query_params[k] = v
        t0 = time.perf_counter()
        at.switch_page(page).run()
        assert time.perf_counter() - t0 < 60
        assert not at.exception, query
        for text in _texts(at):
            # a link, an image or HTML needs the unescaped characters; escaped ones (\\[, \\<) are shown literally
            assert not re.search(r"(?<!\\)\]\((?!\\)", text) and not re.search(r"(?<!\\)<script", text), text
