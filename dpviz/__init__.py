"""dpviz: the theory of differentially private SGD, computed.

A pure computation library (no streamlit here), in one subpackage per layer, lowest first (``dpviz/_layers.py``,
``docs/architecture.md``):

- :mod:`dpviz.foundation` -- input checks, statistics, Plotly builders, the dashboard's URL schema;
- :mod:`dpviz.theory` -- the catalogue of papers, algorithms and theorems (:mod:`dpviz.theory.catalog`), one module
  or package per paper (:mod:`dpviz.theory.papers`), the Gaussian mechanism, the numerical accountants;
- :mod:`dpviz.engine` -- the simulation engine, losses, data sets, projections, reference risk;
- :mod:`dpviz.labs` -- the privacy audits, the stability experiments, the privacy-accounting lab;
- :mod:`dpviz.studies` -- the papers' experiments, reproductions, studies and sweeps;
- :mod:`dpviz.cli` -- the command line, ``python -m dpviz``.

The modules keep their short public names: ``from dpviz import catalog, simulate, data, losses, sweep, ...`` (and
``dpviz.catalog`` after ``import dpviz``) give the modules of their layer, imported on first use only, so that
``import dpviz`` stays light.  The library's own code imports them by their full path (``from dpviz.theory import
catalog``); ``tests/test_layers.py`` reads these names as the modules they stand for.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: the short public name of each library module -> its module (the flat names of dpviz before issue 24)
MODULES: dict[str, str] = {
    "_validate": "dpviz.foundation.validate",
    "stats": "dpviz.foundation.stats",
    "figures": "dpviz.foundation.figures",
    "privacy_figures": "dpviz.foundation.privacy_figures",
    "urlstate": "dpviz.foundation.urlstate",
    "catalog": "dpviz.theory.catalog",
    "gaussian": "dpviz.theory.gaussian",
    "accounting": "dpviz.theory.accounting",
    "papers": "dpviz.theory.papers",
    "simulate": "dpviz.engine.simulate",
    "losses": "dpviz.engine.losses",
    "data": "dpviz.engine.data",
    "projections": "dpviz.engine.projections",
    "reference": "dpviz.engine.reference",
    "canary_audit": "dpviz.labs.canary_audit",
    "audit_methods": "dpviz.labs.audit_methods",
    "audit_planner": "dpviz.labs.audit_planner",
    "tradeoff": "dpviz.labs.tradeoff",
    "stability": "dpviz.labs.stability",
    "privacy_lab": "dpviz.labs.privacy_lab",
    "experiments": "dpviz.studies.experiments",
    "reproduce": "dpviz.studies.reproduce",
    "studies_kang": "dpviz.studies.kang",
    "studies_xue": "dpviz.studies.xue",
    "sweep": "dpviz.studies.sweep",
    "cli_account": "dpviz.cli.account",
    "cli_audit": "dpviz.cli.audit",
    "cli_sweep": "dpviz.cli.sweep",
}


def __getattr__(name: str):
    """``dpviz.catalog`` / ``from dpviz import catalog``: the module of its layer, imported on first use."""
    target = MODULES.get(name)
    if target is None:
        raise AttributeError(f"module 'dpviz' has no attribute {name!r}")
    module = importlib.import_module(target)
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted({*globals(), *MODULES})
