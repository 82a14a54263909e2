"""Real-browser tests of the Lessons page (streamlit run + Debian Chromium via Playwright): a lesson walked end to end
(each step's numbers against dpviz, predictions and reveals, Back / Next by button and arrow key, inputs changed
several times in a row, step links, the animation, presenter mode and locks), then every lesson walked step by step.
Screenshots go to test-artifacts/."""

import os
import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import ARGS, CHROMIUM, ROOT, add_choice, query_of, settle  # the shared `server` fixture starts the dashboard

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

from dpviz_ui import helpers as ui  # noqa: E402  (the page's own number format)
from dpviz_ui import lessons as L  # noqa: E402

OUT = ROOT / "test-artifacts"


def _wait(page, cond, what: str, timeout: float = 60.0):
    """Poll ``cond`` until true; waits through Playwright so that its events (URL changes) are processed."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = cond()
            if last:
                return last
        except Exception as exc:  # noqa: BLE001 - elements re-rendering
            last = exc
        page.wait_for_timeout(250)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def _at_step(page, lesson, k):
    """Wait until step ``k`` (1-based) of ``lesson`` is on screen and in the URL, and its run has finished."""
    title = f"{k}. {lesson.steps[k - 1].title}"
    try:
        _wait(page, lambda: any(title in h for h in page.locator("h2").all_inner_texts()), f"header {title!r}")
        _wait(page, lambda: query_of(page).get("les_step") == str(k) and query_of(page).get("les_id") == lesson.id,
              f"URL at step {k} (URL: {page.url})")
    except AssertionError:
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / f"lessons_failed_{lesson.id}_{k}.png"))
        raise
    settle(page)


def _metric(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(
        has=page.locator("[data-testid='stMetricLabel']", has_text=re.compile("^" + re.escape(label) + "$")))
    return box.first.locator("[data-testid='stMetricValue']").inner_text().strip()


def _expect_numbers(page, step, state, answered=False):
    """The step's first metrics on screen show dpviz's numbers at ``state`` (before a question is answered, only
    those it lets through: ``lessons.on_screen``)."""
    out = L.live(step.view, state, figure=False)
    for label, value in L.on_screen(step, out, answered)["numbers"][:3]:
        want = ui.fmt(value) if not isinstance(value, str) else value
        _wait(page, lambda: _metric(page, label) == want, f"metric {label} = {want}")
    return out["values"]


def _reveal(page, lesson_id, k, step, state, values, prediction=None):
    """Predict (optionally) and reveal on step ``k``; the widgets are found by their keys, so a click never lands
    on the previous step's question while the page is being replaced."""
    q = step.question
    base = f".st-key-les_q_{lesson_id}_{k}"
    if prediction is not None:
        if q.kind == "choice":
            page.locator(f"{base}_pred").get_by_text(prediction, exact=True).click()
        else:
            box = page.locator(f"{base}_pred input")
            box.fill(str(prediction))
            box.press("Enter")
        settle(page)
    page.locator(f"{base}_reveal button").click()
    rev = L.answer(step, state, values)
    shown = rev["answer"] if isinstance(rev["answer"], str) else ui.fmt(float(rev["answer"]))
    alert = page.locator("[data-testid='stAlert']").filter(has_text="answer")
    try:
        _wait(page, lambda: f"{shown}" in alert.first.inner_text(timeout=2000), f"revealed answer {shown}")
    except AssertionError:
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "lessons_failed_reveal.png"))
        raise
    return alert.first.inner_text(), rev


def _box(page, lesson_id, k, name):
    """The number input of ``name`` on step ``k`` (its widget key)."""
    return page.locator(f".st-key-les_in_{lesson_id}_{k}_{name} input")


def _set_input(page, lesson_id, k, name, value):
    box = _box(page, lesson_id, k, name)
    box.fill(str(value))
    box.press("Enter")


@pytest.mark.slow
def test_lesson_walk_questions_links_presenter_and_lock(server):
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    lesson = L.get_lesson("gaussian")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 2000})
        page.goto(f"{server}/lessons")
        page.wait_for_selector("text=What (ε, δ) buys", timeout=60000)
        settle(page)
        page.screenshot(path=str(OUT / "lessons_list.png"))
        assert page.get_by_role("button", name="Start").count() == len(L.LESSONS)
        page.get_by_role("button", name="Start").first.click()

        # walk the lesson forward, checking every step's numbers; answer each question (right, then wrong)
        for k, step in enumerate(lesson.steps, 1):
            _at_step(page, lesson, k)
            state = L.step_state(step)
            values = _expect_numbers(page, step, state)
            if step.question:
                rev = L.answer(step, state, values)
                right = rev["answer"] if k % 2 else (
                    next(o for o in step.question.options if o != rev["answer"]) if step.question.kind == "choice"
                    else float(rev["answer"]) * 3 + 1)
                text, _ = _reveal(page, "gaussian", k, step, state, values, prediction=right)
                assert ("Right" in text) == bool(k % 2), text
                page.screenshot(path=str(OUT / f"lessons_gaussian_step{k}_reveal.png"))
            if k < len(lesson.steps):
                page.get_by_role("button", name="Next").click()
        # Back twice by button, then the arrow keys (not inside an input)
        for k in (6, 5):
            page.get_by_role("button", name="Back").click()
            _at_step(page, lesson, k)
        for key, k in (("ArrowRight", 6), ("ArrowLeft", 5), ("ArrowLeft", 4), ("ArrowRight", 5)):
            page.locator("h2").first.click()  # the page has the focus, not an input
            page.keyboard.press(key)
            _at_step(page, lesson, k)

        # step 2: change ε four times in a row: widget, URL and numbers follow each time
        page.goto(f"{server}/lessons?les_id=gaussian&les_step=2")
        _at_step(page, lesson, 2)
        step = lesson.steps[1]
        for eps in (0.5, 0.25, 2.0, 0.7):
            _set_input(page, "gaussian", 2, "eps", eps)
            try:
                _wait(page, lambda: query_of(page).get("eps") == repr(eps), f"eps={eps} in the URL")
            except AssertionError:
                page.screenshot(path=str(OUT / "lessons_failed_eps.png"))
                raise
            state = L.step_state(step, {"eps": eps})
            _expect_numbers(page, step, state)
            assert float(_box(page, "gaussian", 2, "eps").input_value()) == eps
        # an invalid input: one error, no numbers; fixing it brings them back
        _set_input(page, "gaussian", 2, "eps", -1)
        _wait(page, lambda: "Fix the input" in page.locator("[data-testid='stAlert']").first.inner_text(), "error")
        assert page.locator("[data-testid='stMetric']").count() == 0
        _set_input(page, "gaussian", 2, "eps", 0.7)
        _expect_numbers(page, step, L.step_state(step, {"eps": 0.7}))
        # the reveal follows the changed input (halving ε still doubles σ)
        _reveal(page, "gaussian", 2, step, L.step_state(step, {"eps": 0.7}), {})

        # a step link opens that step with its changed input
        link = page.url
        other = browser.new_page(viewport={"width": 1280, "height": 1600})
        other.goto(link)
        _at_step(other, lesson, 2)
        _expect_numbers(other, step, L.step_state(step, {"eps": 0.7}))
        other.close()

        # the animation: ▶ Play moves the slider through the frames of ε
        page.goto(f"{server}/lessons?les_id=gaussian&les_step=5")
        _at_step(page, lesson, 5)
        page.wait_for_selector(".js-plotly-plot .updatemenu-button", timeout=60000)
        label = page.locator(".js-plotly-plot .slider-group .slider-label")
        first = label.first.text_content()
        page.locator(".js-plotly-plot .updatemenu-button").first.click()
        _wait(page, lambda: label.first.text_content() != first, "the animation to advance", timeout=20)
        page.screenshot(path=str(OUT / "lessons_animation.png"))
        # the "Open in …" link carries the step's settings
        page.goto(f"{server}/lessons?les_id=gaussian&les_step=7")
        _at_step(page, lesson, 7)
        href = page.get_by_role("link", name=re.compile("Open in Calibrate")).get_attribute("href")
        assert "algorithm=dpgd-sc" in href and "mu=0.5" in href
        # the n box reads what a person types as every page does: 6e4 is 60000 (a browser number box read 6),
        # 2.5 is refused (never truncated to 2), 1,500 and 2e3 are numbers; box, URL and numbers after each
        step7 = lesson.steps[6]
        for typed, n in (("6e4", 60000), ("2.5", None), ("1,500", 1500), ("2e3", 2000)):
            _set_input(page, "gaussian", 7, "n", typed)
            if n is None:
                _wait(page, lambda: "not a whole number" in page.locator("[data-testid='stAlert']").first.inner_text(),
                      "the error for 2.5")
                settle(page)
                assert page.locator("[data-testid='stMetric']").count() == 0
                assert page.locator("[data-testid='stException']").count() == 0
                assert _box(page, "gaussian", 7, "n").input_value() == typed
                continue
            _wait(page, lambda: query_of(page).get("n") == str(n), f"n={n} in the URL")
            _expect_numbers(page, step7, L.step_state(step7, {"n": n}))
            assert _box(page, "gaussian", 7, "n").input_value() == str(n)
        page.screenshot(path=str(OUT / "lessons_typed_n.png"))
        browser.close()


@pytest.mark.slow
def test_presenter_mode_and_lock(server):
    from playwright.sync_api import sync_playwright

    lesson = L.get_lesson("gaussian")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        # presenter mode from a link: no sidebar, one step per screen (the fit is test_presenter_mode_fits_...)
        page.goto(f"{server}/lessons?les_id=gaussian&les_step=3&les_present=1")
        _at_step(page, lesson, 3)
        page.wait_for_timeout(2000)
        assert not page.locator("[data-testid='stSidebar']").is_visible()
        assert page.get_by_role("button", name="Next").is_visible()
        for k in (4, 5, 6):
            page.get_by_role("button", name="Next").click()
            _at_step(page, lesson, k)
            assert query_of(page).get("les_present") == "1"
            assert not page.locator("[data-testid='stSidebar']").is_visible()
        page.get_by_role("button", name="Exit presenter mode").click()
        _wait(page, lambda: "les_present" not in query_of(page), "presenter flag gone")
        _wait(page, lambda: page.locator("[data-testid='stSidebar']").is_visible(), "sidebar back")

        # lock: ε fixed at 0.5 by the link on every step that offers ε; other inputs stay live
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(f"{server}/lessons?les_id=gaussian&les_step=2&les_lock=eps&eps=0.5")
        _at_step(page, lesson, 2)
        eps_box = _box(page, "gaussian", 2, "eps")
        assert eps_box.is_disabled() and float(eps_box.input_value()) == 0.5
        _expect_numbers(page, lesson.steps[1], L.step_state(lesson.steps[1], {"eps": 0.5}))
        page.get_by_role("button", name="Next").click()  # step 3 offers log10 δ only: still editable
        _at_step(page, lesson, 3)
        assert query_of(page).get("les_lock") == "eps" and query_of(page).get("eps") == "0.5"
        for ld in (-8, -12):
            _set_input(page, "gaussian", 3, "log10_delta", ld)
            _wait(page, lambda: query_of(page).get("log10_delta") == repr(float(ld)), "log10_delta in the URL")
            _expect_numbers(page, lesson.steps[2], L.step_state(lesson.steps[2], {"log10_delta": ld}))
        page.get_by_role("button", name="Next").click()  # step 4 offers ε: locked again
        _at_step(page, lesson, 4)
        eps_box = _box(page, "gaussian", 4, "eps")
        assert eps_box.is_disabled() and float(eps_box.input_value()) == 0.5
        _expect_numbers(page, lesson.steps[3], L.step_state(lesson.steps[3], {"eps": 0.5}))
        page.screenshot(path=str(OUT / "lessons_locked.png"))
        browser.close()


#: the visible text of the page outside KaTeX's output (whose hidden MathML keeps the TeX source) and form fields:
#: the words a student reads, chart titles, axes and legends (SVG text) included
VISIBLE_TEXT_JS = """() => {
  const root = document.querySelector('[data-testid="stMain"]') || document.body;
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out = []; let node;
  while ((node = walk.nextNode())) {
    const el = node.parentElement;
    if (!el || el.closest('.katex, .katex-display, script, style, textarea, input, code, pre')) continue;
    if (el.getClientRects().length === 0) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') continue;
    out.push(node.textContent);
  }
  return out.join('\\n');
}"""
#: raw TeX that KaTeX did not render (issue 30): a superscript or subscript group, a fraction, a dollar sign
RAW_TEX = re.compile(r"\^\{|_\{|\\frac|\$")


def _check_formulas(page, where):
    """No KaTeX error and no raw TeX in the visible text of the page (after every formula has been drawn)."""
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stLatex\"]').length === "
                           "document.querySelectorAll('[data-testid=\"stLatex\"] .katex, "
                           "[data-testid=\"stLatex\"] .katex-error').length", timeout=30000)
    errors = page.evaluate("() => Array.from(document.querySelectorAll('.katex-error'))"
                           ".map(e => (e.getAttribute('title') || '') + ' in ' + e.textContent)")
    assert not errors, f"{where}: KaTeX errors {errors}"
    text = page.evaluate(VISIBLE_TEXT_JS)
    bad = [line for line in text.splitlines() if RAW_TEX.search(line)]
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
                ans = L.answer(step, state, L.live(step.view, state, figure=False)["values"])["answer"]
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
        page = browser.new_page(viewport={"width": 1280, "height": 2000})
        for lesson in L.LESSONS:
            checked = _checked_question(lesson)
            page.goto(f"{server}/lessons?les_id={lesson.id}")
            for k, step in enumerate(lesson.steps, 1):
                _at_step(page, lesson, k)
                page.wait_for_timeout(1800 if k == 1 else 300)  # a session's first charts and formulas: 1.5 s later
                state = L.step_state(step)
                values = _expect_numbers(page, step, state)
                text = _check_formulas(page, f"{lesson.id} step {k}")
                if step.question:
                    out = L.live(step.view, state, figure=False)
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


@pytest.mark.slow
def test_lecturer_links_and_handouts(server):
    import nbformat
    from playwright.sync_api import sync_playwright

    lesson = L.get_lesson("audit")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 2000}, accept_downloads=True)
        page.goto(f"{server}/lessons?les_id=audit&les_step=1")
        _at_step(page, lesson, 1)
        page.get_by_text("For the lecturer: links, lock, handouts").click()
        href = page.get_by_role("link", name="Link to this step").get_attribute("href")
        assert "les_id=audit" in href and "les_step=1" in href
        assert "les_present=1" in page.get_by_role("link", name="Presenter link").get_attribute("href")
        # choose the input to lock: the link carries its current value (after the first run's held-back charts are
        # drawn, 1.5 s after the first paint, so that the page does not move under the option list)
        page.wait_for_timeout(2000)
        settle(page)
        add_choice(page, "les_lockpick_audit_1", "trials")
        lock = page.get_by_role("link", name=re.compile("Link with trials locked"))
        _wait(page, lambda: lock.count() == 1, "the lock link")
        href = lock.get_attribute("href")
        assert "les_lock=aud_trials" in href and "aud_trials=2000" in href
        # both notebooks download and are valid notebooks of this lesson
        for label, solved in (("Notebook — exercises (.ipynb)", False), ("Notebook — solutions (.ipynb)", True)):
            with page.expect_download() as dl:
                page.get_by_role("button", name=label).click()
            nb = nbformat.reads(Path(dl.value.path()).read_text(encoding="utf-8"), as_version=4)
            src = "\n".join(c.source for c in nb.cells)
            assert lesson.title in src and ("def solve_max_certifiable" in src) == solved
        # the HTML handout is prepared in the worker pool, then downloads as one offline page
        page.get_by_role("button", name=re.compile("Prepare the offline HTML handout")).click()
        button = page.get_by_role("button", name=re.compile("Download the HTML handout"))
        _wait(page, lambda: button.count() == 1, "the HTML handout", timeout=180)
        with page.expect_download() as dl:
            button.click()
        text = Path(dl.value.path()).read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and "Plotly.newPlot" in text
        for k, step in enumerate(lesson.steps, 1):
            assert f"Step {k}. {step.title}" in text.replace("&#x27;", "'")
        page.screenshot(path=str(OUT / "lessons_lecturer_tools.png"))
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
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for width, height in ((1280, 720), (1024, 768)):
            page.set_viewport_size({"width": width, "height": height})
            for lesson_id in ("gaussian", "dpsgd"):
                lesson = L.get_lesson(lesson_id)
                page.goto(f"{server}/lessons?les_id={lesson_id}&les_step=1&les_present=1")
                for k, step in enumerate(lesson.steps, 1):
                    _at_step(page, lesson, k)
                    page.wait_for_timeout(1800 if k == 1 else 400)
                    state = L.step_state(step)
                    out = L.live(step.view, state, figure=False)
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
