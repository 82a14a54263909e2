r"""The lessons' offline HTML handout renders every formula with no network (issue 23): formulas become MathML
(``dpviz.foundation.mathml``, through ``latex2mathml``), which Chromium draws natively, with the LaTeX source kept as the
annotation.  Checked here: the conversion of the macros dpviz uses (against MathML written by hand), that no
formula of any lesson, of any step's live view or reveal, or of the catalogue falls back to its source, that every
handout has no ``$…$`` or ``\(`` left outside MathML, that text is escaped, and (in Chromium, from a ``file://``
handout) that every formula is laid out as math with a non-zero size."""

import html
import os
import re
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, ROOT
from dpviz.theory import catalog
from dpviz_ui import lessons as L
from dpviz.foundation import mathml

OUT = ROOT / "test-artifacts"


def _rendered(mml: str) -> str:
    """The MathML without its annotation and alttext (what the browser draws)."""
    return re.sub(r'<annotation\b.*?</annotation>| alttext="[^"]*"', "", mml, flags=re.S)


#: mathvariant values other than "normal", which Chromium (MathML Core) does not apply
_IGNORED_VARIANT = re.compile(r'mathvariant="(?!normal")')


# ---------------------------------------------------------------------------------------------------------------------
# the conversion
# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tex, expected", [
    # \tfrac is a fraction (a text-style one)
    (r"\tfrac{a}{b}", ["<mfrac>", "<mi>a</mi>", "<mi>b</mi>"]),
    # \mathbb{E}: the double-struck E (U+1D53C)
    (r"\mathbb{E}[X]", ["<mi>\U0001D53C</mi>"]),
    (r"\mathbb E[X]", ["<mi>\U0001D53C</mi>"]),
    # \mathcal N: the script N (U+1D4A9), not mathvariant="script", which MathML Core ignores
    (r"\mathcal N(0, \sigma^2 I)", ["<mi>\U0001D4A9</mi>", "<msup>"]),
    # \lVert w \rVert: the norm bars U+2016 (or two vertical bars)
    (r"\lVert w\rVert_2", ["‖"]),
    # \text{...} stays text
    (r"\text{claim (b) shown: }yes", ["<mtext>claim\xa0(b)\xa0shown:\xa0</mtext>"]),
    # \operatorname{Var}: an upright operator name
    (r"\operatorname{Var}(X)", ["<mtext>Var</mtext>"]),
    # {\rm name}: upright text (the font switch of the bounds' term labels)
    (r"\underbrace{x}_{\rm privacy}", ["<munder>", "<mtext>privacy</mtext>"]),
    (r"{\rm bound}(10n)", ["<mtext>bound</mtext>", "<mn>10</mn>"]),
    # powers of ten written by Python as 1e-06 become 10^{-6}
    (r"\delta = 1e-06", ["<msup>", "<mn>10</mn>", "<mn>6</mn>"]),
    (r"\sqrt{2\ln(1.25/\delta)}", ["<msqrt>", "ln", "δ", '<mo lspace="0" rspace="0">/</mo>']),
    (r"\Big(\frac{a}{b}\Big)", ["<mfrac>", "("]),
    (r"\lceil x\rceil", ["⌈", "⌉"]),
    # a sized brace: the converter copies \{ into the <mo>; dpviz.foundation.mathml puts the brace character there
    (r"\min\Big\{a, b\Big\}", ['maxsize="1.623em">{</mo>', 'maxsize="1.623em">}</mo>', "min"]),
    (r"\Big\|x\Big\|", ['maxsize="1.623em">‖</mo>']),
    (r"a \le b,\ c \ge d", ["≤", "≥"]),
])
def test_macros_convert_to_the_expected_mathml(tex, expected):
    out = mathml.to_mathml(tex)
    assert out is not None, tex
    drawn = html.unescape(_rendered(out))
    assert "\\" not in drawn and not _IGNORED_VARIANT.search(drawn)
    for piece in expected:
        assert piece in drawn, (tex, piece, drawn)
    # the LaTeX source is kept, escaped, as the annotation and the alttext
    assert f'<annotation encoding="application/x-tex">{tex.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")}</annotation>' in out
    assert out.startswith("<math") and out.endswith("</math>") and "alttext=" in out


def test_unknown_macro_falls_back_visibly_to_escaped_source():
    out = mathml.math_html(r"\notamacro{x} < y")
    assert out.startswith('<code class="tex-fallback"') and r"\notamacro{x} &lt; y" in out
    assert mathml.math_html("  ", display=True) == ""


def test_text_is_escaped_outside_and_inside_formulas():
    out = mathml.text_html("<script>alert(1)</script> **bold**, *G* and $a<b$ & $\\frac{1}{2}$; F(w*) = 0")
    assert "<script>" not in out and "&lt;script&gt;" in out and "<b>bold</b>" in out and "&amp;" in out
    assert "<i>G</i>" in out and "F(w*) = 0" in out
    assert out.count("<math") == 2 and re.search(r"<mo>(&lt;|&#x0003C;)</mo>", out) and "a<b" not in out
    assert "$" not in re.sub(r"<math\b.*?</math>", "", out, flags=re.S)


def _lesson_formulas():
    """Every formula written in a lesson (its steps' texts and questions)."""
    for lesson in L.LESSONS:
        for i, step in enumerate(lesson.steps, 1):
            for where, text in (("text", step.text), ("question", step.question.prompt if step.question else "")):
                for m in re.finditer(r"\$(.+?)\$", text, re.S):
                    yield f"{lesson.id} step {i} {where}", m.group(1)


def test_every_formula_written_in_the_lessons_converts():
    got = list(_lesson_formulas())
    assert len(got) > 20
    failed = [(where, tex) for where, tex in got if mathml.to_mathml(tex) is None]
    assert failed == []
    assert [(w, t) for w, t in got if _IGNORED_VARIANT.search(mathml.to_mathml(t))] == []


def test_every_catalogue_formula_converts():
    """The calibrations' and bounds' formulas (symbolic and with numbers plugged in) that a lesson step can show,
    at the typical point of the KaTeX test, plus the algorithms', theorems' and tables' own formulas."""
    point = dict(n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5,
                 mu=0.1, kappa=1.0, Fstar=0.1, zeta=0.1)
    forms = catalog.formulas(point)
    assert len(forms) > 200
    failed = [(where, tex) for where, tex in forms if mathml.to_mathml(tex, display=True) is None]
    assert failed == []
    assert [(w, t) for w, t in forms if _IGNORED_VARIANT.search(mathml.to_mathml(t, display=True))] == []


# ---------------------------------------------------------------------------------------------------------------------
# the handouts
# ---------------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def handouts():
    return {}


def _handout(handouts, lesson_id):
    if lesson_id not in handouts:
        handouts[lesson_id] = L.lesson_html(lesson_id)
    return handouts[lesson_id]


def _outside_math(page: str) -> str:
    """The handout with its scripts (plotly.js, the charts' data, the copy handler) and MathML removed."""
    page = re.sub(r"<script\b.*?</script>|<style\b.*?</style>", "", page, flags=re.S)
    return re.sub(r"<math\b.*?</math>", "", page, flags=re.S)


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_handout_has_no_raw_latex_outside_mathml(handouts, lesson_id):
    page = _handout(handouts, lesson_id)
    rest = _outside_math(page)
    # no formula fell back to its source
    assert 'class="tex-fallback"' not in rest, re.findall(r'class="tex-fallback"[^>]*>([^<]*)', rest)
    assert "$" not in rest, re.findall(r".{0,40}\$.{0,40}", rest)[:3]
    assert "\\(" not in rest and "\\[" not in rest
    assert not re.search(r"\\[A-Za-z]+", rest), re.findall(r".{0,40}\\[A-Za-z]+.{0,40}", rest)[:3]
    # each step's formula and each reveal's formula (numbers plugged in) is there as MathML
    lesson = L.get_lesson(lesson_id)
    n_math = len(re.findall(r"<math\b", page))
    n_block = len(re.findall(r'<math\b[^>]*display="block"', page))
    assert n_block >= sum(1 for s in lesson.steps if s.question)
    assert n_math >= n_block + sum(len(re.findall(r"\$(.+?)\$", s.text)) for s in lesson.steps)
    assert not any(_IGNORED_VARIANT.search(m) for m in re.findall(r"<math\b.*?</math>", page, re.S))
    # nothing is loaded from the network
    assert not re.search(r"<script[^>]*\bsrc=", page) and not re.search(r"<link[^>]*\bhref=", page)


# ---------------------------------------------------------------------------------------------------------------------
# in Chromium
# ---------------------------------------------------------------------------------------------------------------------
SIZES_JS = """() => Array.from(document.querySelectorAll('math')).map(m => {
  const r = m.getBoundingClientRect();
  const a = m.querySelector('annotation');
  return {w: r.width, h: r.height, display: getComputedStyle(m).display,
          frac: m.querySelector('mfrac') ? m.querySelector('mfrac').getBoundingClientRect().height : null,
          annotation: a ? a.getBoundingClientRect().width + a.getBoundingClientRect().height : 0,
          tex: m.getAttribute('alttext')};
})"""


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="no Debian Chromium")
@pytest.mark.parametrize("lesson_id", ["gaussian", "dpsgd"])
def test_handout_math_renders_in_chromium_offline(handouts, lesson_id, tmp_path):
    from playwright.sync_api import sync_playwright

    path = tmp_path / f"dpviz_lesson_{lesson_id}.html"
    path.write_text(_handout(handouts, lesson_id), encoding="utf-8")
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)
        page = context.new_page()
        requests = []
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.goto(path.as_uri())
        page.wait_for_selector(".plotly-graph-div .main-svg", timeout=60000)  # the charts drew (plotly.js inline)
        sizes = page.evaluate(SIZES_JS)
        assert len(sizes) >= 10
        for s in sizes:
            assert s["w"] > 0 and s["h"] > 0, s
            assert "math" in s["display"], s  # laid out by the browser's MathML engine, not as unknown inline tags
            assert s["annotation"] == 0, s  # the LaTeX source is kept but not drawn
        # a fraction is laid out as a fraction: taller than a line of text
        line = page.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
        fracs = [s["frac"] for s in sizes if s["frac"]]
        assert fracs and max(fracs) > 1.5 * line
        assert page.locator(".tex-fallback").count() == 0
        assert requests == []
        # copying a selection with formulas copies their LaTeX source
        copied = page.evaluate("""() => {
          const m = document.querySelector('p math');
          const r = document.createRange(); r.setStartBefore(m); r.setEndAfter(m);
          const s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
          const dt = new DataTransfer();
          document.dispatchEvent(new ClipboardEvent('copy', {clipboardData: dt, bubbles: true, cancelable: true}));
          return [dt.getData('text/plain'), m.getAttribute('alttext')];
        }""")
        assert copied[0] == f"${copied[1]}$"
        page.locator("details").first.locator("summary").click()  # a reveal with its formula, numbers plugged in
        page.screenshot(path=str(OUT / f"lesson_handout_{lesson_id}.png"), full_page=False)
        shown = page.locator("details").first.locator("math[display=block]")
        assert shown.count() == 1 and shown.bounding_box()["height"] > 0
        shown.scroll_into_view_if_needed()
        page.screenshot(path=str(OUT / f"lesson_handout_{lesson_id}_reveal.png"))
        browser.close()


# ---------------------------------------------------------------------------------------------------------------------
# class-ready (issue 30): every number printed, plotly.js once, small enough to mail
# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in L.LESSONS])
def test_handout_is_class_ready(handouts, lesson_id):
    from dpviz_ui.lessons import handout

    page = _handout(handouts, lesson_id)
    assert len(page.encode("utf-8")) < 1.5e6, len(page.encode("utf-8"))
    # plotly.js (its basic bundle) is in the file exactly once, and every chart is drawn with it
    assert page.count("plotly.js (basic - minified)") == 1
    assert page.count(handout._plotly_js()[:2000]) == 1
    assert page.count("Plotly.newPlot") >= 1 and not re.search(r'"type":\s*"histogram"', page)
    # every number printed: no None / nan / inf anywhere a reader sees (scripts and styles apart)
    rest = re.sub(r"<[^>]+>", " ", _outside_math(page))
    assert not re.search(r"\b(None|nan|NaN|inf|Infinity)\b", rest), re.findall(r".{0,60}\b(?:None|nan|inf)\b.{0,20}",
                                                                             rest)[:3]
    lesson = L.get_lesson(lesson_id)
    for i, step in enumerate(lesson.steps, 1):
        assert f"Step {i}. " in page
        out = L.live(step.view, L.step_state(step), figure=False)
        for label, value in out["numbers"]:
            if label in step.hide:  # shown on a later step (the one that asks for it)
                continue
            assert f"<td>{html.escape(label)}</td><td>{handout._num_html(value)}</td>" in page, (label, value)
    assert page.count("<details>") == sum(1 for s in lesson.steps if s.question)


def test_handout_numbers_are_words_a_reader_understands():
    from dpviz_ui.lessons import handout

    assert handout._num_html(None) == "none (not defined at these settings)"
    assert handout._num_html(float("nan")) == "none (not defined at these settings)"
    assert handout._num_html(float("inf")) == "∞"
    assert handout._num_html(7.3886908007965175) == "7.389"
    assert handout._num_html(4.1136919538185224e-08) == "4.114·10<sup>−8</sup>"
    assert handout._num_html(1e-6) == "10<sup>−6</sup>" and handout._num_html(1000) == "1000"


# ---------------------------------------------------------------------------------------------------------------------
# the precomputed calibrations (dpviz_ui/lessons/noise_table.json): a handout in seconds, with the same numbers
# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_noise_table_holds_exactly_what_dpviz_calibrates():
    """Every entry of the table is what :func:`model._calibrated_noise` computes now, to the last bit (None where no
    σ is private): a handout written with the table prints the numbers it would print without it.  A change to a
    calibration or an accountant fails here until ``python -m dpviz_ui.lessons.noise_table`` is run again."""
    import json

    from dpviz_ui.lessons import model

    data = json.loads(model.NOISE_TABLE.read_text(encoding="utf-8"))
    assert len(data["noise"]) > 100
    wrong = []
    for key, stored in data["noise"].items():
        algorithm_id, items = json.loads(key)
        fresh = model._calibrated_noise(algorithm_id, dict(items))
        if not (fresh is None and stored is None or fresh is not None and stored is not None and fresh == stored):
            wrong.append((key, stored, fresh))
    assert not wrong, f"{len(wrong)} stale entries (run python -m dpviz_ui.lessons.noise_table), e.g. {wrong[:3]}"


def test_noise_table_serves_the_without_replacement_curves(monkeypatch):
    """PIDP-SGD's and DPSGD-PL's curves (the without-replacement accountant, ~0.2 s a point) in the heterogeneity
    lesson come from the table: no such calibration is computed while its steps are drawn."""
    from dpviz_ui.lessons import model

    assert model._noise_table(), "the table is missing or was computed with other versions of dp_accounting/numpy/scipy"
    computed = []
    original = model._calibrated_noise

    def spy(algorithm_id, p):
        if algorithm_id in ("pidp-sgd", "dpsgd-pl"):
            computed.append(model._table_key(algorithm_id, p))
        return original(algorithm_id, p)

    monkeypatch.setattr(model, "_calibrated_noise", spy)
    monkeypatch.setattr(model, "_NOISE_MEMO", {})
    monkeypatch.setattr(model, "_FEASIBLE_MEMO", {})
    for step in L.get_lesson("heterogeneity").steps:
        if step.view == "calibrate":
            L.chart(step.view, L.step_state(step), animate=step.animate)
    assert not computed, computed[:3]
