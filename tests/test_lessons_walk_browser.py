"""Real-browser tests of the Lessons page, part 2 (part 1, with the helpers used here, is
tests/test_lessons_browser.py; a file of its own so that xdist runs the two in parallel): every lesson walked step by
step (numbers, formulas, questions held back and revealed), and presenter mode fitting a projector's screen.
Screenshots go to test-artifacts/."""

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import (ARGS, CHARTS_DRAWN_JS, CHROMIUM, katex_errors, new_page, raw_tex_lines, settle,  # noqa: E402
                      visible_text)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

from dpviz_ui import helpers as ui  # noqa: E402  (the page's own number format)
from dpviz_ui import lessons as L  # noqa: E402
from test_lessons_browser import OUT, _at_step, _expect_numbers, _live, _reveal, _wait  # noqa: E402  (part 1's helpers)


#: raw TeX that KaTeX did not render (issue 30): a superscript or subscript group, a fraction, a dollar sign
RAW_TEX = re.compile(r"\^\{|_\{|\\frac|\$")


def _check_formulas(page, where):
    """No KaTeX error and no raw TeX in the visible text of the main area (after every formula has been drawn);
    that text, one text node a line (the words a student reads, chart titles, axes and legends included)."""
    errors = katex_errors(page)
    assert not errors, f"{where}: KaTeX errors {errors}"
    text = visible_text(page, '[data-testid="stMain"]')
    bad = raw_tex_lines(text, RAW_TEX)
    assert not bad, f"{where}: raw TeX on screen: {bad[:5]}"
    return text


def _answer_forms(answer) -> set:
    if isinstance(answer, str):
        return {answer}
    forms = {f"{answer:.3g}", f"{answer:.4g}", ui.fmt(float(answer))}
    return forms | {f.replace("-", "−") for f in forms}


def _has_number(text, forms) -> bool:
    return any(re.search(r"(?<![\d.])" + re.escape(f) + r"(?!\d|\.\d)", text) for f in forms)


def _short(answer) -> bool:
    """A choice, or a number printed with one significant digit (2, 0.5): digits every formula has."""
    if isinstance(answer, str):
        return True
    return len(re.sub(r"e[+-]\d+$", "", f"{answer:.3g}").replace("-", "").replace("0.", "").replace(".", "")) <= 1


def _checked_question(lesson) -> int:
    """The step of ``lesson`` whose answer the walk looks for on screen: its first question with a multi-digit
    number for an answer, else its first question."""
    firsts = []
    for k, step in enumerate(lesson.steps, 1):
        if step.question:
            state = L.step_state(step)
            if step.view not in L.HEAVY and step.question.kind == "number":
                ans = L.answer(step, state, _live(step, state)["values"])["answer"]
                if not _short(ans):
                    return k
            firsts.append(k)
    return firsts[0]


@pytest.mark.slow
def test_every_lesson_walked_end_to_end(server):
    """Every step of every lesson, by Next: its numbers (what is on screen before and after the answer), every
    formula drawn by KaTeX without an error and no raw TeX anywhere in the visible text (steps, captions, answers,
    chart titles, axes and legends); every question revealed, and before that none of the numbers it holds back is
    on screen.  On one question of each lesson (its first with a multi-digit answer) the answer at 3 and 4
    significant digits is nowhere in the visible text before the reveal and is there after it; where a lesson has
    none, on its first question no verdict is on screen before the reveal."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = new_page(browser, viewport={"width": 1280, "height": 2000})  # first runs drawn whole: no timer rerun
        for lesson in L.LESSONS:
            checked = _checked_question(lesson)
            page.goto(f"{server}/lessons?les_id={lesson.id}")
            for k, step in enumerate(lesson.steps, 1):
                _at_step(page, lesson, k)
                page.wait_for_function(CHARTS_DRAWN_JS, timeout=60000)
                state = L.step_state(step)
                values = _expect_numbers(page, step, state)
                text = _check_formulas(page, f"{lesson.id} step {k}")
                if step.question:
                    out = _live(step, state)
                    held = {label for label, _v in out["numbers"]} - set(step.question.shown) - set(step.hide)
                    labels = set(page.locator("[data-testid='stMetricLabel']").all_inner_texts())
                    assert not labels & held, (lesson.id, k, labels & held)
                    rev = L.answer(step, state, values)
                    forms = _answer_forms(rev["answer"])
                    if k == checked:
                        if _short(rev["answer"]):
                            assert not re.search(r"\b(Answer|Right|Not quite)\b", text), (lesson.id, k)
                        else:
                            assert not _has_number(text, forms), (lesson.id, k, forms)
                    _reveal(page, lesson.id, k, step, state, values)
                    settle(page)
                    _expect_numbers(page, step, state, answered=True)
                    text = _check_formulas(page, f"{lesson.id} step {k}, answered")
                    if k == checked:
                        assert _has_number(text, forms) or any(f in text for f in forms), (lesson.id, k, forms)
                if k < len(lesson.steps):
                    page.get_by_role("button", name="Next").click()
            page.screenshot(path=str(OUT / f"lessons_{lesson.id}_last.png"))
        browser.close()


#: the boxes of a presenter-mode step that must be on screen without scrolling: (name, selector, required)
FIT_JS = """([sels]) => {
  const W = window.innerWidth, H = window.innerHeight, out = {scrollY: window.scrollY, boxes: {}, nav: []};
  for (const [name, sel] of sels) {
    out.boxes[name] = Array.from(document.querySelectorAll(sel)).filter(e => e.getClientRects().length)
      .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; });
  }
  for (const b of document.querySelectorAll('.st-key-les_nav button')) {
    const p = b.querySelector('p') || b; const range = document.createRange(); range.selectNodeContents(p);
    const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
    out.nav.push([b.innerText.trim(), tops.size, b.getBoundingClientRect().height]);
  }
  out.W = W; out.H = H; return out; }"""


def _fit(page, lesson_id, k, step, where):
    sels = [["title", "[data-testid='stMain'] h2"], ["numbers", "[data-testid='stMetric']"],
            ["question", f".st-key-les_question_{lesson_id}_{k} [data-testid='stMarkdown'], "
                         f".st-key-les_q_{lesson_id}_{k}_reveal button"],
            ["chart", ".js-plotly-plot .main-svg"], ["play", ".js-plotly-plot .updatemenu-button"],
            ["inputs", f".st-key-les_inputs_{lesson_id}_{k} input"]]
    got = page.evaluate(FIT_JS, [sels])
    assert got["scrollY"] == 0, where
    for name, boxes in got["boxes"].items():
        for left, top, right, bottom in boxes:
            assert top >= -1 and left >= -1 and right <= got["W"] + 1 and bottom <= got["H"] + 1, (
                f"{where}: {name} at {(left, top, right, bottom)} is outside the {got['W']}x{got['H']} screen")
    if step.inputs:
        assert got["boxes"]["inputs"], f"{where}: no inputs on screen"
    if step.question:
        assert len(got["boxes"]["question"]) >= 2, f"{where}: the question is not on screen"
    for label, lines, height in got["nav"]:
        assert lines == 1 and height < 48, f"{where}: the button {label!r} wraps ({lines} lines, {height} px)"
    return got


@pytest.mark.slow
def test_presenter_mode_fits_the_projector(server):
    """Presenter mode at 1280 x 720 and 1024 x 768, every step of two lessons (the Gaussian mechanism and DP-SGD):
    the step's title, inputs, main numbers, chart with its Play control and question are inside the screen with the
    page unscrolled, the navigation buttons are one line each; the chart and Play are there on every step that
    shows a chart before its question is answered; "Copy link to this step" gives the step's presenter and student
    links.  Screenshots of every step go to test-artifacts/presenter_*.png."""
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = new_page(browser, viewport={"width": 1280, "height": 720})  # first runs drawn whole: no timer rerun
        for width, height in ((1280, 720), (1024, 768)):
            page.set_viewport_size({"width": width, "height": height})
            for lesson_id in ("gaussian", "dpsgd"):
                lesson = L.get_lesson(lesson_id)
                page.goto(f"{server}/lessons?les_id={lesson_id}&les_step=1&les_present=1")
                for k, step in enumerate(lesson.steps, 1):
                    _at_step(page, lesson, k)
                    page.wait_for_function(CHARTS_DRAWN_JS, timeout=60000)
                    state = L.step_state(step)
                    out = _live(step, state)
                    view = L.on_screen(step, out, False)
                    _expect_numbers(page, step, state)
                    if view["chart"]:
                        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60000)
                        if step.animate:
                            page.wait_for_selector(".js-plotly-plot .updatemenu-button", timeout=60000)
                    page.wait_for_timeout(300)
                    where = f"{lesson_id} step {k} at {width}x{height}"
                    got = _fit(page, lesson_id, k, step, where)
                    assert len(got["boxes"]["numbers"]) == min(3, len(view["numbers"])), where
                    if view["chart"]:
                        assert got["boxes"]["chart"], f"{where}: no chart"
                        if step.animate:
                            assert got["boxes"]["play"], f"{where}: no Play control"
                    page.screenshot(path=str(OUT / f"presenter_{width}x{height}_{lesson_id}_{k}.png"))
                    if k == 2:  # the copy-link control: both links of this step
                        page.get_by_role("button", name=re.compile("Copy link to this step")).click()
                        codes = page.locator("[data-testid='stCode']")
                        _wait(page, lambda: codes.count() >= 2, "the links in the popover")
                        links = [c.inner_text() for c in codes.all()]
                        assert f"les_id={lesson_id}" in links[0] and "les_step=2" in links[0]
                        assert "les_present=1" in links[0] and "les_present" not in links[1]
                        assert links[0].startswith("http")
                        page.screenshot(path=str(OUT / f"presenter_{width}x{height}_{lesson_id}_copy_link.png"))
                        page.keyboard.press("Escape")
                        page.wait_for_timeout(300)
                    if k < len(lesson.steps):
                        page.locator(".st-key-les_next button").click()
        browser.close()
