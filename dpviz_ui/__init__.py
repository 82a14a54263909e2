"""The dashboard's helpers: everything that exists only for the Streamlit pages, outside the ``dpviz`` library.

What belongs here: :mod:`.helpers`, the one shared Streamlit helper package (number inputs, cached calibrations,
``run_job``, ``show_figure``, ``latex``, link notices ...; one module per concern, the only package outside the app
that imports streamlit),
the pool of low-priority worker processes that runs the pages' heavy jobs (:mod:`.workers`), the Audit page's and
the sweep viewer's helpers (:mod:`.audit_page`, :mod:`.sweep_open`) and the lessons (:mod:`.lessons`).

What it may import: any layer of :mod:`dpviz` (not the CLI), and streamlit in :mod:`.helpers` only: the worker
processes, the offline lesson notebooks and the tests import the other modules without streamlit, so this
``__init__`` imports nothing.
"""
