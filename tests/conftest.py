"""Shared fixtures: a streamlit server of the dashboard for the real-browser tests."""

import os
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Property tests (Hypothesis): the same examples on every run, so that `make test` and CI are reproducible; a
# developer looking for new counterexamples runs `HYPOTHESIS_PROFILE=explore make check` (random examples, as
# before; a failure found there becomes an explicit test, e.g. test_accounting_zero's KL-shortcut case).
from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("dpviz", derandomize=True)
_hyp_settings.register_profile("explore", derandomize=False)
_hyp_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dpviz"))

# Streamlit's AppTest harness without its per-test component scan and its polling wait (tests/_apptest_speed.py)
import _apptest_speed  # noqa: E402

APPTEST_SPEED = _apptest_speed.install()
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


#: The DPVIZ_* environment the test process started with: a module that changes it (e.g. DPVIZ_SWEEPS_DIR in an
#: autouse fixture) before asking for ``server`` gets a server of its own that inherits the change.
_BASE_ENV = {k: v for k, v in os.environ.items() if k.startswith("DPVIZ_")}


def _dpviz_env() -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith("DPVIZ_")}


def launch_server(timeout: float = 90) -> tuple:
    """Start the dashboard as ``make run`` serves it (serve.launch: a free port, so parallel test processes never
    share one); returns (process, URL); a server that does not become healthy fails the test.  A server that exits
    at once is started again on another port (two test processes may have been handed the same free port)."""
    import serve

    for attempt in range(3):
        try:
            return serve.launch(timeout=timeout)
        except RuntimeError as exc:
            if "exited" not in str(exc) or attempt == 2:
                pytest.fail(str(exc))


def stop_server(proc) -> None:
    """Stop a server started by :func:`launch_server` and its worker processes (killed if a busy one does not stop
    within 30 s; serve.stop)."""
    import serve

    serve.stop(proc, grace=30)


@pytest.fixture(scope="session")
def shared_server_process():
    """(process, URL) of one dashboard server shared by the whole test session of this process (one per xdist
    worker), started at its first use with the environment the session started with."""
    proc, url = launch_server()
    try:
        yield proc, url
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def server(request):
    """The dashboard as ``make run`` serves it (serve.py: warm-up, then ``streamlit run app.py``).

    Modules share one server per test process (``shared_server_process``): starting one costs seconds of CPU. A
    module gets a fresh server of its own when it is marked ``pytest.mark.fresh_server`` (its test needs a server no
    one has visited yet) or when it has changed a DPVIZ_* environment variable before asking for the server."""
    if request.node.get_closest_marker("fresh_server") is None and _dpviz_env() == _BASE_ENV:
        yield request.getfixturevalue("shared_server_process")[1]
        return
    proc, url = launch_server()
    try:
        yield url
    finally:
        stop_server(proc)


# --- helpers shared by the real-browser tests (Playwright pages) -----------------------------------------------------
WAIT = 60000


def query_of(page) -> dict:
    """The page's URL query parameters."""
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page.url).query))


def settle(page, timeout: int = WAIT) -> None:
    """Wait until the script run triggered by the last interaction has finished."""
    page.wait_for_timeout(300)
    # the app's own script state (Streamlit's stApp attribute, "running" / "rerunRequested" while a run is on; the
    # status widget alone shows "Running" only for runs that last a while) and the status widget
    page.wait_for_function(
        "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
        " const state = app && app.getAttribute('data-test-script-state');"
        " const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
        " return state !== 'running' && state !== 'rerunRequested' && !(w && w.innerText.includes('Running')); }",
        timeout=timeout)
    page.wait_for_timeout(300)


def wait_text(page, selector, text, timeout: int = WAIT) -> None:
    """Wait until some element matching ``selector`` contains ``text``."""
    page.wait_for_function(
        "([sel, t]) => Array.from(document.querySelectorAll(sel)).some(e => (e.textContent || '').includes(t))",
        arg=[selector, text], timeout=timeout)


def poll_text(page, read, ok, what: str, seconds: float = 40, every: int = 250) -> str:
    """Read ``read(page)`` every ``every`` ms (an element re-rendering meanwhile reads as "") until ``ok(text)``, for at
    most ``seconds``; the text, or AssertionError "``what``: <the last text read>"."""
    deadline = time.time() + seconds
    text = ""
    while time.time() < deadline:
        try:
            text = read(page)
        except Exception:  # noqa: BLE001 - element re-rendering
            text = ""
        if ok(text):
            return text
        page.wait_for_timeout(every)
    raise AssertionError(f"{what}: {text!r}")


def wait_query(page, name, value, timeout: int = WAIT) -> None:
    """Wait until the URL has ``name=value``."""
    page.wait_for_function(
        "([n, v]) => new URLSearchParams(window.location.search).get(n) === v", arg=[name, value], timeout=timeout)


def choose(page, key: str, label: str, typed: str | None = None) -> None:
    """Choose ``label`` in the selectbox with key ``key``: click it, type ``typed`` (default: the label), which
    filters the (virtualised) option list, and click the option."""
    for attempt in range(3):
        page.locator(f".st-key-{key} input[role=combobox]").click()
        page.keyboard.type(label if typed is None else typed)
        try:
            # a rerun that redraws the page (held-back charts drawn after the first paint, a slow row filled in)
            # closes the open list under the click: open it again rather than wait for an option that is gone
            page.get_by_role("option", name=label, exact=True).click(timeout=10000 if attempt < 2 else 30000)
            return
        except Exception:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page)


def chosen(page, key: str) -> str:
    """The label the selectbox with key ``key`` shows."""
    return page.locator(f".st-key-{key} input[role=combobox]").input_value().strip()


def add_choice(page, key: str, label: str) -> None:
    """Add ``label`` to the multiselect with key ``key`` and close its list."""
    choose(page, key, label)
    page.keyboard.press("Escape")


#: a User-Agent without the "Mozilla" token: the dashboard then draws a session's first run whole (charts and formulas
#: included) instead of holding them back for a timer rerun 1.5 s after the first paint
#: (``dpviz_ui.helpers.figures._hold_charts``).  Tests that check a page's finished state -- every chart and formula
#: drawn -- open their pages with it (:func:`new_page`): the same state, without the wait and the second run;
#: tests/test_browser_first_paint.py checks the held-back first visit itself with Chromium's own agent.
DRAWN_AT_ONCE_UA = "HeadlessChromium (dpviz tests: first run drawn whole)"


def new_page(browser, drawn_at_once: bool = True, **kwargs):
    """A new Playwright page of ``browser`` (``kwargs`` go to ``browser.new_page``); with ``drawn_at_once`` its
    User-Agent is :data:`DRAWN_AT_ONCE_UA`, so a first visit draws its charts and formulas in its first run."""
    if drawn_at_once:
        kwargs.setdefault("user_agent", DRAWN_AT_ONCE_UA)
    return browser.new_page(**kwargs)


#: true once every chart on the page has been drawn by Plotly (its SVG is there): the charts of
#: ``dpviz_ui.helpers.show_figure`` (element key ``chart_<name>``) and any other Plotly element
CHARTS_DRAWN_JS = """() => Array.from(
  document.querySelectorAll('[class*="st-key-chart_"], [data-testid="stPlotlyChart"]'))
  .every(c => c.querySelector('.js-plotly-plot .main-svg'))"""


# --- formulas on screen: KaTeX drawn, no KaTeX error, no raw TeX in the visible text --------------------------------
#: the visible text under the element ``root`` (a CSS selector; the whole page if there is none) outside KaTeX's
#: output (whose hidden MathML keeps the TeX source) and form fields: the words a reader sees, the SVG text of the
#: charts (titles, axes, legends) included
VISIBLE_TEXT_JS = """(sel) => {
  const root = document.querySelector(sel) || document.body;
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out = []; let node;
  while ((node = walk.nextNode())) {
    const el = node.parentElement;
    if (!el || el.closest('.katex, .katex-display, .katex-mathml, script, style, textarea, input, code, pre')) continue;
    if (el.getClientRects().length === 0) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') continue;
    out.push(node.textContent);
  }
  return out.join('\\n');
}"""


def visible_text(page, root: str = '[data-testid="stApp"]') -> str:
    """The visible text of ``page`` under ``root`` outside KaTeX's output and form fields (:data:`VISIBLE_TEXT_JS`),
    one text node a line."""
    return page.evaluate(VISIBLE_TEXT_JS, root)


def katex_errors(page, timeout: int = 30000) -> list[str]:
    """Wait until KaTeX has drawn every formula on the page, then its problems: KaTeX's parse errors ("<message> in
    <source>" each) and formulas still not drawn after ``timeout`` ms ("not drawn: <text>").

    In Streamlit 1.67 ``st.latex`` is a markdown element whose body is ``$$ … $$``, drawn by KaTeX (lazily loaded)
    into a ``.katex-display``: a formula not yet drawn is a markdown container whose text still shows ``$$``."""
    undrawn = ("Array.from(document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]'))"
               ".filter(e => (e.innerText || '').includes('$$'))")
    try:
        page.wait_for_function(f"() => {undrawn}.length === 0", timeout=timeout)
    except Exception:  # noqa: BLE001 - Playwright's timeout: the formulas still undrawn are reported below
        pass
    errors = page.evaluate("() => Array.from(document.querySelectorAll('.katex-error'))"
                           ".map(e => (e.getAttribute('title') || '') + ' in ' + e.textContent)")
    return errors + page.evaluate(f"() => {undrawn}.map(e => 'not drawn: ' + e.innerText.slice(0, 160))")


def raw_tex_lines(text: str, pattern) -> list[str]:
    """The lines of ``text`` in which the regular expression ``pattern`` finds raw TeX."""
    return [line for line in text.splitlines() if pattern.search(line)]



def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker (``make test`` runs ``-n auto --dist loadfile --no-loadscope-reorder``,
    pyproject.toml), the real-browser files -- the longest, a minute or more each, though with few tests -- are
    collected first: loadfile then hands out whole files in collection order (not by their number of tests, which
    would leave the browser files for the end), so the long ones start at once and the many short files fill the
    gaps at the end, and both workers finish together.  Among the browser files the longest come first
    (:data:`_BROWSER_SECONDS`).  Each file keeps its own order of tests; a run without xdist keeps the usual order."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # a stable sort: the browser files, the longest first (xdist deals the first files out to the workers in
        # turn, so the two halves of a split walk run side by side), then the rest in their usual order
        items.sort(key=lambda item: (0, -_BROWSER_SECONDS.get(item.path.name, 30)) if "browser" in item.path.name
                   else (1, 0))


#: seconds of the longest real-browser files, -n 0 on a 2-core machine (benchmarks/RESULTS.md, "Test suite, session
#: 38"); the others count as 30 s.  Only the order of the files depends on these figures.
_BROWSER_SECONDS = {"test_browser_pages_katex.py": 180, "test_browser_widgets.py": 115,
                    "test_browser_charts.py": 105, "test_browser_display.py": 80, "test_browser_live_class.py": 85,
                    "test_browser_pages_katex_more.py": 80, "test_lessons_walk_browser.py": 90,
                    "test_lessons_browser.py": 60, "test_browser_statement.py": 70, "test_browser_inputs.py": 60,
                    "test_browser_audit.py": 55}


# --- the two tiers: `make check` runs everything but the real-browser tests (-m "not browser") -------------------
#: files that drive a real browser: every test in them must carry @pytest.mark.browser (a module-level
#: ``pytestmark``), so that ``make check`` leaves them out and ``make test`` runs them
_BROWSER_FILES = ("test_browser", "_browser.py")
_current: list = [None]  # the test being set up or run (read by the Playwright guard below)


def _is_browser_file(path) -> bool:
    return path.name.startswith(_BROWSER_FILES[0]) or path.name.endswith(_BROWSER_FILES[1])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session):
    """Fail the run when a test of a real-browser file lacks ``@pytest.mark.browser`` (it would run in
    ``make check``, which must stay free of browsers)."""
    unmarked = sorted({item.path.name for item in session.items
                       if _is_browser_file(item.path) and item.get_closest_marker("browser") is None})
    if unmarked:
        raise pytest.UsageError("tests in real-browser files lack @pytest.mark.browser (add `pytestmark = "
                                f"pytest.mark.browser` to the module): {', '.join(unmarked)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    _current[0] = item
    yield


@pytest.fixture(scope="session", autouse=True)
def _browser_launch_needs_the_marker():
    """Launching Chromium through Playwright from a test (or a fixture it uses) without ``@pytest.mark.browser``
    fails that test, wherever the file is: the marker is what keeps browsers out of ``make check``."""
    try:
        from playwright.sync_api._generated import BrowserType
    except ImportError:  # pragma: no cover -- no Playwright: nothing can launch a browser
        yield
        return
    original = BrowserType.launch

    def launch(self, *args, **kwargs):
        item = _current[0]
        if item is not None and item.get_closest_marker("browser") is None:
            pytest.fail(f"{item.nodeid} launches a browser but is not marked @pytest.mark.browser: mark it (or its "
                        "module: pytestmark = pytest.mark.browser) so that `make check` leaves it out.")
        return original(self, *args, **kwargs)

    BrowserType.launch = launch
    try:
        yield
    finally:
        BrowserType.launch = original


def open_page(page: str, query: dict | None = None, timeout: float = 60):
    """An AppTest of the dashboard (app.py) opened with the URL ``query`` and switched to ``page`` (e.g.
    ``"pages/bounds.py"``), checked to have raised nothing."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for k, val in (query or {}).items():
        at.query_params[k] = val
    at.run()
    at.switch_page(page).run()
    assert not at.exception
    return at

# --- one Chromium per module (suiteB38's browser files) ----------------------------------------------------------
@pytest.fixture(scope="module")
def module_browser():
    """One Chromium for every test of a module, each test opening its own page (a new context: cookies, storage and
    downloads apart) with :func:`new_page`.  Its Playwright instance stops at the end of the module, before the next
    module's tests start theirs (Playwright's sync API runs one instance per thread at a time)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


# --- dp_accounting's RDP of sampling without replacement, as a reference, without its repeated work -------------
import contextlib  # noqa: E402 - kept with the helper that uses it


@contextlib.contextmanager
def wor_forward_diffs_once():
    """Within this context dp_accounting computes the RDP of the subsampled Gaussian without replacement (Wang, Balle
    & Kasiviswanathan 2019, Theorem 27) with its own functions, bit for bit, but faster.

    For every integer order α <= 256 its ``_compute_rdp_sample_wor_gaussian_int`` asks ``_get_forward_diffs(cgf, α)``
    for the forward differences of exp(cgf) at 0 up to order α + 1: O(α²) Python steps each, about 3/4 of an
    accountant's time over dpviz's orders (tests/test_accounting_small_eps.py: ~1 s per reference).  The k-th
    difference depends only on cgf(0), ..., cgf(k + 1), computed by the same operations in the same order whatever α,
    so here ``_get_forward_diffs`` runs once per σ, at α = 256, and each order gets the first α + 2 differences: the
    very numbers dp_accounting computes (``test_wor_reference_without_repeated_work_is_bit_for_bit`` checks it)."""
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    original = rdp._get_forward_diffs
    done = {}

    def forward_diffs(fun, n):
        # the function is dp_accounting's closure cgf(x) = x (x + 1) / (2 σ²): its code and σ identify it
        key = (fun.__code__, tuple(cell.cell_contents for cell in fun.__closure__ or ()))
        if key not in done or len(done[key][0]) < n + 2:
            done[key] = original(fun, max(n, 256))
        deltas, signs = done[key]
        return deltas[:n + 2].copy(), signs[:n + 2].copy()

    rdp._get_forward_diffs = forward_diffs
    try:
        yield
    finally:
        rdp._get_forward_diffs = original
