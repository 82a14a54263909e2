"""dpviz dashboard entry point (placeholder until the dashboard lands)."""
import streamlit as st

st.set_page_config(page_title="dpviz", layout="wide")
st.title("dpviz — the theory of differentially private SGD")
st.write(
    "The Calibrate, Bounds and Simulate pages are coming. Meanwhile every calibration and bound is available from "
    "the command line: `python -m dpviz --help`."
)
