"""Live class: students follow the lecturer's lesson on their own devices and predict before the reveal (issue 35).

The state lives in the class-session store (:mod:`dpviz_ui.classroom.store`: SQLite under ``DPVIZ_DATA_DIR`` or
PostgreSQL at ``DPVIZ_CLASS_DB``), so a server restart loses nothing and several processes can share a class.  The
steps are the lessons' own (:mod:`dpviz_ui.lessons`: ``step_state``, ``live``, ``chart``, ``answer``).

Link state (validated here, never evaluated): ``cls_join`` (a class code: the student view) and ``cls_me`` (the
student's random anonymous id, kept in the link so that a reload or a server restart keeps their answers), or
``cls_code`` + ``cls_key`` (the presenter view; the key never appears in a student's page or link).
"""

import json
import re
import secrets

import plotly.graph_objects as go
import streamlit as st

from dpviz_ui import helpers as ui
from dpviz_ui import lessons as L
from dpviz_ui.classroom import results as R
from dpviz_ui.classroom import delivery
from dpviz_ui.classroom import push
from dpviz_ui.classroom import store as S
from dpviz_ui.classroom import watcher as W

# the end of a page run must reach the browser even when the follow check's timer fires just then (a Streamlit race
# that lost ~3 % of the students' "is recorded" confirmations and could leave a page half-drawn after Next)
delivery.install()

INPUT_LABELS = {"n": "n", "d": "d", "eps": "ε", "log10_delta": "log10 δ", "T": "T", "eta": "η", "G": "G (Δ)",
                "L": "L", "mu": "μ", "alpha": "α", "reps": "repetitions", "aud_trials": "trials",
                "aud_reps": "repetitions", "aud_n": "n", "aud_eps": "ε claimed"}
#: seconds between two looks at the answer count (presenter), and at the class by a student page that the server
#: cannot push to (no Streamlit server internals for it: dpviz_ui/classroom/push.py)
POLL_S = 1.0
#: seconds between two looks at the class by a student page that the server pushes the lecturer's moves to: a
#: fallback only (a push that could not reach the page); the push itself comes within the watcher's quarter second
FALLBACK_S = 5.0
# a constant style sheet (nothing from the user goes in): the class code and the join link large
BIG_CSS = ("<style>.st-key-cls_code_big h1{font-size:3.2rem!important;letter-spacing:0.08em}"
           ".st-key-cls_join_big code{font-size:1.15rem!important;white-space:pre-wrap!important;"
           "word-break:break-all}</style>")


def _store() -> S.ClassStore:
    return S.ClassStore()


def _base_url() -> str:
    """This server's address as the browser sees it, without the page and the query (for the join link)."""
    try:
        url = str(st.context.url or "")
    except Exception:  # noqa: BLE001 - no request context (AppTest)
        url = ""
    url = url.split("?", 1)[0].split("#", 1)[0]
    if not re.match(r"^https?://[^\s/]+", url):
        return "http://localhost:8501"
    parts = url.rstrip("/").rsplit("/", 1)
    return parts[0] if parts[0].count("/") >= 2 and parts[1] in ("class", "live_class") else url.rstrip("/")


def _client() -> str:
    try:
        ip = st.context.ip_address
    except Exception:  # noqa: BLE001
        ip = None
    if ip:
        return f"ip:{ip}"
    st.session_state.setdefault("_cls_client", secrets.token_hex(8))
    return "session:" + st.session_state["_cls_client"]


def _kind(name: str, value) -> str:
    if name in L.urlstate.SCHEMA:
        return L.urlstate.SCHEMA[name][0]
    return "int" if isinstance(value, int) else "float"


# ----------------------------------------------------------------------------------------------------------------------
# a step, as the lessons show it (each device has its own copy of the inputs)
# ----------------------------------------------------------------------------------------------------------------------
def _commit(name: str, key: str, k: int) -> None:
    over = st.session_state.setdefault("_cls_over", {}).setdefault(k, {})
    bad = st.session_state.setdefault("_cls_invalid", {}).setdefault(k, {})
    raw = st.session_state.get(key)
    label = INPUT_LABELS.get(name, name)
    try:
        number = L.urlstate.parse_number(raw, _kind(name, over.get(name)))
        over[name] = L._validate_entry(name, number)
        bad.pop(name, None)
    except ValueError as exc:
        shown = "nothing: the box is empty" if not str(raw or "").strip() else str(exc)
        bad[name] = f"{label}: {shown}"


def _reset(k: int) -> None:
    st.session_state.setdefault("_cls_over", {})[k] = {}
    st.session_state.setdefault("_cls_invalid", {})[k] = {}
    for key in [key for key in st.session_state if str(key).startswith(f"cls_in_{k}_")]:
        del st.session_state[key]


def show_step(lesson, k: int, *, explore: bool) -> dict | None:
    """Draw step ``k`` of ``lesson`` with this device's inputs (``explore``: the student or lecturer may change
    them; a simulation step keeps the lesson's values in a class, so that it runs once for everyone).  Returns the
    step's live output at the lesson's own values (what the question is about), or None if it could not be shown."""
    step = lesson.steps[k - 1]
    st.header(f"{k}. {step.title}")
    st.markdown(step.text)
    over = dict(st.session_state.get("_cls_over", {}).get(k, {}))
    invalid = st.session_state.get("_cls_invalid", {}).get(k, {})
    can_explore = explore and step.inputs and step.view not in L.HEAVY
    state = L.step_state(step, over if can_explore else {})
    with st.container(key=f"cls_inputs_{k}"):
        if can_explore:
            cols = st.columns(len(step.inputs))
            for col, name in zip(cols, step.inputs):
                key = f"cls_in_{k}_{name}"
                if key not in st.session_state or name not in invalid:
                    st.session_state[key] = L.urlstate.number_text(state[name], _kind(name, state[name]))
                col.text_input(INPUT_LABELS.get(name, name), key=key, on_change=_commit, args=(name, key, k),
                               help="Your own copy: try another value (6e4, 60,000 and 60 000 all mean 60000). "
                                    "The class and the question keep the lesson's values.")
            if over:
                st.button("Back to the lesson's values", key=f"cls_reset_{k}", on_click=_reset, args=(k,))
        elif explore and step.inputs:
            st.caption("This step runs a simulation: in a live class it shows the lesson's values, computed once "
                       "for everyone.")
    if invalid and can_explore:
        st.error("Fix the input to see results: " + "; ".join(ui.plain(m) for m in invalid.values())
                 + ". No numbers are shown until then.")
        return None
    state_json = json.dumps(state, sort_keys=True, default=str)
    if step.view in L.HEAVY:  # a simulation, run once for the whole class (the first device to ask waits)
        with st.spinner("Computing this step…"):
            res = ui.cached_step_live(step.view, state_json)
    else:
        res = ui.cached_step_live(step.view, state_json)
    if "error" in res:
        st.error(ui.plain(res["error"]))
        return None
    out = res["ok"]
    with st.container():
        nums = out["numbers"]
        cols = st.columns(min(len(nums), 5)) if nums else []
        for i, (label, value) in enumerate(nums[:5]):
            cols[i].metric(label, ui.fmt(value) if not isinstance(value, str) else value)
        if len(nums) > 5:
            st.caption(" · ".join(f"{label}: {ui.fmt(value)}" for label, value in nums[5:]))
    ui.flush()
    with st.container():
        if out.get("status"):
            level, msg = out["status"]
            {"success": st.success, "warning": st.warning}.get(level, st.error)(ui.pretty(msg))
    with st.container():
        if out.get("tex"):
            ui.latex(ui.tex_sci(out["tex"]))
    with st.container():
        for note in out.get("notes") or []:
            st.caption(ui.pretty(note))
    if over and can_explore:
        lesson_res = ui.cached_step_live(step.view, json.dumps(L.step_state(step), sort_keys=True, default=str))
        lesson_out = lesson_res.get("ok")
    else:
        lesson_out = out
    st.session_state["_cls_chart"] = (step, state, out, k)
    return lesson_out


def show_chart(optional: bool = False) -> None:
    """The step's chart, drawn last, below the question (the slowest part of a step; on a phone the prediction
    comes first).  ``optional`` (the students): drawn only when the student asks for it -- the lecturer projects it,
    and building and sending a chart to each of 60 devices at every step would cost the server CPU and bandwidth
    for every device (benchmarks/RESULTS.md, "A live class")."""
    got = st.session_state.pop("_cls_chart", None)
    if not got:
        return
    step, state, out, k = got
    if out.get("figure") is None and out.get("curve") is None and step.view not in L.LATE_FIGURES:
        return
    if optional and not st.toggle("Show the chart", key="cls_chart_on",
                                  help="The step's chart, as on the lecturer's screen (your own values if you "
                                       "changed them)."):
        return
    with st.container():
        fig = out.get("figure")
        if out.get("curve") is not None or step.view in L.LATE_FIGURES:
            res = ui.cached_step_chart(step.view, json.dumps(state, sort_keys=True, default=str), step.animate)
            if "error" in res:
                st.error(ui.plain(res["error"]))
            fig = res.get("ok")
        if fig is not None:
            ui.show_figure(go.Figure(fig), f"class_step_{k}", params=L.params_of(state))


def show_distribution(cls: S.ClassState, k: int, mine: str | None, who: str) -> None:
    """After the reveal: the right answer, the class's predictions (histogram or bars) and the share within the
    question's tolerance; a student's own result."""
    rev = cls.revealed[k]
    values = _store().values(cls.code, k)
    s = R.summary(rev, values)
    tol = "" if rev["kind"] == "choice" else f" within {100 * rev['rtol']:g} % of it"
    st.markdown(f"**The answer: {ui.plain(rev['shown'])}**")
    if s["n"]:
        st.markdown(f"{s['n']} prediction{'s' if s['n'] != 1 else ''}; {s['n_right']} "
                    f"({100 * s['share']:.0f} %){tol}" + (" — right." if rev["kind"] == "choice" else "."))
    else:
        st.markdown("No one predicted.")
    if who == "student":
        if mine is None:
            st.info("You made no prediction for this question.")
        elif R.is_right(rev, mine):
            st.success(f"Right: you predicted {ui.plain(_shown(rev, mine))}.")
        else:
            st.warning(f"Not quite: you predicted {ui.plain(_shown(rev, mine))}.")
    if rev.get("text"):
        st.markdown(ui.pretty(rev["text"]))
    if rev.get("tex"):
        ui.latex(rev["tex"])
    ui.show_figure(R.distribution_figure(rev, values, mine if who == "student" else None), f"class_answers_{k}")


def _shown(rev: dict, value: str) -> str:
    return value if rev["kind"] == "choice" else ui.fmt(float(value))


# ----------------------------------------------------------------------------------------------------------------------
# the student
# ----------------------------------------------------------------------------------------------------------------------
def _watcher() -> W.ClassWatcher:
    return W.for_url(S.database_url())


@st.fragment(run_every=POLL_S)
def _follow(code: str, seen, step_view: str | None = None) -> None:
    """Every second (a page the server cannot push to), compare the class's version with the one this page shows
    (from this process's watcher: no database read, nothing drawn); when the lecturer moved, revealed or ended, draw
    the class's part of the page again -- only the step fragment ``step_view`` (its id) when this is the timer's own
    run, the whole page when the check ran inside a full page run."""
    _follow_check(code, seen, step_view)


@st.fragment(run_every=FALLBACK_S)
def _follow_fallback(code: str, seen, step_view: str | None = None) -> None:
    """The same check every few seconds, on a page the server pushes the lecturer's moves to (:func:`_pushed`): it
    only catches a push that could not reach the page."""
    _follow_check(code, seen, step_view)


def _follow_check(code: str, seen, step_view: str | None) -> None:
    if _watcher().version(code) == seen:
        return
    if step_view and _in_fragment_run():
        _rerun_fragment(step_view)
    st.rerun(scope="app")


def _pushed(code: str, version, step_view: str | None) -> bool:
    """Register this page with the process's followers (dpviz_ui/classroom/push.py): when the watcher reads a newer
    version of class ``code``, the server reruns this page's step fragment ``step_view`` itself.  Returns False (the
    page then checks every second itself) without a Streamlit server that can push (AppTest) or a fragment id."""
    if not step_view or not delivery.can_push():
        return False
    from urllib.parse import urlencode

    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not getattr(ctx, "session_id", None):
        return False
    followers = push.followers()
    _watcher().listen(followers.changed)
    # the link as the page has just set it (the first run adds cls_me), not the one this run was started with
    target = push.Target(step_view, urlencode(st.query_params.to_dict()), ctx.page_script_hash,
                         getattr(ctx, "context_info", None))
    followers.follow(code, ctx.session_id, target, version)
    return True


def _in_fragment_run() -> bool:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def _current_fragment() -> str | None:
    """The id of the fragment whose body is running (None outside a fragment or without a Streamlit server)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id
    except Exception:  # noqa: BLE001 - another Streamlit: the check then redraws the whole page
        return None


def _rerun_fragment(fragment_id: str) -> None:
    """Rerun only the fragment ``fragment_id`` from another fragment's body.  Streamlit's ``st.rerun(scope=key)``
    does this only from a widget callback; a student's one-second check has none, so this queues the same request
    ``st.rerun`` queues (a fragment-scoped rerun, which stops the running check at once) and reaches a yield point.
    A full page redraw costs the server ~3x the step fragment's CPU (benchmarks/RESULTS.md, "Live class, session
    38"); if the request cannot be queued (another Streamlit), the caller falls back to ``st.rerun(scope="app")``."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        ok = ctx.script_requests.request_rerun(RerunData(
            query_string=ctx.query_string, page_script_hash=ctx.page_script_hash, fragment_id_queue=[fragment_id],
            is_fragment_scoped_rerun=True, cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info))
    except Exception:  # noqa: BLE001
        return
    if ok:
        st.empty()  # a yield point: the runner stops this run here, before the element is sent, and runs the fragment


def _submit(code: str, k: int, question, me: str) -> None:
    raw = st.session_state.get(f"cls_pred_{k}")
    msgs = st.session_state.setdefault("_cls_msg", {})
    try:
        value = R.normalise(question, raw)
        _store().submit(code, k, me, value)
        msgs[k] = ("ok", f"Your prediction {_shown({'kind': question.kind}, value)} is recorded. You can change it "
                         "until the lecturer reveals the answer.")
    except S.Refused as exc:
        msgs[k] = ("refused", str(exc))
    except ValueError as exc:
        msgs[k] = ("bad", f"Your prediction is not read: {exc}.")


def student_view(raw_code: str) -> None:
    store = _store()
    try:
        cls = store.find(raw_code, _client())
    except S.Refused as exc:
        st.error(ui.plain(str(exc)))
        return
    if cls is None:
        st.error(f"No class has the code {ui.plain(str(raw_code)[:20])} (it may have ended or expired). Check the "
                 "code with your lecturer.")
        join_box()
        return
    me = st.query_params.get("cls_me")
    if not (isinstance(me, str) and S.STUDENT_ID.fullmatch(me) and len(me) == 16):
        me = st.session_state.get("_cls_me") or S.new_student_id()
    st.session_state["_cls_me"] = me
    if st.query_params.get("cls_join") != cls.code or st.query_params.get("cls_me") != me:
        st.query_params.from_dict({"cls_join": cls.code, "cls_me": me})
    if cls.ended:
        st.title(L.get_lesson(cls.lesson_id).title)
        st.info("This class has ended. Thank you for taking part!")
        return
    _student_step(cls.code, me)


@st.fragment
def _student_step(code: str, me: str) -> None:
    """The class's part of a student's page: the lecturer's step (or an earlier one), the prediction and, after the
    reveal, the distribution.  A fragment: when the lecturer moves, the server's push (or the follow check inside
    it) redraws only this part (not the navigation, the page's frame and the join checks of a full page run), and so
    do the student's own clicks and inputs here."""
    ui.guarded(lambda: _student_step_body(code, me))


def _student_step_body(code: str, me: str) -> None:
    store = _store()
    read_at = _watcher().clock()
    cls = store.get(code)
    if cls is None or cls.ended:  # ended or expired since the page was drawn: the full page says so
        st.rerun(scope="app")
    lesson = L.get_lesson(cls.lesson_id)
    step_view = _current_fragment()
    pushed = _pushed(cls.code, cls.version, step_view)
    _watcher().note(cls.code, cls.version, read_at)
    (_follow_fallback if pushed else _follow)(cls.code, cls.version, step_view)
    browse = st.session_state.get("_cls_browse")
    if browse is not None and not 1 <= browse < cls.step:
        browse = None
    st.session_state["_cls_browse"] = browse
    k = cls.step if browse is None else browse
    st.caption(f"Live class {cls.display_code} · {ui.plain(lesson.title)}")
    nav = st.columns([1, 1, 3])
    nav[0].button("◀ Earlier step", key="cls_prev", disabled=k <= 1, width="stretch",
                  on_click=lambda: st.session_state.__setitem__("_cls_browse", k - 1))
    if browse is not None:
        nav[1].button(f"Follow the class (step {cls.step}) ▶", key="cls_follow", type="primary", width="stretch",
                      on_click=lambda: st.session_state.__setitem__("_cls_browse", None))
        nav[2].warning(f"You are looking at step {k}; the class is at step {cls.step}.")
    else:
        nav[2].progress(k / cls.n_steps, text=f"Step {k} of {cls.n_steps} (the lecturer's)")
    step = lesson.steps[k - 1]
    show_step(lesson, k, explore=True)
    if step.question:
        with st.container(key="cls_question", border=True):
            q = step.question
            st.markdown(f"**Predict.** {q.prompt}")
            mine = store.answer_of(cls.code, k, me)
            if k in cls.revealed:
                show_distribution(cls, k, mine, "student")
            else:
                with st.form(key=f"cls_form_{k}", border=False):
                    if q.kind == "choice":
                        st.radio("Your prediction", q.options, key=f"cls_pred_{k}", horizontal=True,
                                 index=q.options.index(mine) if mine in q.options else None)
                    else:
                        if f"cls_pred_{k}" not in st.session_state and mine is not None:
                            st.session_state[f"cls_pred_{k}"] = L.urlstate.number_text(float(mine), "float")
                        st.text_input("Your prediction", key=f"cls_pred_{k}", max_chars=R.MAX_TYPED_CHARS,
                                      placeholder="a number, e.g. 2.5, 6e4 or 60,000")
                    st.form_submit_button("Submit prediction", type="primary", on_click=_submit,
                                          args=(cls.code, k, q, me))
                msg = st.session_state.get("_cls_msg", {}).get(k)
                if msg:
                    {"ok": st.success, "refused": st.warning, "bad": st.error}[msg[0]](ui.plain(msg[1]))
                elif mine is not None:
                    st.success(f"Your prediction {ui.plain(_shown({'kind': q.kind}, mine))} is recorded. You can "
                               "change it until the lecturer reveals the answer.")
                else:
                    st.caption("The answer is shown when the lecturer reveals it.")
    show_chart(optional=True)




# ----------------------------------------------------------------------------------------------------------------------
# the presenter
# ----------------------------------------------------------------------------------------------------------------------
def _move(code: str, key: str, step: int) -> None:
    try:
        _store().set_step(code, key, step)
        _watcher().poke()  # the students' pages in this process: pushed now, not at the watcher's next quarter second
    except (S.Refused, ValueError) as exc:
        st.session_state["_cls_error"] = str(exc)


def _end(code: str, key: str) -> None:
    try:
        _store().end(code, key)
        _watcher().poke()
    except S.Refused as exc:
        st.session_state["_cls_error"] = str(exc)


def _reveal(code: str, key: str, lesson_id: str, k: int, values: dict | None) -> None:
    step = L.get_lesson(lesson_id).steps[k - 1]
    try:
        rev = L.answer(step, L.step_state(step), values)
        ans = rev["answer"]
        shown = ans if isinstance(ans, str) else ui.fmt(float(ans))
        _store().reveal(code, key, k, R.revealed_answer(step.question, ans, shown, rev.get("text"), rev.get("tex")))
        _watcher().poke()
    except (S.Refused, ValueError) as exc:
        st.session_state["_cls_error"] = str(exc)


@st.fragment(run_every=POLL_S)
def _answer_count(code: str, k: int) -> None:
    n = _store().count(code, k)
    st.metric("Predictions received", n)


def presenter_view(code: str, key: str) -> None:
    store = _store()
    if not store.check_key(code, key):
        st.error("This presenter link is not valid for this class (wrong or missing presenter key, or the class "
                 "expired): nothing was changed.")
        return
    cls = store.get(code)
    lesson = L.get_lesson(cls.lesson_id)
    st.html(BIG_CSS)
    err = st.session_state.pop("_cls_error", None)
    if err:
        st.error(ui.plain(err))
    join = f"{_base_url()}/class?cls_join={cls.code}"
    head = st.columns([3, 1])
    with head[0]:
        st.caption(f"Live class · {ui.plain(lesson.title)}" + (" · ended" if cls.ended else ""))
        with st.container(key="cls_code_big"):
            st.title(cls.display_code)
        with st.container(key="cls_join_big"):
            st.markdown("Students join at")
            st.code(join, language=None)
        if "localhost" in join or "127.0.0.1" in join:
            st.caption("This address works only on this computer: for the students' devices, start the dashboard "
                       "with --server.address 0.0.0.0 and open it at this computer's network address.")
    head[1].image(R.qr_png(join), caption="Scan to join", width=220)
    with st.expander("Presenter link (keep it private: it moves the class)"):
        st.code(f"{_base_url()}/class?cls_code={cls.code}&cls_key={key}", language=None)
    if cls.ended:
        st.info("This class has ended: students see that it is over. Its answers are kept until it expires "
                "(12 h after it started); download them below.")
    else:
        nav = st.columns([1, 1, 2, 1])
        nav[0].button("◀ Back", key="cls_back", on_click=_move, args=(cls.code, key, cls.step - 1),
                      disabled=cls.step <= 1, width="stretch")
        nav[1].button("Next ▶", key="cls_next", type="primary", on_click=_move, args=(cls.code, key, cls.step + 1),
                      disabled=cls.step >= cls.n_steps, width="stretch")
        nav[2].progress(cls.step / cls.n_steps, text=f"Step {cls.step} of {cls.n_steps}")
        nav[3].button("End class", key="cls_end", on_click=_end, args=(cls.code, key), width="stretch")
    k = cls.step
    step = lesson.steps[k - 1]
    out = show_step(lesson, k, explore=True)
    if step.question:
        with st.container(key="cls_question", border=True):
            st.markdown(f"**Predict.** {step.question.prompt}")
            if k in cls.revealed:
                show_distribution(cls, k, None, "presenter")
            else:
                c1, c2 = st.columns([2, 1])
                with c1:
                    _answer_count(cls.code, k)
                c2.button("Reveal", key=f"cls_reveal_{k}", type="primary", disabled=out is None or cls.ended,
                          on_click=_reveal, args=(cls.code, key, cls.lesson_id, k, (out or {}).get("values")))
    titles = {i: s.title for i, s in enumerate(lesson.steps, 1)}
    st.download_button("Download the answers (CSV, anonymous)", lambda: store.export_csv(cls.code, key, titles),
                       file_name=f"dpviz_class_{cls.code}.csv", mime="text/csv", key="cls_csv", on_click="ignore")
    show_chart()


# ----------------------------------------------------------------------------------------------------------------------
# no class yet: join one, or start one
# ----------------------------------------------------------------------------------------------------------------------
def join_box() -> None:
    with st.form("cls_join_form"):
        st.text_input("Class code", key="cls_join_code", max_chars=20, placeholder="e.g. ABCD-2345")
        if st.form_submit_button("Join", type="primary"):
            code = S.normalise_code(st.session_state.get("cls_join_code") or "")
            st.query_params.from_dict({"cls_join": code or str(st.session_state.get("cls_join_code") or "")[:20]})
            st.rerun()


def start_box() -> None:
    ids = [les.id for les in L.LESSONS]
    titles = {les.id: les.title for les in L.LESSONS}
    lesson_id = st.selectbox("Lesson", ids, format_func=lambda i: titles[i], key="cls_lesson")
    if st.button("Start a class", key="cls_start", type="primary"):
        code, key = _store().create(lesson_id, len(L.get_lesson(lesson_id).steps))
        st.query_params.from_dict({"cls_code": code, "cls_key": key})
        st.rerun()


def body() -> None:
    q = st.query_params
    if q.get("cls_code") is not None or q.get("cls_key") is not None:
        presenter_view(str(q.get("cls_code") or ""), str(q.get("cls_key") or ""))
        return
    if q.get("cls_join"):
        student_view(str(q.get("cls_join")))
        return
    st.title("Live class")
    st.write("A lecturer runs a lesson and every student follows it on their own laptop or phone: each device shows "
             "the lecturer's step with its live numbers, students predict before the reveal, and the class then "
             "sees its distribution of predictions beside the right answer.")
    c1, c2 = st.columns(2)
    with c1:
        st.subheader("Join a class")
        join_box()
    with c2:
        st.subheader("Start a class (lecturer)")
        start_box()


ui.guarded(body)
