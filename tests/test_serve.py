"""serve.py: the port it reads from the streamlit options, and priming a running server's page caches."""

from __future__ import annotations

import urllib.parse

import pytest

import serve


def test_port_of_reads_the_streamlit_option():
    assert serve._port_of([]) == 8501
    assert serve._port_of(["--server.headless", "true", "--server.port", "8123"]) == 8123
    assert serve._port_of(["--server.port=9000"]) == 9000
    with pytest.raises(ValueError):
        serve._port_of(["--server.port", "eighty"])


def test_prime_runs_the_pages_of_a_live_server(shared_server_process):
    proc, url = shared_server_process  # serve.launch's server, shared with the browser tests (tests/conftest.py)
    port = urllib.parse.urlparse(url).port
    took = serve.prime(port, pages=("calibrate",), timeout=60)
    assert 0 < took < 60
    assert proc.poll() is None  # the server is still up
