"""Issue 22, item 4: hostile link parameters on every page give ONE escaped, capped notice (AppTest).

The payloads are the issue's: a Markdown link and a remote image in ``aud_mode`` / ``aud_alg`` (and the same in the
other pages' parameters), and 1 000 unknown parameters (here 330 each of ``aud_x{i}``, ``acc_x{i}``, ``x{i}``), which gave 1 000
warning boxes (a 5.7 MB reply) before.  Each page must show at most one notice, that notice must list at most
``dpviz_ui.helpers.LINK_NOTICE_ITEMS`` reasons (and count the rest), and nothing from the link may be Markdown (a link, an
image, HTML).
"""

import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import helpers as ui

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = [None, "pages/calibrate.py", "pages/bounds.py", "pages/simulate.py", "pages/accounting.py", "pages/audit.py",
         "pages/lessons.py"]
LINK = "[Session expired: log in](https://ev.il/x)"
IMAGE = "![t](http://127.0.0.1:9/track.png)"
#: unknown parameters of each kind (aud_, acc_, none): 3 x 330 + the 8 above stay within Streamlit's limit of 1 000
#: query parameters (beyond it Streamlit ignores the whole query string)
UNKNOWN = 330


def _payload() -> dict:
    q = {"aud_mode": LINK, "aud_alg": IMAGE, "acc_algorithm": LINK, "acc_n": IMAGE, "algorithm": LINK, "loss": IMAGE,
         "page": "<img src=http://127.0.0.1:9/x.png>", LINK: "1", "les_id": LINK,
         "les_lock": ",".join(f"[x{i}](https://ev.il/{i})" for i in range(300))}
    for i in range(UNKNOWN):
        q[f"aud_x{i}"] = q[f"acc_x{i}"] = q[f"x{i}"] = LINK
    return q


def _texts(at) -> list[str]:
    out = []
    for kind in ("markdown", "warning", "error", "info", "caption", "success"):
        out += [e.value for e in at.get(kind)]
    return out


def test_notice_text_is_escaped_and_capped():
    problems = [f"ignored unknown link parameter {LINK!r}"] * 1000 + ["x" * 5000]
    text = ui.link_notice_text(problems)
    assert len(text) < 200 * (ui.LINK_NOTICE_ITEMS + 1)
    assert text.endswith(f"and {len(problems) - ui.LINK_NOTICE_ITEMS} more.")
    assert not re.search(r"(?<!\\)\]\(", text) and not re.search(r"(?<!\\)\[Session", text)
    assert "\\[Session" in text  # shown literally
    assert ui.link_notice_text([]) == ""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "home")
def test_every_page_one_escaped_capped_notice(page):
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in _payload().items():
        at.query_params[k] = v
    t0 = time.perf_counter()
    if page:  # the link opens this page directly (its first run)
        at.switch_page(page)
    at.run()
    assert time.perf_counter() - t0 < 120
    assert not at.exception
    notices = [w.value for w in at.warning if "link" in w.value]
    assert len(notices) == 1, notices
    assert re.search(r"and \d+ more\.$", notices[0]) and len(notices[0]) < 2000
    for text in _texts(at):
        # a link, an image or HTML needs the unescaped characters; escaped ones (\\[, \\<) are shown literally
        assert not re.search(r"(?<!\\)\]\((?!\\)", text) and not re.search(r"(?<!\\)!\[", text), text
        assert "https://ev.il" not in text and "http://127.0.0.1" not in text and "<img" not in text, text
    # the whole page stays small: the notice is one element, not one per parameter
    assert sum(len(t) for t in _texts(at)) < 50_000
