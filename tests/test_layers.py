"""The layering of dpviz (issue 24): no module imports from a higher layer of :data:`dpviz._layers.LAYERS`.

Every import is read from the source with :mod:`ast` -- the lazy ones inside functions too -- so the check does not
depend on what a test run happens to import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dpviz
from dpviz import _layers

ROOT = Path(__file__).resolve().parent.parent
#: top-level modules and packages of the repository that the layers cover
_TOP = ("dpviz", "dpviz_ui", "app", "serve", "pages")


def _module_files() -> dict[str, Path]:
    files = {}
    for path in [*sorted((ROOT / "dpviz").rglob("*.py")), *sorted((ROOT / "dpviz_ui").rglob("*.py")),
                 *sorted((ROOT / "pages").glob("*.py"))]:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    for name in ("app", "serve"):
        if (ROOT / f"{name}.py").exists():
            files[name] = ROOT / f"{name}.py"
    return files


def _imports(source: str, module: str, is_package: bool, known: set[str]) -> list[tuple[int, str]]:
    """(line, imported module of the repository) for every import statement in ``source``."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                base_mod = ".".join(base + ([node.module] if node.module else []))
            else:
                base_mod = node.module or ""
            # "from dpviz.engine import simulate": the module dpviz.engine.simulate; "from dpviz import simulate":
            # the module its short name stands for (dpviz.MODULES); "from dpviz import __version__": dpviz
            names = [f"{base_mod}.{a.name}" if f"{base_mod}.{a.name}" in known
                     else dpviz.MODULES[a.name] if base_mod == "dpviz" and a.name in dpviz.MODULES
                     else base_mod for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in _TOP or name.split(".")[0] == "streamlit":
                out.append((node.lineno, name))
    return out


def _violations(files: dict[str, Path]) -> list[str]:
    known = set(files)
    bad = []
    for module, path in files.items():
        here = _layers.layer_of(module)
        if here is None:
            bad.append(f"{module}: in no layer of dpviz/_layers.py (add it where it belongs)")
            continue
        for line, target in _imports(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", known):
            if target.split(".")[0] == "streamlit":
                name = _layers.LAYERS[here][0]
                if not _layers.may_import_streamlit(module):
                    bad.append(f"{module}:{line} imports streamlit (layer {name!r})")
                continue
            there = _layers.layer_of(target)
            if there is not None and there > here:
                bad.append(f"{module}:{line} (layer {_layers.LAYERS[here][0]!r}) imports {target} "
                           f"(higher layer {_layers.LAYERS[there][0]!r})")
    return bad


def test_no_module_imports_from_a_higher_layer():
    files = _module_files()
    assert len(files) > 40  # the walk found the library, the pages and the top-level modules
    assert _violations(files) == []


def test_every_layer_is_declared_once():
    seen = {}
    for name, what, mods in _layers.LAYERS:
        assert what and mods
        for m in mods:
            assert m not in seen, f"{m} is in the layers {seen[m]!r} and {name!r}"
            seen[m] = name
    # the order of the issue: theory < engine < labs < studies < cli < ui helpers
    order = [n for n, _w, _m in _layers.LAYERS]
    assert order == ["foundation", "theory", "engine", "labs", "studies", "cli", "ui", "app"]
    assert _layers.layer_of("dpviz.theory.papers.wang_lownoise") == order.index("theory")
    assert _layers.layer_of("dpviz.engine.simulate.plan") == order.index("engine")
    assert _layers.layer_of("dpviz.nonexistent") is None  # the root package covers its __init__ only


@pytest.mark.parametrize("module, source, expected", [
    ("dpviz.theory.catalog", "def f():\n    from dpviz.engine import simulate\n",
     "imports dpviz.engine.simulate"),  # a lazy import
    ("dpviz.theory.catalog", "from dpviz import simulate\n", "imports dpviz.engine.simulate"),  # a short name
    ("dpviz.engine.simulate.plan", "from dpviz.studies.experiments import EXPERIMENTS\n",
     "imports dpviz.studies.experiments"),
    ("dpviz.engine.data", "import dpviz_ui.workers\n", "imports dpviz_ui.workers"),
    ("dpviz.engine.simulate.plan", "from ...labs import canary_audit\n", "imports dpviz.labs.canary_audit"),  # relative
    ("dpviz.labs.canary_audit", "import streamlit as st\n", "imports streamlit"),
    ("dpviz_ui.workers", "import streamlit as st\n", "imports streamlit"),  # only dpviz_ui.helpers may
    ("dpviz_ui.helpersx", "import streamlit as st\n", "imports streamlit"),  # the package's modules, not a prefix
])
def test_the_check_catches_an_upward_import(tmp_path, module, source, expected):
    path = tmp_path / "mod.py"
    path.write_text(source)
    files = {**_module_files(), module: path}
    bad = [b for b in _violations(files) if b.startswith(module + ":")]
    assert len(bad) == 1 and expected in bad[0], bad


def test_a_module_in_no_layer_is_reported(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("x = 1\n")
    bad = _violations({**_module_files(), "dpviz.newthing": path})
    assert any(b.startswith("dpviz.newthing: in no layer") for b in bad)


#: the modules of the package dpviz_ui.lessons, lowest first: each imports only those before it (no cycles)
_LESSONS_ORDER = ("model", "curves", "views", "solvers", "content", "links", "handout", "noise_table")


def _order_violations(files: dict[str, Path], package: str, order: tuple[str, ...]) -> list[str]:
    """Imports by a module of ``package`` of itself, of a module after it in ``order`` or of the package (whose
    ``__init__`` imports them: a cycle), and modules of ``package`` missing from ``order``."""
    mods = [f"{package}.{m}" for m in order]
    bad = [f"{m}: not in the order of {package}'s modules (tests/test_layers.py)" for m in files
           if m.startswith(package + ".") and m not in mods]
    for i, module in enumerate(mods):
        for line, target in _imports(files[module].read_text(encoding="utf-8"), module, False, set(files)):
            if target in mods[i:] or target == package:
                bad.append(f"{module}:{line} imports {target}")
    return bad


def _lessons_violations(files: dict[str, Path]) -> list[str]:
    return _order_violations(files, "dpviz_ui.lessons", _LESSONS_ORDER)


def test_the_lessons_modules_import_only_those_below():
    assert _lessons_violations(_module_files()) == []


def test_an_upward_import_in_the_lessons_is_reported(tmp_path):
    path = tmp_path / "views.py"
    path.write_text("def f():\n    from dpviz_ui.lessons.content import LESSONS\n")
    bad = _lessons_violations({**_module_files(), "dpviz_ui.lessons.views": path})
    assert bad == ["dpviz_ui.lessons.views:2 imports dpviz_ui.lessons.content"], bad


#: the modules of the package dpviz_ui.helpers (the shared Streamlit helpers), lowest first: each imports only those
#: before it, never the package itself (its __init__ re-exports them all)
_HELPERS_ORDER = ("text", "state", "widgets", "sidebar", "cache", "downloads", "figures", "jobs")


def test_the_helpers_modules_import_only_those_below():
    assert _order_violations(_module_files(), "dpviz_ui.helpers", _HELPERS_ORDER) == []


@pytest.mark.parametrize("source, expected", [
    ("from .figures import show_figure\n", "dpviz_ui.helpers.cache:1 imports dpviz_ui.helpers.figures"),  # upward
    ("def f():\n    from dpviz_ui.helpers import jobs\n", "dpviz_ui.helpers.cache:2 imports dpviz_ui.helpers.jobs"),
    ("from dpviz_ui import helpers as ui\n", "dpviz_ui.helpers.cache:1 imports dpviz_ui.helpers"),  # the package
])
def test_an_upward_import_in_the_helpers_is_reported(tmp_path, source, expected):
    path = tmp_path / "cache.py"
    path.write_text(source)
    bad = _order_violations({**_module_files(), "dpviz_ui.helpers.cache": path}, "dpviz_ui.helpers", _HELPERS_ORDER)
    assert bad == [expected], bad


def test_a_helpers_module_out_of_the_order_is_reported(tmp_path):
    path = tmp_path / "extra.py"
    path.write_text("x = 1\n")
    bad = _order_violations({**_module_files(), "dpviz_ui.helpers.extra": path}, "dpviz_ui.helpers", _HELPERS_ORDER)
    assert bad == ["dpviz_ui.helpers.extra: not in the order of dpviz_ui.helpers's modules (tests/test_layers.py)"]


def _stale(files: dict[str, Path]) -> list[str]:
    """Imports of a module of the repository that does not exist (an old flat path such as ``dpviz.catalog``)."""
    known = set(files)
    bad = []
    for module, path in files.items():
        for line, target in _imports(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", known):
            top = target.split(".")[0]
            if top == "streamlit" or target in known or target in _layers_roots():
                continue
            # "from dpviz.theory.catalog import Paper" reads as dpviz.theory.catalog; a name of a module is fine
            if not any(target == k or k.startswith(target + ".") for k in known):
                bad.append(f"{module}:{line} imports {target}, which is no module of the tree (moved? run the tree "
                           "move script: see docs/architecture.md)")
    return bad


def _layers_roots() -> set[str]:
    return {"dpviz", "app", "serve", "pages", "dpviz_ui"}


def test_every_import_names_a_module_of_the_tree():
    """An import by an old flat path (``from dpviz.catalog import Paper``) fails here with the way to fix it."""
    assert _stale(_module_files()) == []


def test_a_stale_import_is_reported(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("from dpviz.catalog import Paper\n")
    bad = _stale({**_module_files(), "dpviz.theory.newthing": path})
    assert len(bad) == 1 and "imports dpviz.catalog" in bad[0], bad


# --- import cycles (issue 34) ----------------------------------------------------------------------------------------
# No two modules of the repository may import each other, directly or through others -- the lazy imports inside
# functions included: a lazy import only hides a cycle from the interpreter, and the modules of a cycle can still not
# be read, tested or moved one without the other.  (The single exception by construction: a package's
# ``__init__`` re-exporting its own submodules, which import each other and never the package, is no cycle here,
# since ``from pkg.sub import x`` is an edge to ``pkg.sub``.)  Names a module resolves at run time from a string
# (``importlib.import_module``, e.g. a study's ``runner = "studies.kang:run_section7"``) are plug-ins, not imports.


def _import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    known = set(files)
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        for _line, target in _imports(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", known):
            while target not in known and "." in target:  # "from dpviz.engine import data as d" already resolved;
                target = target.rpartition(".")[0]  # an attribute path ("pkg.mod.name") counts as its module
            if target in known and target != module:
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, with one cycle through them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out)


def _cycle_path(graph: dict[str, set[str]], comp: list[str]) -> str:
    """One cycle through the first module of ``comp`` (breadth-first back to it), as ``a -> b -> a``."""
    start, members = comp[0], set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & members):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return " -> ".join([*reversed(path), start])
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return " <-> ".join(comp)  # pragma: no cover


def test_no_import_cycles():
    graph = _import_graph(_module_files())
    found = [_cycle_path(graph, comp) for comp in _cycles(graph)]
    assert found == [], "import cycles (break each in one direction):\n" + "\n".join(found)


@pytest.mark.parametrize("sources, expected", [
    ({"dpviz.labs.a": "from dpviz.labs import b\n", "dpviz.labs.b": "def f():\n    from dpviz.labs import a\n"},
     "dpviz.labs.a -> dpviz.labs.b -> dpviz.labs.a"),  # a lazy import closes the cycle
    ({"dpviz.labs.a": "import dpviz.labs.b\n", "dpviz.labs.b": "import dpviz.labs.c\n",
      "dpviz.labs.c": "from dpviz.labs.a import x\n"}, "dpviz.labs.a -> dpviz.labs.b -> dpviz.labs.c -> dpviz.labs.a"),
    ({"dpviz.labs.a": "from . import b\n", "dpviz.labs.b": "from .a import f\n"},
     "dpviz.labs.a -> dpviz.labs.b -> dpviz.labs.a"),  # relative imports
])
def test_the_check_catches_an_import_cycle(tmp_path, sources, expected):
    files = {}
    for i, (module, source) in enumerate(sources.items()):
        path = tmp_path / f"m{i}.py"
        path.write_text(source)
        files[module] = path
    graph = _import_graph(files)
    assert [_cycle_path(graph, comp) for comp in _cycles(graph)] == [expected]
    # and with the repository's own modules around them
    graph = _import_graph({**_module_files(), **files})
    assert expected in [_cycle_path(graph, comp) for comp in _cycles(graph)]
