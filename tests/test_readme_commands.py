"""Every quick `python -m dpviz ...` example of README.md runs as printed (exit 0, valid JSON where --json).

The long-running examples (reproduce at 500 repetitions, a 20 000-trial audit, sweeps of a spec file) are covered
by their own tests at small sizes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from dpviz.cli import commands as cli

README = Path(__file__).resolve().parent.parent / "README.md"
SLOW = ("reproduce", "audit", "sweep", "stability")


def _examples() -> list[str]:
    out = []
    for line in README.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^python -m dpviz (.+?)(\s+#.*)?$", line.strip())
        if m:
            out.append(m.group(1).strip())
    return out


def test_readme_has_examples():
    assert len(_examples()) >= 8


@pytest.mark.parametrize("command", [c for c in _examples() if c.split()[0] not in SLOW])
def test_readme_example_runs(command, capsys):
    assert cli.main(shlex.split(command)) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    if "--json" in command:
        json.loads(out)
