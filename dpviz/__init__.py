"""dpviz: the theory of differentially private SGD, computed.

A pure computation library (no streamlit here): the catalogue of papers, algorithms and theorems
(:mod:`dpviz.catalog`), noise calibrations, schedules and bounds (:mod:`dpviz.papers`), losses
(:mod:`dpviz.losses`), and the command line (``python -m dpviz``).
"""

__version__ = "0.1.0"
