"""dpviz dashboard entry point: navigation, home page and preset gallery."""

import json
from pathlib import Path

import streamlit as st

from dpviz_ui import helpers as ui
from dpviz.theory import catalog
from dpviz.foundation import urlstate

st.set_page_config(page_title="dpviz", layout="wide")
# A constant style sheet (nothing from the user goes in): long formulas scroll sideways with a scrollbar that is
# always drawn (not an overlay that appears on hover), so a cut formula shows that it goes on; metric labels and
# values wrap and shrink with the window instead of ending in "…" (at 1024 × 768 five metrics share ~560 px).
st.html("<style>.katex-display{overflow-x:auto;overflow-y:hidden;padding-bottom:4px}"
        ".katex-display::-webkit-scrollbar{height:10px}"
        ".katex-display::-webkit-scrollbar-thumb{background:#b8b8b8;border-radius:5px}"
        ".katex-display::-webkit-scrollbar-track{background:#f0f0f0;border-radius:5px}"
        "[data-testid='stMetricLabel'],[data-testid='stMetricLabel'] *,[data-testid='stMetricValue'],"
        "[data-testid='stMetricValue'] *{white-space:normal!important;overflow:visible!important;"
        "text-overflow:clip!important;overflow-wrap:anywhere}"
        "[data-testid='stMetricValue']{font-size:clamp(1.1rem,2.3vw,2.25rem)}"
        ".stButton button p{white-space:normal;text-align:left}</style>")
PRESETS = Path(__file__).parent / "assets" / "presets"


PAGES = ("calibrate", "bounds", "simulate", "accounting", "audit", "check")


def load_presets() -> tuple[list[dict], list[str]]:
    """The preset gallery and the problems of presets that could not be loaded (shown, never silently dropped).

    A preset file ``{"experiment": ID}`` is a paper experiment: its view, title and text come from the one definition
    in :data:`dpviz.studies.experiments.EXPERIMENTS` (``Experiment.preset_view``), the same one ``python -m dpviz reproduce``
    runs.  Any other preset is data (``title``, ``page``, ``text``, ``state``) and every entry of its state is
    validated against :data:`dpviz.foundation.urlstate.SCHEMA`.
    """
    from dpviz.studies import experiments

    out, problems = [], []
    for f in sorted(PRESETS.glob("*.json")):
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if "experiment" in data:
                if set(data) - {"experiment"}:
                    raise ValueError("an experiment preset holds only its experiment id (the rest comes from "
                                     "dpviz/studies/experiments.py)")
                e = experiments.get(data["experiment"])
                state = e.preset_view()
                page = state.pop("page")
                out.append({"id": f.stem, "title": e.preset["title"], "text": e.preset_text(), "page": page,
                            "state": state, "experiment": e.id})
                continue
            extra = set(data) - {"title", "page", "text", "state"}
            if extra:
                raise ValueError(f"unknown field(s) {', '.join(sorted(extra))}")
            page = str(data["page"])
            if page not in PAGES:
                raise ValueError(f"page {page!r} is not one of {', '.join(PAGES)}")
            state = {k: urlstate.validate(k, v) for k, v in data["state"].items()}
            out.append({"id": f.stem, "title": str(data["title"]), "text": str(data.get("text", "")),
                        "page": page, "state": state, "experiment": None})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(f"{f.name}: {exc}")
    return out, problems


def home() -> None:
    st.title("dpviz — the theory of differentially private SGD")
    st.page_link("pages/check.py", label="Training with DP-SGD? **Check a run** — is it private enough for your "
                 "target ε (batch size, epochs, noise multiplier, δ; Poisson or shuffled batches)?")
    st.write("dpviz turns five papers on differentially private (stochastic) gradient methods into calculators: "
             "calibrate the noise for a privacy budget, compare excess-risk bounds, and check them against "
             "simulations. Every number comes from a formula of one of the papers, shown with the numbers plugged in.")
    st.markdown(
        "**How to start** — the five pages, in the order a first visit might take them:\n"
        "1. **Calibrate** — pick an algorithm and a loss, set n, d, ε and δ in the sidebar, and read off the noise "
        "σ, the step size η, the number of iterations T, and whether the setting is *feasible* — that is, whether "
        "the paper's privacy conditions hold there, so that the noise it prescribes makes the output (ε, δ)-"
        "differentially private (and if not, what would fix it).\n"
        "2. **Bounds** — pick one or more theorems and see their excess-risk bounds as named terms (statistical, "
        "privacy, optimisation) against n and ε on log-log axes, with the papers' comparison tables.\n"
        "3. **Simulate** — run an algorithm many times on synthetic or real data and compare the empirical excess "
        "risk (with a 95 % band) with the theory.\n"
        "4. **Accounting** — set each paper's σ beside tight numerical accountants of the same mechanism (the ε "
        "they certify for that σ, the σ they need for that ε), and a DP-SGD calculator in the style of Opacus.\n"
        "5. **Audit** — measure privacy and stability: an empirical lower bound on ε from trainings on two "
        "neighbouring data sets, and the measured distance of coupled runs beside the papers' stability bounds.\n\n"
        "Privacy budget: **smaller ε means more privacy** and therefore more noise; δ is the small probability "
        "with which the guarantee may fail (by default δ = 1/n²). Every setting lives in the page's address: copy "
        "the link to share exactly what you see.")
    teaching()
    st.write("Papers covered:")
    for p in catalog.papers():
        st.write(f"- {p.cite()}: {p.title}")
    st.subheader("Preset gallery")
    presets, problems = load_presets()
    if problems:
        st.warning("Some presets could not be loaded: " + "; ".join(ui.plain(p) for p in problems))
    for pr in presets:
        c1, c2 = st.columns([2, 3])
        if c1.button(pr["title"], key=f"preset_{pr['id']}", width="stretch"):
            fresh = {k: (list(val) if isinstance(val, list) else val) for k, val in urlstate.DEFAULTS.items()}
            state = dict(pr["state"])
            if pr["page"] == "simulate":  # a preset's T and η are its own (a paper's experiment), not a theorem's
                state.setdefault("sim_schedule", "manual")
            st.session_state["_view"] = {**fresh, **state}  # a preset starts from the defaults
            ui.sync_url()
            st.switch_page(f"pages/{pr['page']}.py")
        c2.caption(pr["text"])


def teaching() -> None:
    """Home's way in for a lecturer: the Lessons page, one line per lesson."""
    from dpviz_ui import lessons

    st.subheader("Teaching? Start here")
    st.page_link("pages/lessons.py", label="Lessons: guided steps to run in front of a class (predict, then reveal; "
                 "presenter mode; handouts)", icon=":material/school:")
    st.markdown("\n".join(f"- **{lesson.title}** — {len(lesson.steps)} steps, about {lesson.minutes} minutes"
                          for lesson in lessons.LESSONS))


st.session_state["_nav_ready"] = True  # this run goes through st.navigation (see dpviz_ui.helpers._legacy_pages_fallback)
ui.init_state()
ui.show_link_notice()
nav = st.navigation([
    st.Page(home, title="Home", default=True),
    st.Page("pages/check.py", title="Check a run"),
    st.Page("pages/calibrate.py", title="Calibrate"),
    st.Page("pages/bounds.py", title="Bounds"),
    st.Page("pages/simulate.py", title="Simulate"),
    st.Page("pages/accounting.py", title="Accounting"),
    st.Page("pages/audit.py", title="Audit"),
    st.Page("pages/lessons.py", title="Lessons"),
    st.Page("pages/live_class.py", title="Live class", url_path="class"),
])
try:
    nav.run()
finally:  # also after st.stop(): the first run of a browser session draws its held-back charts a moment later
    ui.after_run()
