"""One module per paper, or one package split where the paper splits (``wang_lownoise/``); references in docs/papers.md.

Each defines ``PAPER``, ``ALGORITHMS``, ``THEOREMS`` and ``TABLES`` (see :mod:`dpviz.theory.catalog`, whose
``PAPER_MODULES`` lists them); helpers that several papers share are in ``_common``.  A paper may import
:mod:`dpviz.foundation`, the rest of :mod:`dpviz.theory` and this package (never the engine or anything above).
"""
