"""dpviz dashboard entry point: navigation, home page and preset gallery."""

import json
from pathlib import Path

import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, urlstate

st.set_page_config(page_title="dpviz", layout="wide")
PRESETS = Path(__file__).parent / "assets" / "presets"


def load_presets() -> list[dict]:
    out = []
    for f in sorted(PRESETS.glob("*.json")):
        try:
            data = json.loads(f.read_text())
            state = {k: urlstate.validate(k, v) for k, v in data["state"].items()}
            out.append({"id": f.stem, "title": str(data["title"]), "text": str(data.get("text", "")),
                        "page": str(data.get("page", "calibrate")), "state": state})
        except (ValueError, KeyError, TypeError):
            continue
    return out


def home() -> None:
    st.title("dpviz — the theory of differentially private SGD")
    st.write("dpviz turns five papers on differentially private (stochastic) gradient methods into calculators: "
             "calibrate the noise for a privacy budget, compare risk bounds, and check them against simulations.")
    st.write("Papers covered:")
    for p in catalog.papers():
        st.write(f"- {p.cite()}")
    st.write("Start with **Calibrate** (how much noise?) or **Bounds** (how accurate?), or load a paper's setting:")
    st.subheader("Preset gallery")
    for pr in load_presets():
        c1, c2 = st.columns([1, 3])
        if c1.button(pr["title"], key=f"preset_{pr['id']}"):
            ui.view().update(pr["state"])
            ui.sync_url()
            st.switch_page(f"pages/{pr['page']}.py")
        c2.caption(pr["text"])


ui.init_state()
nav = st.navigation([
    st.Page(home, title="Home", default=True),
    st.Page("pages/calibrate.py", title="Calibrate"),
    st.Page("pages/bounds.py", title="Bounds"),
    st.Page("pages/simulate.py", title="Simulate"),
])
nav.run()
