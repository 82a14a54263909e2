"""The layers of dpviz, lowest first: a module may import from its own layer and the layers below, never above.

``tests/test_layers.py`` walks every module's imports (with :mod:`ast`, lazy imports inside functions included) and
fails when one imports from a higher layer or when a module is in no layer, so the plan cannot drift.  The layers,
what each holds and how a request flows through them are described in ``docs/architecture.md``.

Names are module paths relative to the repository root without ``.py`` (``dpviz.theory.catalog``); a package
(``dpviz.theory``, ``dpviz_ui``, ``pages``) stands for all its modules, except the root ``dpviz``, which is its
``__init__`` only.  The short names ``from dpviz import catalog`` (:data:`dpviz.MODULES`) count as the modules they
stand for.  ``streamlit`` may be imported only by the ``app`` layer and the package ``dpviz_ui.helpers``: nothing under
``dpviz/`` imports it, nor do the other modules of ``dpviz_ui``, which the worker processes and the offline lesson
notebooks import (``tests/test_purity.py`` checks it at run time, ``tests/test_layers.py`` in the source).
"""

from __future__ import annotations

#: (layer name, what it holds, its packages / modules), lowest layer first.  Each layer is one folder: a package of
#: ``dpviz`` (whose ``__init__`` says what belongs there and what it may import), ``dpviz_ui`` for the dashboard's
#: helpers, and the app's own files.
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("foundation", "input checks, statistics, Plotly builders, the dashboard's URL schema and LaTeX to MathML: "
                   "pure helpers that import nothing above them",
     ("dpviz", "dpviz._layers", "dpviz.foundation")),
    ("theory", "the catalogue of papers, algorithms and theorems, one module or package per paper, the Gaussian "
               "mechanism, the numerical privacy accountants",
     ("dpviz.theory",)),
    ("engine", "the batched simulation engine, the losses, the data sets, the projections onto W, the reference "
               "risk",
     ("dpviz.engine",)),
    ("labs", "the privacy audit and its trade-off-curve (f-DP) audits, the stability experiments, the "
             "privacy-accounting lab",
     ("dpviz.labs",)),
    ("studies", "the papers' experiments (one definition, one runner), the simulation figures, the studies of "
                "Kang et al. Section 7 and Xue et al. Section 5, the Dask sweeps",
     ("dpviz.studies",)),
    ("cli", "the command line, ``python -m dpviz``",
     ("dpviz.cli", "dpviz.__main__")),
    ("ui", "what exists only for the dashboard (outside dpviz/): the shared Streamlit helper module, the worker "
           "pool, the Audit page's and the sweep viewer's helpers, the lessons",
     ("dpviz_ui",)),
    ("app", "the Streamlit entry point, its pages and the server launcher",
     ("app", "pages", "serve")),
)

#: layers whose modules may import streamlit
STREAMLIT_LAYERS = ("app",)
#: modules outside those layers that may import streamlit (a package: all its modules): the UI helpers, and the live
#: class's fix of Streamlit's session event delivery (it patches Streamlit itself; imported only when installed)
STREAMLIT_MODULES = ("dpviz_ui.helpers", "dpviz_ui.classroom.delivery")


def may_import_streamlit(module: str) -> bool:
    """Whether ``module`` (a dotted path) may import streamlit: a module of an app layer or of
    :data:`STREAMLIT_MODULES` (the package ``dpviz_ui.helpers`` and its modules)."""
    where = layer_of(module)
    if where is not None and LAYERS[where][0] in STREAMLIT_LAYERS:
        return True
    return any(module == m or module.startswith(m + ".") for m in STREAMLIT_MODULES)


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module`` (a dotted path), by its longest declared prefix; None if undeclared."""
    best, where = -1, None
    for i, (_name, _what, mods) in enumerate(LAYERS):
        for m in mods:
            # the root package "dpviz" is its __init__ only; other entries also cover their submodules
            if (module == m or (m != "dpviz" and module.startswith(m + "."))) and len(m) > best:
                best, where = len(m), i
    return where
