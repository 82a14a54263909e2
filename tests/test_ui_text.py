"""Notes, warnings and captions are written in the papers' notation (σ, λ, α, √, 10⁻⁶), never in ASCII names."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz_ui import helpers as ui

APP = Path(__file__).resolve().parent.parent / "app.py"
ASCII_NAMES = re.compile(r"(?<![\\a-zA-Z])(sigma|lambda|alpha|kappa|epsilon|sqrt|delta|Delta)(?![a-zA-Z])")


@pytest.mark.parametrize("text, want", [
    ("sigma^2 >= 2.68 G^2", "σ² >= 2.68 G²"),
    ("n^((alpha^2+2alpha-3)/(2(1+alpha)))", "n^((α²+2α-3)/(2(1+α)))"),
    ("eps/(T sqrt(d log(1/delta)))", "ε/(T √(d log(1/δ)))"),
    ("xi <= 2B + K_alpha a", "ξ <= 2B + K_α a"),
    ("sigma_c at eps2 = 0.5, delta 1e-06", "σ_c at ε2 = 0.5, δ 10⁻⁶"),
    ("maximum, alphabet, beta-version, \\alpha", "maximum, alphabet, β-version, \\alpha"),  # only whole names
    # Yang, Lei, Lyu & Ying's Theorem 1 note on Bounds, as the page shows it
    ("total = Delta_T = sqrt(iteration^2 + sampling^2).", "total = Δ_T = √(iteration² + sampling²)."),
])
def test_pretty_writes_the_papers_notation(text, want):
    assert ui.pretty(text) == want


def test_pretty_rejects_nothing_and_keeps_plain_text():
    assert ui.pretty("T = 1000 iterations of the algorithm") == "T = 1000 iterations of the algorithm"
    assert ui.pretty(3) == "3"


@pytest.mark.parametrize("schedule", ["wang-lownoise-thm4b", "wang-lownoise-thm3a", "wang-nonsmooth-thm12"])
def test_calibrate_notes_have_no_ascii_greek(schedule):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["schedule"] = schedule
    at.run()
    at.switch_page("pages/calibrate.py").run()
    assert not at.exception
    texts = [w.value for w in at.warning] + [c.value for c in at.caption] + [e.value for e in at.error]
    # a command in backticks (e.g. the privacy statement's `python -m dpviz account … --alpha 0.5 --delta …`) keeps
    # the command line's ASCII option names; the prose around it may not
    bad = [t for t in texts if ASCII_NAMES.search(re.sub(r"`[^`]*`", "", str(t)))]
    assert not bad, bad


@pytest.mark.parametrize("tex, want", [("O(n)", "O(n)"), (r"\mathcal{O}(n)", "O(n)"), (r"\log(n)", "log(n)"),
                                       (r"T = O(n^2)", "T = O(n^2)"), (r"\sqrt{(n)}", "√n"), ("(n)", "n"),
                                       (r"\frac{\sqrt{d}}{n\epsilon}", "(√d)/(nε)")])
def test_latex_plain_keeps_a_functions_parentheses(tex, want):
    # the Bounds page's comparison tables printed "On" for the gradient complexity O(n)
    assert ui.latex_plain(tex) == want


def test_bounds_tables_print_o_of_n():
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/bounds.py").run()
    assert not at.exception
    cells = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "O(n)" in cells and "'On'" not in cells


def test_pretty_writes_kang_et_al_superscripts():
    # the PIDP-SGD texts showed "b^(c)" and "c_t^(o)" (Kang, Li, Liu & Wang's contribution noise and term)
    assert ui.pretty("not the per-step b^(c) nor c_t^(o)") == "not the per-step b⁽ᶜ⁾ nor c_t⁽ᵒ⁾"


def test_pretty_writes_index_groups_without_raw_tex():
    # issue 30: the notes' ASCII index notation reached the screen as raw TeX (M_{alpha,1}, z_{i_{t+1}}, H^{-1})
    assert ui.pretty("w_{t+1} = w_t - eta g") == "wₜ₊₁ = w_t - η g"
    assert ui.pretty("a = M_{alpha,1}^2/(2kappa)") == "a = M_(α,1)²/(2κ)"
    assert ui.pretty("(z_{i_{t+1}}, z_{i_k})") == "(zᵢₜ₊₁, z_(i_k))"
    assert ui.pretty("H^{-1} and sum_{l<=t}") == "H⁻¹ and sum_(l≤t)"


def test_catalogue_texts_shown_as_plain_text_have_no_raw_tex():
    """Every text of the catalogue the pages show as plain text (descriptions, readings of the papers, notes, risks;
    the audit's assumptions) has no raw TeX once written in the papers' notation (``ui.pretty``)."""
    from dpviz.labs import audit_methods as auditing
    from dpviz.theory import catalog

    raw = re.compile(r"\^\{|_\{|\\[A-Za-z]{2,}|\$")
    bad = []
    for obj in list(catalog.algorithms()) + list(catalog.theorems()) + list(catalog.papers()):
        for field in ("description", "discrepancy", "risk", "notes", "title"):
            value = getattr(obj, field, None)
            for text in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(text, str) and raw.search(ui.pretty(text)):
                    bad.append((obj.id, field, ui.pretty(text)[:120]))
    bad += [(k, "assumption", s) for k, s in auditing.ASSUMPTIONS.items() if raw.search(s)]
    assert not bad, bad
