"""Lessons: guided, live, self-checking walks through the papers (the lessons are data in dpviz_ui/lessons/content.py).

Link state (validated by :func:`dpviz_ui.lessons.state_from_query`, never evaluated): ``les_id``, ``les_step``,
``les_present`` (presenter mode), ``les_lock`` (inputs fixed to the link's values) and the values of changed inputs
under their ordinary view names (``eps=0.5``).
"""

import hashlib
import inspect
import json

import plotly.graph_objects as go
import streamlit as st

from dpviz_ui import helpers as ui
from dpviz_ui import lessons as L

# Constant style sheets (nothing from the user goes in).  Every lesson view: the navigation buttons never wrap.
LESSON_CSS = ("<style>.st-key-les_nav button p,.st-key-les_nav [data-testid='stPopover'] button p"
              "{white-space:nowrap!important}</style>")
# Presenter mode (a projector, 1024 x 768 up): no sidebar, header or page chrome; the step's title, inputs, main numbers
# and question on the left, the chart with its Play control on the right, all on one screen; the figure's download
# button (a desk feature) hidden.
PRESENTER_CSS = (
    "<style>section[data-testid='stSidebar'],[data-testid='stSidebarCollapsedControl'],"
    "header[data-testid='stHeader'],[class*='st-key-dl_lesson_']{display:none!important}"
    ".stMainBlockContainer,.block-container{max-width:100%!important;padding:0.6rem 1.6rem 0.5rem!important}"
    ".stMarkdown p,.stMarkdown li{font-size:1.08rem!important;line-height:1.4}"
    "h2{font-size:1.6rem!important;padding:0.1rem 0 0.2rem!important}"
    ".st-key-les_title p{font-size:0.95rem!important;color:#555;margin:0}"
    "@media (max-width:1150px){.st-key-les_title{display:none!important}}"
    "[data-testid='stMetricValue']{font-size:1.7rem!important}"
    "[data-testid='stMetricLabel'] p{font-size:0.95rem!important}"
    ".katex{font-size:1.05em!important}.katex-display{margin:0.2em 0!important}"
    "[data-testid='stVerticalBlock']{gap:0.45rem!important}</style>")

INPUT_LABELS = {"n": "n", "d": "d", "eps": "ε", "log10_delta": "log10 δ", "T": "T", "eta": "η", "G": "G (Δ)",
                "L": "L", "mu": "μ", "alpha": "α", "reps": "repetitions", "aud_trials": "trials",
                "aud_reps": "repetitions", "aud_n": "n", "aud_eps": "ε claimed"}
#: keyboard arrows for Back / Next where the installed Streamlit has button shortcuts
_KEYS = "shortcut" in inspect.signature(st.button).parameters
#: the chart's height in presenter mode (pixels): beside the step's text on a 1280 x 720 or 1024 x 768 screen
PRESENTER_CHART_HEIGHT = 470
PAGE_TITLES = {"calibrate": "Calibrate", "bounds": "Bounds", "simulate": "Simulate", "accounting": "Accounting",
               "audit": "Audit"}


def _init() -> None:
    """Load the lesson, step, presenter flag, locks and changed inputs from the link, once per session."""
    if "_les" in st.session_state:
        return
    query = {k: st.query_params.get(k) for k in st.query_params.keys()}
    state, locks, problems = L.state_from_query(query)
    over = {}
    for name in L.LESSON_INPUTS:
        if name in query and name not in locks:
            try:
                over[name] = L._validate_entry(name, query[name])
            except ValueError as exc:
                if name not in L.urlstate.SCHEMA:  # the dashboard's own link notice lists the others
                    problems.append(f"ignored link parameter: {exc}")
    st.session_state["_les"] = state
    st.session_state["_les_locks"] = locks
    st.session_state["_les_over"] = over
    st.session_state["_les_invalid"] = {}
    st.session_state["_les_problems"] = problems


def _sync() -> None:
    """The URL of exactly what is on screen: lesson, step, flags, locked and changed inputs."""
    les = st.session_state["_les"]
    values = dict(st.session_state["_les_over"])
    values.update(st.session_state["_les_locks"])
    enc = L.encode_state(les, values)
    if dict(st.query_params) != enc:
        st.query_params.from_dict(enc)


def _go(lesson_id: str, step: int) -> None:
    """Callback: open ``lesson_id`` at ``step`` (1-based): the step's own settings, locks kept."""
    les = st.session_state["_les"]
    les["les_id"], les["les_step"] = lesson_id, step
    st.session_state["_les_over"] = {}
    st.session_state["_les_invalid"] = {}
    st.session_state["_les_problems"] = []
    for key in [k for k in st.session_state if str(k).startswith("les_q_") and str(k).endswith("_revealed")]:
        del st.session_state[key]  # a step opens with its question unanswered


def _toggle_present() -> None:
    les = st.session_state["_les"]
    les["les_present"] = not les["les_present"]


def _commit(name: str, key: str, lesson_id: str, k: int) -> None:
    """Callback of a step's input.  A value from another step's input (sent by the browser in the same rerun as a
    click on Next or Back) is ignored: each step opens with its own settings."""
    les = st.session_state["_les"]
    if (les["les_id"], int(les["les_step"])) != (lesson_id, k):
        return
    raw = st.session_state.get(key)
    st.session_state["_les_problems"] = []
    label = INPUT_LABELS.get(name, name)
    try:
        # the box holds text, read as the other pages read theirs: 6e4, 60,000 and 60 000 are 60000; 2.5 is not a
        # whole number (refused, never truncated)
        number = L.urlstate.parse_number(raw, _kind(name, st.session_state["_les_over"].get(name)))
    except ValueError as exc:
        shown = "nothing: the box is empty" if not str(raw or "").strip() else str(exc)
        st.session_state["_les_invalid"][name] = f"{label}: {shown}"
        return
    try:
        st.session_state["_les_over"][name] = L._validate_entry(name, number)
        st.session_state["_les_invalid"].pop(name, None)
    except ValueError as exc:
        msg = str(exc)
        st.session_state["_les_invalid"][name] = label + msg[len(name):] if msg.startswith(name + " ") else msg


def _kind(name: str, value) -> str:
    """"int" or "float": the kind of a step input (from the view's schema, else from its value)."""
    if name in L.urlstate.SCHEMA:
        return L.urlstate.SCHEMA[name][0]
    from dpviz_ui import audit_page as ap

    if name in ap.SCHEMA:
        return "int" if ap.SCHEMA[name][0] == "int" else "float"
    return "int" if isinstance(value, int) else "float"


def lesson_list() -> None:
    st.title("Lessons")
    st.write("Guided walks through the five papers: each step sets the live calculators (every number is computed "
             "by dpviz at that step), asks you to predict before it reveals, and has its own link. Use ← / → or "
             "Back / Next to move; a lecturer can present a lesson full-screen and lock parameters in a link.")
    for lesson in L.LESSONS:
        with st.container(border=True):
            c1, c2 = st.columns([4, 1])
            c1.subheader(lesson.title)
            c1.markdown("**After it you can:** " + "; ".join(lesson.objectives) + ".")
            n_q = sum(1 for s in lesson.steps if s.question)
            c1.caption(f"{len(lesson.steps)} steps, {n_q} questions, about {lesson.minutes} minutes.")
            c2.button("Start", key=f"start_{lesson.id}", on_click=_go, args=(lesson.id, 1), type="primary")


def _compute(step, state: dict) -> dict:
    """The step's live view: cached for the quick kinds, in the worker pool (kept for this session) for the
    simulation kinds."""
    state_json = json.dumps(state, sort_keys=True, default=str)
    if step.view not in L.HEAVY:
        return ui.cached_step_live(step.view, state_json)
    key = hashlib.sha256(f"{step.view}|{state_json}".encode()).hexdigest()
    store = st.session_state.setdefault("_les_heavy", {})
    if key not in store:
        res = ui.run_job(L.live, step.view, state, label="running this step's computation", share=True)
        while len(store) >= HEAVY_KEPT:  # the session keeps its latest runs (the handout reuses them)
            store.pop(next(iter(store)))
        store[key] = {"ok": res}
    return store[key]


#: worker-pool runs a session keeps (a lesson has at most four; a handout reuses those at the steps' own settings)
HEAVY_KEPT = 12


def _session_runs(lesson) -> dict:
    """The worker-pool results this session has at the steps' own settings: {step number: live result}."""
    store = st.session_state.get("_les_heavy", {})
    out = {}
    for k, step in enumerate(lesson.steps, 1):
        if step.view in L.HEAVY:
            state_json = json.dumps(L.step_state(step), sort_keys=True, default=str)
            got = store.get(hashlib.sha256(f"{step.view}|{state_json}".encode()).hexdigest())
            if got and "ok" in got:
                out[k] = got["ok"]
    return out


def _inputs(step, state: dict, lesson_id: str, k: int) -> None:
    locks = st.session_state["_les_locks"]
    invalid = st.session_state["_les_invalid"]
    if not step.inputs:
        return
    cols = st.columns(len(step.inputs) + 1)
    for col, name in zip(cols, step.inputs):
        key = f"les_in_{lesson_id}_{k}_{name}"
        if key not in st.session_state or name not in invalid:
            st.session_state[key] = L.urlstate.number_text(state[name], _kind(name, state[name]))
        locked = name in locks
        col.text_input(INPUT_LABELS.get(name, name) + (" 🔒" if locked else ""), key=key,
                       disabled=locked, on_change=_commit, args=(name, key, lesson_id, k),
                       help="Locked by the lesson link." if locked else "Try another value (6e4, 60,000 and "
                                                                        "60 000 all mean 60000): every number "
                                                                        "below is recomputed.")
    if any(name in st.session_state["_les_over"] for name in step.inputs if name not in locks):
        cols[-1].button("Reset to the lesson's values", key=f"les_reset_{lesson_id}_{k}", on_click=_go,
                        args=(lesson_id, k))


def _question(step, state: dict, values: dict, lesson_id: str, k: int) -> None:
    q = step.question
    base = f"les_q_{lesson_id}_{k}"
    st.markdown(f"**Predict, then reveal.** {q.prompt}")
    revealed_key = f"{base}_revealed"
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    # an answer (a choice, or a number typed and entered) reveals, as the lecturer's Reveal does; both are callbacks
    # (run before the script) so that a reveal is never lost to a rerun that interrupts this one
    if q.kind == "choice":
        pred = c1.radio("Your prediction", q.options, index=None, key=f"{base}_pred", horizontal=True,
                        on_change=_answer_given, args=(f"{base}_pred", revealed_key, True))
    else:
        typed = c1.text_input("Your prediction", key=f"{base}_pred", placeholder="a number, e.g. 2.5 or 6e4",
                              on_change=_answer_given, args=(f"{base}_pred", revealed_key, False))
        pred = None
        if typed and typed.strip():
            try:
                pred = L.urlstate.parse_number(typed)
            except ValueError as exc:
                c1.warning(f"Your prediction is not read: {ui.plain(str(exc))}. Type a number such as 2.5 or 6e4.")
    c2.button("Reveal", key=f"{base}_reveal", type="primary",
              on_click=lambda: st.session_state.__setitem__(revealed_key, True))
    if not st.session_state.get(revealed_key):
        return
    try:
        rev = L.answer(step, state, values)
    except ValueError as exc:
        st.error(ui.plain(str(exc)))
        return
    ans = rev["answer"]
    shown = ans if isinstance(ans, str) else ui.fmt(float(ans))
    if pred is None:
        st.info(f"Answer: **{shown}** (you made no prediction).")
    elif L.check_prediction(q, pred, ans):
        st.success(f"Right — the answer is **{shown}**"
                   + ("." if q.kind == "choice" else f" (within {100 * q.rtol:g} % counts)."))
    else:
        st.warning(f"Not quite: the answer is **{shown}**, you predicted {ui.plain(pred if q.kind == 'choice' else ui.fmt(float(pred)))}.")
    st.markdown(ui.pretty(rev["text"]))
    if rev["tex"]:
        ui.latex(ui.tex_sci(rev["tex"]))


def _answer_given(pred_key: str, revealed_key: str, choice: bool) -> None:
    """Callback of a prediction: an answer that can be read reveals the step's answer (an unreadable number does
    not: the box says why)."""
    raw = st.session_state.get(pred_key)
    if raw is None or (not choice and not str(raw).strip()):
        return
    if not choice:
        try:
            L.urlstate.parse_number(raw)
        except ValueError:
            return
    st.session_state[revealed_key] = True


def step_view(lesson_id: str) -> None:
    lesson = L.get_lesson(lesson_id)
    les = st.session_state["_les"]
    present = les["les_present"]
    n_steps = len(lesson.steps)
    k = min(max(1, int(les["les_step"])), n_steps)
    les["les_step"] = k
    step = lesson.steps[k - 1]
    st.html(LESSON_CSS + (PRESENTER_CSS if present else ""))
    if not present:
        st.markdown(f"### {lesson.title}")
    _nav(lesson, k, present)
    st.header(f"{k}. {step.title}")
    # presenter mode: text, inputs, numbers and question on the left, the chart on the right (one screen)
    left, right = st.columns([1, 1.05], gap="medium") if present else (st.container(), None)
    with left:
        _step_body(lesson, k, step, present, right)


def _nav(lesson, k: int, present: bool) -> None:
    """Back / Next (arrow keys), presenter mode on / off, in presenter mode a "copy link to this step" popover, and
    the progress: one row whose buttons keep their one-line labels."""
    n_steps = len(lesson.steps)
    with st.container(horizontal=True, vertical_alignment="center", key="les_nav", gap="small"):
        if present:  # hidden on a screen narrower than 1150 px (the style sheet), where the row would wrap
            with st.container(key="les_title", width="content"):
                st.markdown(f"**{lesson.title}**", width="content")
        st.button("◀ Back", key="les_back", on_click=_go, args=(lesson.id, k - 1), disabled=k <= 1,
                  **({"shortcut": "Left"} if _KEYS else {}))
        st.button("Next ▶", key="les_next", on_click=_go, args=(lesson.id, k + 1), disabled=k >= n_steps,
                  type="primary", **({"shortcut": "Right"} if _KEYS else {}))
        st.button("Exit presenter mode" if present else "Presenter mode", key="les_present_btn",
                  on_click=_toggle_present)
        if present:
            with st.popover("Copy link to this step", icon=":material/link:", key="les_copy"):
                st.caption("The link opens this step (in presenter mode) with its settings; the copy icon at the "
                           "right of the box copies it.")
                st.code(step_url(present=True), language=None, wrap_lines=True)
                st.code(step_url(present=False), language=None, wrap_lines=True)
                st.caption("First: presenter mode; second: the ordinary view, for students.")
        st.progress(k / n_steps, text=f"Step {k} of {n_steps}")


def step_url(*, present: bool) -> str:
    """The full link of the step on screen (its changed and locked inputs), in presenter mode or not."""
    les = st.session_state["_les"]
    values = dict(st.session_state["_les_over"])
    values.update(st.session_state["_les_locks"])
    query = _q(L.encode_state({**les, "les_present": present}, values))
    try:
        base = str(st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - no browser context (tests)
        base = ""
    return f"{base}?{query}" if base else f"lessons?{query}"


def _answered(lesson_id: str, k: int) -> bool:
    return bool(st.session_state.get(f"les_q_{lesson_id}_{k}_revealed"))


def _step_body(lesson, k: int, step, present: bool, chart_column) -> None:
    lesson_id = lesson.id
    st.markdown(step.text)

    locks = st.session_state["_les_locks"]
    over = {name: val for name, val in st.session_state["_les_over"].items() if name in step.inputs}
    over.update({name: val for name, val in locks.items() if name in step.inputs})
    state = L.step_state(step, over)
    # keyed by the step: the browser builds a step's inputs afresh instead of reusing the previous step's (whose
    # typed state could otherwise reach the new inputs during the switch)
    with st.container(key=f"les_inputs_{lesson_id}_{k}"):
        _inputs(step, state, lesson_id, k)
    _sync()
    invalid = {n: m for n, m in st.session_state["_les_invalid"].items() if n in step.inputs}
    if invalid:
        st.error("Fix the input to see results: " + "; ".join(ui.plain(m) for m in invalid.values())
                 + ". No numbers are shown until then.")
        return
    with st.container():
        res = _compute(step, state)
        if "error" in res:
            st.error(ui.plain(res["error"]))
            return
        out = res["ok"]
        # before the question is answered only what cannot give the answer away is on screen (L.on_screen)
        view = L.on_screen(step, out, _answered(lesson_id, k))
        nums = view["numbers"]
        most = 3 if present else 5  # presenter mode: half the width, larger type
        cols = st.columns(min(len(nums), most)) if nums else []
        for i, (label, value) in enumerate(nums[:most]):
            cols[i].metric(label, ui.fmt(value) if not isinstance(value, str) else value)
        if len(nums) > most:
            st.caption(" · ".join(f"{label}: {ui.fmt(value)}" for label, value in nums[most:]))
    ui.flush()
    with st.container():
        if view.get("status"):
            level, msg = view["status"]
            {"success": st.success, "warning": st.warning}.get(level, st.error)(ui.pretty(msg))
    with st.container():
        if view.get("tex"):
            ui.latex(ui.tex_sci(view["tex"]))
    # filled after the question: the chart is the slowest part of a step
    chart_box = chart_column.container() if chart_column is not None else st.container()
    with st.container():
        for note in view.get("notes") or []:
            st.caption(ui.pretty(note))
        if view["held"]:
            st.caption("The rest of this step's numbers appear with the answer.")
    with st.container(key=f"les_question_{lesson_id}_{k}"):
        if step.question:
            _question(step, state, out["values"], lesson_id, k)
    with chart_box:
        fig = out.get("figure") if view["chart"] else None
        if not view["chart"]:
            pass
        elif out.get("curve") is not None or step.view in L.LATE_FIGURES:
            got = ui.cached_step_chart(step.view, json.dumps(state, sort_keys=True, default=str), step.animate)
            if "error" in got:
                st.error(ui.plain(got["error"]))
            fig = got.get("ok")
        if fig is not None:
            if step.animate:
                st.caption(f"Press ▶ Play (or drag the slider) to play {INPUT_LABELS.get(step.animate, step.animate)}"
                           " through its values.")
            figure = go.Figure(fig)
            if present:  # the chart beside the text fits a 720-pixel-high screen with its Play control
                title = str(figure.layout.title.text or "")
                if ": " in title:  # "paper, algorithm: σ against n" on two lines, so that it is never cut
                    head, tail = title.rsplit(": ", 1)
                    title = f"{head}:<br>{tail}"
                figure.update_layout(height=PRESENTER_CHART_HEIGHT, title={"text": title, "font": {"size": 14}},
                                     margin={"t": 100})  # two title lines above the legend
                if step.animate:
                    figure.update_layout(margin={"t": 100, "b": 120})
            ui.show_figure(figure, f"lesson_{lesson_id}_{k}", params=L.params_of(state))
        elif view["held"] and (out.get("figure") is not None or out.get("curve") is not None
                               or step.view in L.LATE_FIGURES):
            st.caption("The chart appears with the answer: it shows it.")
    with st.container():
        link = L.page_link(step, state)
        if link and not present:
            page = L.VIEWS[step.view]
            st.link_button(f"Open in {PAGE_TITLES[page]} with these settings", link)
    with st.container():
        if not present:
            lecturer_tools(lesson, k, step, state)
    # a live class at this step (pages/live_class.py): students follow on their own devices
    if st.button("Start a live class from this step", key="les_live_class", help="Students join with a code or QR "
                 "code, follow your Next / Back on their devices and predict before you reveal."):
        from dpviz_ui.classroom import store as class_store

        code, key = class_store.ClassStore().create(lesson.id, len(lesson.steps), step=k)
        st.switch_page("pages/live_class.py", query_params={"cls_code": code, "cls_key": key})


def lecturer_tools(lesson, k: int, step, state: dict) -> None:
    with st.expander("For the lecturer: links, lock, handouts"):
        les = st.session_state["_les"]
        values = {n: state[n] for n in step.inputs}
        st.markdown(f"[Link to this step](lessons?{_q(L.encode_state({**les, 'les_present': False}, {}))}) · "
                    f"[Presenter link](lessons?{_q(L.encode_state({**les, 'les_present': True}, {}))})")
        lock = st.multiselect("Lock these inputs at their current values in a link", list(step.inputs),
                              key=f"les_lockpick_{lesson.id}_{k}",
                              format_func=lambda n: INPUT_LABELS.get(n, n))
        if lock:
            url = "lessons?" + _q(L.encode_state({**les, "les_lock": list(lock)},
                                                 {n: values[n] for n in lock}))
            st.markdown(f"[Link with {', '.join(INPUT_LABELS.get(n, n) for n in lock)} locked]({url})")
        c1, c2 = st.columns(2)
        c1.download_button("Notebook — exercises (.ipynb)", lambda: L.dumps_notebook(
            L.lesson_notebook(lesson.id, solutions=False)), file_name=f"dpviz_lesson_{lesson.id}.ipynb",
            mime="application/x-ipynb+json", key=f"les_nb_ex_{lesson.id}", on_click="ignore")
        c2.download_button("Notebook — solutions (.ipynb)", lambda: L.dumps_notebook(
            L.lesson_notebook(lesson.id, solutions=True)), file_name=f"dpviz_lesson_{lesson.id}_solutions.ipynb",
            mime="application/x-ipynb+json", key=f"les_nb_sol_{lesson.id}", on_click="ignore")
        hkey = f"_les_html_{lesson.id}"
        if st.button("Prepare the offline HTML handout (computes every step)", key=f"les_html_btn_{lesson.id}"):
            st.session_state[hkey] = ui.run_job(L.html_job, lesson.id, _session_runs(lesson),
                                                label="writing the handout")
        if st.session_state.get(hkey):
            st.download_button("Download the HTML handout (works offline)", st.session_state[hkey],
                               file_name=f"dpviz_lesson_{lesson.id}.html", mime="text/html",
                               key=f"les_html_dl_{lesson.id}", on_click="ignore")


def _q(params: dict) -> str:
    from urllib.parse import urlencode

    return urlencode(params)


def body() -> None:
    _init()
    ui.show_link_notice(extra=st.session_state.get("_les_problems") or [])  # one escaped, capped notice
    problems = L.validate_all()
    if problems:
        st.warning("Some lessons have problems: " + "; ".join(ui.plain(p) for p in problems))
    les = st.session_state["_les"]
    if not les["les_id"]:
        _sync()
        lesson_list()
        return
    if not les["les_present"]:
        st.button("← All lessons", key="les_all", on_click=_go, args=("", 1))
    step_view(les["les_id"])


ui.guarded(body)
