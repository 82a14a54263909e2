"""A Streamlit script that renders every catalogue formula with ``st.latex``, as the dashboard's pages do
(``dpviz_ui.helpers.tex_sci`` first), one keyed container per formula: used by ``tests/test_browser_katex.py`` to check in a
real browser that KaTeX renders each of them without an error."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st  # noqa: E402

from dpviz_ui import helpers as ui  # noqa: E402
from dpviz.theory import catalog  # noqa: E402

#: the typical point at which the calibrations' and bounds' formulas are built (as tests/test_catalog.py's BASE)
POINT = dict(n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, mu=0.1,
             kappa=1.0, Fstar=0.1, zeta=0.1)

FORMULAS = catalog.formulas(POINT)
st.text(f"{len(FORMULAS)} formulas")
for i, (where, tex) in enumerate(FORMULAS):
    with st.container(key=f"formula{i}"):
        st.text(where)
        st.latex(ui.tex_sci(tex))
