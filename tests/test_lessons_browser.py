"""Real-browser tests of the Lessons page (streamlit run + Debian Chromium via Playwright): a lesson walked end to end
(each step's numbers against dpviz, predictions and reveals, Back / Next by button and arrow key, inputs changed
several times in a row, step links, the animation, presenter mode and locks) and the lecturer's tools.  Every lesson
walked step by step and presenter mode on a projector's screen are in tests/test_lessons_walk_browser.py (a file of
its own so that xdist runs the two in parallel), which uses this file's helpers.  Screenshots go to test-artifacts/."""

import os
import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

# the shared `server` fixture (conftest.py) starts the dashboard
from conftest import ARGS, CHARTS_DRAWN_JS, CHROMIUM, ROOT, add_choice, new_page, query_of, settle  # noqa: E402

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


#: ``lessons.live`` outputs (no figure) by (view, state): the tests ask for a step's numbers several times (before
#: and after its question, and the walk in tests/test_lessons_walk_browser.py once more), computed once per process
_LIVE: dict = {}


def _live(step, state) -> dict:
    """``lessons.live(step.view, state, figure=False)``, computed once per (view, state) in this test process."""
    key = (step.view, repr(sorted(state.items())))
    if key not in _LIVE:
        _LIVE[key] = L.live(step.view, state, figure=False)
    return _LIVE[key]


def _metric(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(
        has=page.locator("[data-testid='stMetricLabel']", has_text=re.compile("^" + re.escape(label) + "$")))
    return box.first.locator("[data-testid='stMetricValue']").inner_text().strip()


def _expect_numbers(page, step, state, answered=False):
    """The step's first metrics on screen show dpviz's numbers at ``state`` (before a question is answered, only
    those it lets through: ``lessons.on_screen``)."""
    out = _live(step, state)
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


@pytest.mark.slow
def test_lecturer_links_and_handouts(server):
    import nbformat
    from playwright.sync_api import sync_playwright

    lesson = L.get_lesson("audit")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # first runs drawn whole (conftest.DRAWN_AT_ONCE_UA): no timer rerun that moves the page under the option list
        page = new_page(browser, viewport={"width": 1280, "height": 2000}, accept_downloads=True)
        page.goto(f"{server}/lessons?les_id=audit&les_step=1")
        _at_step(page, lesson, 1)
        page.get_by_text("For the lecturer: links, lock, handouts").click()
        href = page.get_by_role("link", name="Link to this step").get_attribute("href")
        assert "les_id=audit" in href and "les_step=1" in href
        assert "les_present=1" in page.get_by_role("link", name="Presenter link").get_attribute("href")
        # choose the input to lock: the link carries its current value (on a still page: every chart drawn, so that
        # the page does not move under the option list)
        page.wait_for_function(CHARTS_DRAWN_JS, timeout=60000)
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
