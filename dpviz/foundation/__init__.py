"""Foundation layer: pure helpers that every other layer may use.

What belongs here: the input checks and the one table of parameter ranges (:mod:`.validate`), statistics
(:mod:`.stats`), the Plotly figure builders, pure functions of data (:mod:`.figures`, :mod:`.privacy_figures`), and
the dashboard's URL schema and number parser (:mod:`.urlstate`).

What it may import: the standard library, numpy / scipy / pandas / plotly, and this package; nothing else of
dpviz (it is the lowest layer; see ``dpviz/_layers.py`` and ``docs/architecture.md``).
"""
