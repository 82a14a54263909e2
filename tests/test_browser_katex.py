"""Every formula of the catalogue renders in KaTeX without an error, in a real browser (issue 19: LaTeX written in
non-raw strings had turned \\frac and \\text into form feeds and tabs).

``tests/katex_formulas_app.py`` renders each formula (``dpviz.theory.catalog.formulas`` at a typical point, through
``dpviz_ui.helpers.tex_sci`` as the pages do) with ``st.latex`` in its own keyed container; the browser must show a KaTeX
rendering in every container and no ``.katex-error`` (KaTeX's marker of a parse error, e.g. an undefined control
sequence).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import ARGS, CHROMIUM, ROOT  # noqa: E402

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


@pytest.fixture(scope="module")
def katex_server():
    import serve

    port = serve._free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "tests" / "katex_formulas_app.py"),
                             "--server.headless", "true", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        if not serve._wait_healthy(url, 90, proc):
            pytest.fail("the formula app did not become healthy within 90 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_every_catalogue_formula_renders_in_katex(katex_server):
    from playwright.sync_api import sync_playwright

    from dpviz.theory import catalog

    sys.path.insert(0, str(ROOT / "tests"))
    from katex_formulas_app import POINT

    formulas = catalog.formulas(POINT)
    n = len(formulas)
    assert n > 200  # every algorithm, theorem (statement, schedule, terms), table row and calibration
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(katex_server)
        # every container has its KaTeX output (a rendering or an error span)
        page.wait_for_function(
            "n => { for (let i = 0; i < n; i++) { const c = document.querySelector('.st-key-formula' + i);"
            " if (!c || !c.querySelector('.katex, .katex-error')) return false; } return true; }",
            arg=n, timeout=120000)
        report = page.evaluate(
            "n => { const bad = []; for (let i = 0; i < n; i++) { const c = document.querySelector('.st-key-formula' + i);"
            " const e = c.querySelector('.katex-error'); if (e || !c.querySelector('.katex'))"
            " bad.push([i, e ? e.getAttribute('title') : 'no KaTeX output']); } return bad; }", n)
        browser.close()
    assert not report, "formulas KaTeX cannot render:\n" + "\n".join(
        f"{formulas[i][0]}: {msg} in {formulas[i][1]!r}" for i, msg in report)
