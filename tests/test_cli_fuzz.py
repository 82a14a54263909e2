"""Property-based check of the CLI contract (issue 13): every sub-command, every algorithm / theorem / table id,
hostile values (0, +-tiny, +-huge, nan, inf, strings) driven IN-PROCESS through ``dpviz.cli.commands.main(argv)``.

For every call: exit 0 with finite numbers (a calibration reported feasible carries a finite noise scale, a bound a
finite total; text output never shows inf / nan), or exit 2 with exactly one line on stderr; never a traceback or
another exit code; no call over 10 s of CPU time (CPU, not wall-clock, so a loaded CI machine does not fail it).
Sub-commands registered in ``cli.EXTENSIONS`` are found at run time from the parser and driven generically.

Deterministic (``derandomize=True``) and bounded (the whole file runs in about 20-30 s).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dpviz.theory import catalog
from dpviz.cli import commands as cli

EDGES = ["0", "-0", "5e-324", "-5e-324", "1e-310", "1e-308", "-1e-308", "1e-300", "1e-12", "1e-8", "0.5", "1", "2",
         "1e6", "1e12", "1e18", "1e308", "-1e308", "nan", "inf", "-inf", "abc", "", "1e", "0x10", "10**9", "ε"]
#: Typical values (every option set) from which one or two options are replaced by an edge value.
BASE = {"n": "1000", "d": "10", "eps": "1", "delta": "1e-5", "T": "100", "eta": "0.01", "G": "1", "L": "1", "M": "1",
        "R": "1", "alpha": "0.5", "mu": "0.1"}
OPTIONAL = ["c", "beta", "kappa"]
PARAM_NAMES = sorted(set(BASE) | set(OPTIONAL))
CPU_LIMIT_S = 10.0

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse --help etc.
            code = exc.code if isinstance(exc.code, int) else 2
    cpu = time.process_time() - t0
    assert cpu <= CPU_LIMIT_S, f"{argv}: {cpu:.1f} s of CPU"
    return code, out.getvalue(), err.getvalue()


def _finite_numbers(obj, path="") -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _finite_numbers(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _finite_numbers(v, f"{path}[{i}]")
    elif isinstance(obj, float):
        assert math.isfinite(obj), path


_NONFINITE_TEXT = re.compile(r"(?<![A-Za-z_])(-?inf|nan)(?![A-Za-z_])", re.IGNORECASE)


def check_contract(argv: list[str]) -> tuple[int, str]:
    code, out, err = call(argv)
    assert "Traceback" not in err, f"{argv}: {err}"
    if code == 0:
        assert err.strip() == "" or argv[0] == "reproduce", f"{argv}: stderr on success: {err!r}"
        if "--json" in argv:
            obj = json.loads(out)
            _finite_numbers(obj)
            if argv[0] == "calibrate" and obj["feasible"]:
                alg = catalog.get_algorithm(argv[argv.index("--algorithm") + 1])
                if alg.calibrate is not None and alg.noise != "none":
                    assert (obj["sigma"] is not None or obj["laplace_scale"] is not None
                            or obj["sigma_schedule"]), f"{argv}: feasible without a noise scale"
            if argv[0] == "bound":
                assert obj["total"] is not None, f"{argv}: null total"
                assert all(t["value"] is not None for t in obj["terms"]), f"{argv}: null term"
        elif argv[0] in ("calibrate", "bound", "tables"):
            numbers = "\n".join(line.split(":", 1)[-1] for line in out.splitlines()
                                if not line.startswith(("note:", "reason:", "fix:")))
            assert not _NONFINITE_TEXT.search(numbers.replace("\\infty", "")), f"{argv}: {out}"
    else:
        assert code == 2, f"{argv}: exit {code}: {err}"
        lines = err.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("error: "), f"{argv}: stderr {err!r}"
    return code, out


def _options(values: dict[str, str]) -> list[str]:
    return [tok for k, v in values.items() for tok in (f"--{k}", v)]


edits = st.lists(st.tuples(st.sampled_from(PARAM_NAMES), st.sampled_from(EDGES)), min_size=1, max_size=2)
as_param = st.booleans()  # pass the edited value as --NAME VALUE or as --param NAME=VALUE
json_flag = st.booleans()


def _argv(head: list[str], changes, use_param: bool, use_json: bool) -> list[str]:
    values = dict(BASE)
    extra: list[str] = []
    for name, value in changes:
        if use_param:
            values.pop(name, None)
            extra += ["--param", f"{name}={value}"]
        else:
            values[name] = value
    return head + _options(values) + extra + (["--json"] if use_json else [])


ALGORITHMS = [a.id for a in catalog.algorithms()]
THEOREMS = [t.id for t in catalog.theorems()]
TABLES = [t.id for t in catalog.tables()]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(FUZZ, max_examples=12)
@given(changes=edits, use_param=as_param, use_json=json_flag)
def test_calibrate_contract(algorithm, changes, use_param, use_json):
    check_contract(_argv(["calibrate", "--algorithm", algorithm], changes, use_param, use_json))


@pytest.mark.parametrize("theorem", THEOREMS)
@settings(FUZZ, max_examples=10)
@given(changes=edits, use_param=as_param, use_json=json_flag, explicit=st.booleans())
def test_bound_contract(theorem, changes, use_param, use_json, explicit):
    head = ["bound", "--theorem", theorem] + (["--explicit"] if explicit else [])
    check_contract(_argv(head, changes, use_param, use_json))


@settings(FUZZ, max_examples=25)
@given(table=st.sampled_from([None, *TABLES]), changes=edits, use_param=as_param, use_json=json_flag)
def test_tables_contract(table, changes, use_param, use_json):
    head = ["tables"] + ([] if table is None else ["--table", table])
    check_contract(_argv(head, changes, use_param, use_json))


@settings(FUZZ, max_examples=15)
@given(ident=st.sampled_from(EDGES + ["no-such-id", "dpsgd", "SGD"]), cmd=st.sampled_from(["calibrate", "bound"]))
def test_unknown_ids_and_names(ident, cmd):
    flag = "--algorithm" if cmd == "calibrate" else "--theorem"
    code, _ = check_contract([cmd, flag, ident] + _options(BASE))
    assert code == 2


@pytest.mark.parametrize("cmd, ident", [("calibrate", "dpsgd-rdp"), ("bound", "wang-nonsmooth-thm12")])
def test_misspelt_param_is_rejected_with_the_accepted_names(cmd, ident):
    flag = "--algorithm" if cmd == "calibrate" else "--theorem"
    code, out, err = call([cmd, flag, ident] + _options(BASE) + ["--param", "gama=0.5"])
    assert code == 2 and "gama" in err and "accepts" in err and "delta" in err


def test_listing_commands():
    for cmd in (["algorithms"], ["algorithms", "--json"], ["theorems"], ["theorems", "--json"]):
        assert check_contract(cmd)[0] == 0


@settings(FUZZ, max_examples=12)
@given(reps=st.sampled_from(["0", "-1", "1e308", "1e18", "nan", "abc", "20000", "2.5"]),
       seed=st.sampled_from(["0", "-1", "1e308", "nan", "x"]),
       name=st.sampled_from(["wang-lownoise-fig1", "wang-lownoise-fig2", "nope", ""]))
def test_reproduce_bad_input(tmp_path_factory, reps, seed, name):
    out = tmp_path_factory.mktemp("rep")
    code, _ = check_contract(["reproduce", name, "--reps", reps, "--seed", seed, "--out", str(out)])
    assert code == 2  # every combination has at least one invalid part, or is a valid name with bad reps


def test_reproduce_bad_out_and_one_tiny_run(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in ("/dev/null/x", str(blocker), str(blocker / "sub")):
        assert check_contract(["reproduce", "wang-lownoise-fig1", "--reps", "1", "--out", out])[0] == 2
    code, out = check_contract(["reproduce", "wang-lownoise-fig2", "--reps", "1", "--out", str(tmp_path / "ok")])
    assert code == 0 and json.loads(out)["csv"].endswith(".csv")


# --------------------------------------------------------------------------------------------------------------
# Sub-commands registered in cli.EXTENSIONS (found at run time): driven generically from their argparse options.

_CORE = {"algorithms", "theorems", "tables", "calibrate", "bound", "reproduce"}


def _extension_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {name: p for name, p in action.choices.items() if name not in _CORE}
    return {}  # pragma: no cover


EXTENSION_PARSERS = _extension_parsers()
_IDS = {"algorithm": ALGORITHMS, "theorem": THEOREMS, "table": TABLES}


@st.composite
def _extension_argv(draw, name: str):
    p = EXTENSION_PARSERS[name]
    argv = [name]
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        dest = action.dest
        typical = BASE.get(dest)
        if action.choices:
            values = [str(c) for c in action.choices] + ["no-such-choice"]
        elif dest in _IDS:
            values = _IDS[dest] + ["no-such-id"]
        else:
            values = ([typical] * 4 if typical else ["1"]) + EDGES
        if not action.option_strings:  # positional
            argv.append(draw(st.sampled_from(values)))
            continue
        if action.nargs == 0:  # a flag
            if draw(st.booleans()):
                argv.append(action.option_strings[0])
            continue
        if dest == "param":
            continue
        if action.required or typical or draw(st.booleans()):
            argv += [action.option_strings[-1], draw(st.sampled_from(values))]
    return argv


@pytest.mark.skipif(not EXTENSION_PARSERS, reason="no extension sub-commands registered")
@pytest.mark.parametrize("name", sorted(EXTENSION_PARSERS) or ["-"])
@settings(FUZZ, max_examples=10)
@given(data=st.data())
def test_extension_contract(name, data):
    check_contract(data.draw(_extension_argv(name)))


# --------------------------------------------------------------------------------------------------------------
# The exact reports of issue 13, items 3-5 (each must now exit 2 with one line, or exit 0 with finite numbers).

_ALL = ["--n", "1000", "--d", "10", "--T", "1000", "--G", "1", "--eta", "0.01", "--L", "1", "--M", "1", "--R", "1",
        "--alpha", "0.5", "--mu", "0.1"]


@pytest.mark.parametrize("argv, expect", [
    (["calibrate", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1", "--delta", "1e-310", "--T", "1000",
      "--G", "1"], 2),
    (["calibrate", "--algorithm", "dpsgd-rdp-pairwise", "--n", "1000", "--eps", "1", "--delta", "1e-310", "--T",
      "1000", "--G", "1"], 2),
    (["bound", "--theorem", "wang-nonsmooth-thm12", "--eps", "1", "--delta", "1e-310"] + _ALL, 2),
    (["tables", "--n", "1000", "--d", "10", "--eps", "1", "--delta", "0", "--alpha", "0.5"], 0),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1e18", "--delta", "1e-5"] + _ALL, 2),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1", "--delta", "1e-5"] + _ALL[2:] + ["--n", "1e308"], 2),
    (["bound", "--theorem", "kang-pidp-thm1", "--eps", "1", "--delta", "1e-5"] + _ALL[:-2] + ["--mu", "1e-308"], 2),
    (["calibrate", "--algorithm", "dpsgd-output", "--eps", "1e-308", "--delta", "1e-5", "--json"] + _ALL, 2),
    (["bound", "--theorem", "wang-lownoise-thm3a", "--eps", "5e-324", "--delta", "1e-5", "--json"] + _ALL, 2),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1", "--delta", "1e-5", "--param", "gama=0.5"] + _ALL, 2),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1", "--delta", "1e-5", "--c", "-1"] + _ALL, 2),
    (["bound", "--theorem", "wang-lownoise-thm3a", "--eps", "1", "--delta", "1e-5", "--R", "1e300"] + _ALL[:-8]
     + ["--alpha", "0.5", "--mu", "0.1"], 2),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1", "--delta", "1e-5", "--beta", "1.5"] + _ALL, 2),
    (["calibrate", "--algorithm", "dpsgd-rdp", "--eps", "1", "--delta", "1e-5", "--kappa", "-1"] + _ALL, 2),
])
def test_issue_13_reports(argv, expect, tmp_path):
    code, _ = check_contract(argv)
    assert code == expect
