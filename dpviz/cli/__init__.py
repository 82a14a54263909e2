"""Command-line layer: ``python -m dpviz ...`` (the entry point is ``dpviz/__main__.py``).

What belongs here: the parser and the core sub-commands (:mod:`.commands`, whose ``main`` is re-exported here for
the ``dpviz`` console script), and one module per further sub-command group, registered in
``commands.EXTENSIONS``: ``account`` / ``privacy`` (:mod:`.account`), ``audit`` / ``stability`` (:mod:`.audit`) and
``sweep`` (:mod:`.sweep`).

What it may import: every layer of ``dpviz`` below it (foundation, theory, engine, labs, studies) and this package;
never :mod:`dpviz_ui` or streamlit.
"""

from dpviz.cli.commands import main

__all__ = ["main"]
