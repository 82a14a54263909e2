"""Real-browser test of the live class (issue 35; streamlit run + Debian Chromium via Playwright): one presenter and
two students (one on a 390 px phone) in their own browser contexts.  The students follow Next / Back, answer (a new
submission replaces the earlier one; 60,000 is read as 60000), a wrong presenter key is refused and changes nothing,
the reveal shows the distribution and each student's own result, the server process is killed and restarted
mid-class (the pages reconnect: same step, every answer), and End class reaches the students.  The server runs with
its own DPVIZ_DATA_DIR (a temporary SQLite store).  Screenshots go to test-artifacts/."""

import math
import os
import re
import time
from pathlib import Path

import psutil
import pytest

from conftest import ARGS, CHROMIUM, ROOT, query_of, settle, stop_server

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

from dpviz_ui import lessons as L  # noqa: E402
from dpviz_ui.classroom import store as S  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]
OUT = ROOT / "test-artifacts"
LESSON = L.get_lesson("gaussian")


def _title(k: int) -> str:
    return f"{k}. {LESSON.steps[k - 1].title}"


def _wait(page, cond, what: str, timeout: float = 240.0):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = cond()
            if last:
                return last
        except Exception as exc:  # noqa: BLE001 - elements re-rendering, a reconnecting page
            last = exc
        page.wait_for_timeout(200)
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / f"live_class_failed_{re.sub(r'[^a-z0-9]+', '_', what.lower())[:40]}.png"))
    try:
        shown = _text(page)[-600:]
        script = page.evaluate("document.querySelector('[data-testid=\"stApp\"]').getAttribute("
                               "'data-test-script-state')")
    except Exception as exc:  # noqa: BLE001
        shown, script = repr(exc), "?"
    raise AssertionError(f"timed out waiting for {what} (last: {last!r}; script {script}; page ends {shown!r})")


def _text(page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def _at(page, k: int, timeout: float = 240.0) -> float:
    """Wait until step ``k`` is on screen; returns the seconds it took."""
    t0 = time.time()
    _wait(page, lambda: any(_title(k) in h for h in page.locator("h2").all_inner_texts()), f"step {k}", timeout)
    return time.time() - t0


def _kill(proc) -> None:
    """Kill the server we started and the worker processes it started (SIGKILL: a crash, nothing flushed)."""
    kids = psutil.Process(proc.pid).children(recursive=True)
    proc.kill()
    proc.wait(timeout=30)
    for k in kids:
        try:
            k.kill()
        except psutil.NoSuchProcess:
            pass


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("class_data")
    old = os.environ.get("DPVIZ_DATA_DIR")
    os.environ["DPVIZ_DATA_DIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("DPVIZ_DATA_DIR", None)
    else:
        os.environ["DPVIZ_DATA_DIR"] = old


def _predict(page, text: str) -> None:
    settle(page)
    # one form on screen: the page's run has finished replacing the previous step's question
    _wait(page, lambda: page.get_by_label("Your prediction").count() == 1, "one prediction box")
    box = page.get_by_label("Your prediction")
    box.fill(text)
    page.get_by_role("button", name="Submit prediction").click()
    settle(page)


def test_live_class_end_to_end(data_dir):
    import serve
    from playwright.sync_api import sync_playwright

    port = serve._free_port()
    proc, url = serve.launch(port=port, timeout=240)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            pres = _page(browser, viewport={"width": 1280, "height": 900})
            pres.goto(wait_until="domcontentloaded", url=url + "/class")
            settle(pres)
            pres.get_by_role("button", name="Start a class").click()
            _wait(pres, lambda: query_of(pres).get("cls_key"), "the presenter link")
            code, key = query_of(pres)["cls_code"], query_of(pres)["cls_key"]
            assert re.fullmatch(f"[{S.ALPHABET}]{{8}}", code) and len(key) >= 32
            _at(pres, 1)
            settle(pres)
            shown = _text(pres)
            assert S.display_code(code) in shown
            join = f"{url}/class?cls_join={code}"
            _wait(pres, lambda: join in _text(pres), "the join link, shown large")
            pres.wait_for_selector("[data-testid='stImage'] img", state="attached", timeout=30000)  # the QR code
            assert pres.locator("[data-testid='stImage'] img").count() >= 1

            # a wrong presenter key is refused and changes nothing
            intruder = _page(browser)
            intruder.goto(wait_until="domcontentloaded", url=f"{url}/class?cls_code={code}&cls_key={key[:-3]}xyz")
            _wait(intruder, lambda: "presenter link is not valid" in _text(intruder), "the refusal")
            assert intruder.get_by_role("button", name="Next ▶").count() == 0
            assert intruder.get_by_role("button", name="End class").count() == 0
            assert S.ClassStore().get(code).step == 1 and not S.ClassStore().get(code).ended
            intruder.context.close()

            # two students, one on a phone; neither page nor link holds the presenter key
            a = _page(browser, viewport={"width": 1280, "height": 900})
            b = _page(browser, viewport={"width": 390, "height": 844}, is_mobile=True)
            for s in (a, b):
                s.goto(wait_until="domcontentloaded", url=join)
                _at(s, 1)
                settle(s)
                _wait(s, lambda s=s: re.fullmatch("[0-9a-f]{16}", query_of(s).get("cls_me", "")), "student id")
                assert key not in s.url and key not in s.content()
                assert s.get_by_role("button", name="Next ▶").count() == 0
                assert s.get_by_role("button", name="Reveal").count() == 0
            assert query_of(a)["cls_me"] != query_of(b)["cls_me"]

            # the students follow Next and Back, several times in a row (the server pushes each move to their pages:
            # dpviz_ui/classroom/push.py; the pages' own check is a 5 s fallback); their links stay as they were
            links = {id(s): dict(query_of(s)) for s in (a, b)}
            follow = []
            for k in (2, 3, 2, 3, 2):
                pres.get_by_role("button", name="Next ▶" if k > int(_step_of(pres)) else "◀ Back").click()
                _at(pres, k)
                follow += [_at(a, k, timeout=240), _at(b, k, timeout=240)]
                for s in (a, b):
                    assert dict(query_of(s)) == links[id(s)]
            print(f"follow times: {[round(t, 2) for t in follow]}")
            assert S.ClassStore().get(code).step == 2
            settle(a)
            settle(b)

            # a student explores their own copy: the class is not moved
            eps = a.get_by_role("textbox", name="ε", exact=True)
            for typed, e in (("0.5", 0.5), ("2", 2.0), ("8e-1", 0.8)):
                eps.fill(typed)
                eps.press("Enter")
                settle(a)
                # Dwork & Roth's classical σ = Δ √(2 ln(1.25/δ)) / ε at Δ = 1, δ = 1e-5
                sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / e
                _wait(a, lambda sigma=sigma: _metric(a, "classical σ") == f"{sigma:.4g}", f"σ at ε = {e}")
            assert S.ClassStore().get(code).step == 2 and _step_of(pres) == "2"

            # predictions: a new one replaces the earlier one; 60,000 is read as 60000; nonsense is refused
            _predict(a, "3")
            _wait(a, lambda: "Your prediction 3 is recorded" in _text(a), "A's first prediction")
            _predict(a, "2")
            _wait(a, lambda: "Your prediction 2 is recorded" in _text(a), "A's second prediction")
            _predict(b, "<b>lots</b>")
            _wait(b, lambda: "Your prediction is not read" in _text(b), "B's refused prediction")
            _predict(b, "60,000")
            _wait(b, lambda: "Your prediction 60000 is recorded" in _text(b), "B's prediction")
            _wait(pres, lambda: _metric(pres, "Predictions received") == "2", "the live count of 2")
            for s in (a, b):
                assert "The answer:" not in _text(s)  # nothing is revealed before the lecturer reveals it

            for s in (a, b):
                assert S.display_code(code) in _text(s)

            # the reveal: the answer, the distribution, each student's own result
            pres.get_by_role("button", name="Reveal").click()
            _wait(pres, lambda: "The answer: 2" in _text(pres), "the reveal on the presenter's screen")
            assert "2 predictions; 1 (50 %) within 5 % of it." in _text(pres)
            _wait(a, lambda: "Right: you predicted 2." in _text(a), "A's result", timeout=240)
            _wait(b, lambda: "Not quite: you predicted 60000." in _text(b), "B's result", timeout=240)
            assert "2 predictions; 1 (50 %) within 5 % of it." in _text(b)
            _wait(b, lambda: b.locator(".js-plotly-plot").count() >= 1, "the distribution on the phone")
            OUT.mkdir(exist_ok=True)
            b.screenshot(path=str(OUT / "live_class_student_phone.png"))
            pres.screenshot(path=str(OUT / "live_class_presenter.png"))
            assert b.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # no sideways scrolling

            # the server is killed mid-class and started again on the same port: every page reconnects
            _kill(proc)
            proc, url2 = serve.launch(port=port, timeout=240)
            assert url2 == url
            for s in (pres, a, b):
                _wait(s, lambda s=s: "The answer: 2" in _text(s), "the class after the restart", timeout=90)
            settle(pres)
            assert query_of(a)["cls_me"] and "Right: you predicted 2." in _text(a)
            assert "2 predictions; 1 (50 %)" in _text(pres)
            # the first click after a reconnect may reach the new server before the page's first run there has
            # registered the button (Streamlit then reruns without the click): press again, as a lecturer would,
            # until the store has moved
            for _attempt in range(4):
                pres.get_by_role("button", name="Next ▶").click()
                try:
                    _wait(pres, lambda: S.ClassStore().get(code).step == 3, "the class at step 3", timeout=30)
                    break
                except AssertionError:
                    continue
            _at(pres, 3)
            _at(a, 3, timeout=240)
            _at(b, 3, timeout=240)

            # End class reaches the students
            pres.get_by_role("button", name="End class").click()
            _wait(pres, lambda: "This class has ended" in _text(pres), "the ended class (presenter)")
            for s in (a, b):
                _wait(s, lambda s=s: "This class has ended" in _text(s), "the ended class (student)", timeout=240)
            assert S.ClassStore().get(code).ended
            assert sorted(S.ClassStore().values(code, 2)) == ["2.0", "60000.0"]
            browser.close()
    finally:
        stop_server(proc)


def _page(browser, **kw):
    """A page in a browser context of its own (its own cookies and storage: another device)."""
    page = browser.new_context(**kw).new_page()
    page.set_default_timeout(120_000)
    return page


def _step_of(page) -> str:
    m = re.search(r"Step (\d+) of", _text(page))
    return m.group(1) if m else "0"


def _metric(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(
        has=page.locator("[data-testid='stMetricLabel']", has_text=re.compile("^" + re.escape(label) + "$")))
    return box.first.locator("[data-testid='stMetricValue']").inner_text().strip()
