"""The page caches are keyed by what a curve depends on: editing the swept parameter does not recompute its curve."""

from __future__ import annotations

import re

from dpviz_ui import helpers as ui
from dpviz.theory import catalog


def _counting(monkeypatch, name):
    calls = []
    real = getattr(catalog, name)

    def counted(*a, **k):
        calls.append(k)
        return real(*a, **k)

    monkeypatch.setattr(catalog, name, counted)
    return calls


def test_sigma_vs_eps_curve_is_not_recomputed_when_eps_changes(monkeypatch):
    ui._NOISE_POINTS.clear()
    calls = _counting(monkeypatch, "calibrate")
    grid = (0.5, 1.0, 2.0)
    base = {"n": 1234, "T": 1234, "delta": 1e-6, "G": 1.0, "d": 10, "eta": 0.01}
    first = ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 0.7}), "eps", grid)
    assert len(calls) == 3  # one calibration per grid point, each at the grid's eps
    assert [c["eps"] for c in calls] == list(grid)
    again = ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 1.9}), "eps", grid)
    assert again == first and len(calls) == 3  # the current eps is not part of the curve
    ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 1.9, "T": 999}), "eps", grid)
    assert len(calls) == 6  # T is: a new curve


def test_bound_curves_ignore_the_swept_value_and_delta_tied_to_n(monkeypatch):
    ui._BOUND_POINTS.clear()
    calls = _counting(monkeypatch, "bound")
    grid = (1000, 10000)
    p = {"d": 10, "eps": 1.0, "delta": 1e-6}
    ui.cached_bound_series("wang-lownoise-thm3a", ui.items({**p, "n": 500}), "n", grid, True)
    ui.cached_bound_series("wang-lownoise-thm3a", ui.items({**p, "n": 700, "delta": 1 / 700**2}), "n", grid, True)
    assert len(calls) == 2  # same curve: n and the delta that follows it are swept
    assert [c["delta"] for c in calls] == [1e-6, 1e-8]  # delta = 1/n^2 at each grid point
    ui.cached_bound_series("wang-lownoise-thm3a", ui.items({**p, "n": 700, "eps": 2.0}), "n", grid, True)
    assert len(calls) == 4


def test_chart_preload_script_is_constant_and_names_chunks_that_exist():
    # the first run of a browser session loads Plotly's and KaTeX's chunks once its numbers are painted; the script
    # is built from the installed Streamlit's file names only (nothing a user typed goes in)
    from pathlib import Path

    import streamlit as st

    from dpviz_ui import helpers as ui

    html = ui._chart_preload_html()
    assert html.startswith("<script>") and html.endswith("</script>")
    js = Path(st.__file__).parent / "static" / "static" / "js"
    names = re.findall(r'"([A-Za-z-]+\.[A-Za-z0-9_-]+\.js)"', html)
    assert any(n.startswith("PlotlyChart.") for n in names)
    for n in names:
        assert (js / n).is_file(), n
    assert html == ui._chart_preload_html()


def test_noise_points_past_the_budget_are_not_cached(monkeypatch):
    """A point skipped because the time budget ran out is returned as "timeout", never stored as "not private": the
    next call computes it (the points already computed come back at once)."""
    ui._NOISE_POINTS.clear()
    calls = _counting(monkeypatch, "calibrate")
    base = {"n": 1234, "T": 1234, "delta": 1e-6, "G": 1.0, "d": 10, "eta": 0.01}
    grid = (2.0, 4.0, 8.0, 16.0)
    first = ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 1.0}), "eps", grid, budget=0.0)
    # budget 0: the first unknown point is computed (progress is guaranteed), the others are skipped
    assert len(calls) == 1 and first[0] not in (None, "timeout") and first[1:] == ["timeout"] * 3
    second = ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 1.0}), "eps", grid, budget=0.0)
    assert len(calls) == 2 and second[:2] == [first[0], second[1]] and second[1] != "timeout"
    full = ui.cached_noise_series("dpsgd-rdp", ui.items({**base, "eps": 1.0}), "eps", grid)
    assert len(calls) == 4 and "timeout" not in full and full[:2] == second[:2]
    # and the complete curve is what an unhurried computation gives: sigma decreasing in eps, all private here
    assert all(isinstance(y, float) for y in full) and full == sorted(full, reverse=True)


def test_the_helpers_package_reexports_each_name_once_as_the_same_object():
    """``ui.X`` is the object its module defines (so ``ui._NOISE_POINTS.clear()`` clears the store the curves use),
    and every name is defined in one module of dpviz_ui/helpers/ only (issue 24)."""
    import ast
    import importlib
    import pkgutil

    defined: dict[str, str] = {}
    for m in pkgutil.iter_modules(ui.__path__, "dpviz_ui.helpers."):
        mod = importlib.import_module(m.name)
        for node in ast.parse(open(mod.__file__, encoding="utf-8").read()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign):
                names = [node.target.id]
            else:
                continue
            for name in names:
                assert name not in defined, f"{name} is defined in {defined[name]} and {m.name}"
                defined[name] = m.name
                assert getattr(ui, name) is getattr(mod, name), f"ui.{name} is not {m.name}.{name}"
    assert len(defined) > 95  # the walk saw the package (tex_sci and _SCI are dpviz.foundation.mathml's, below)
    from dpviz.foundation import mathml

    assert ui.tex_sci is mathml.tex_sci and ui._SCI is mathml._SCI  # one definition for the pages and the handouts
    for name in ("_NOISE_POINTS", "_NOISE_LOCK", "_BOUND_POINTS", "CURVE_BUDGET", "cached_feasibility_grid"):
        assert defined[name] == "dpviz_ui.helpers.cache"
    assert defined["_run_local"] == "dpviz_ui.helpers.state"
