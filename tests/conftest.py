"""Shared fixtures: a streamlit server of the dashboard for the real-browser tests."""

import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def server():
    """The dashboard as ``make run`` serves it (serve.py: warm-up, then ``streamlit run app.py``)."""
    import serve

    try:
        proc, url = serve.launch(timeout=90)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --- helpers shared by the real-browser tests (Playwright pages) -----------------------------------------------------
WAIT = 60000


def query_of(page) -> dict:
    """The page's URL query parameters."""
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page.url).query))


def settle(page, timeout: int = WAIT) -> None:
    """Wait until the script run triggered by the last interaction has finished."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout)
    page.wait_for_timeout(300)


def wait_text(page, selector, text, timeout: int = WAIT) -> None:
    """Wait until some element matching ``selector`` contains ``text``."""
    page.wait_for_function(
        "([sel, t]) => Array.from(document.querySelectorAll(sel)).some(e => (e.textContent || '').includes(t))",
        arg=[selector, text], timeout=timeout)


def wait_query(page, name, value, timeout: int = WAIT) -> None:
    """Wait until the URL has ``name=value``."""
    page.wait_for_function(
        "([n, v]) => new URLSearchParams(window.location.search).get(n) === v", arg=[name, value], timeout=timeout)


def choose(page, key: str, label: str, typed: str | None = None) -> None:
    """Choose ``label`` in the selectbox with key ``key``: click it, type ``typed`` (default: the label), which
    filters the (virtualised) option list, and click the option."""
    page.locator(f".st-key-{key} input[role=combobox]").click()
    page.keyboard.type(label if typed is None else typed)
    page.get_by_role("option", name=label, exact=True).click()


def chosen(page, key: str) -> str:
    """The label the selectbox with key ``key`` shows."""
    return page.locator(f".st-key-{key} input[role=combobox]").input_value().strip()


def add_choice(page, key: str, label: str) -> None:
    """Add ``label`` to the multiselect with key ``key`` and close its list."""
    choose(page, key, label)
    page.keyboard.press("Escape")
