"""Shared fixtures: a streamlit server of the dashboard for the real-browser tests."""

import sys
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
