r"""The Lessons page's link state: the ``les_*`` query parameters read (validated, never evaluated) and written, and
the link from a step to the dashboard page that shows the same computation.

Imports :mod:`.model`, :mod:`.views` and :mod:`.content`.
"""

from __future__ import annotations

from dpviz.foundation import urlstate
from dpviz_ui.lessons.content import LESSONS, get_lesson
from dpviz_ui.lessons.model import LESSON_INPUTS, VIEWS, Step, _validate_entry
from dpviz_ui.lessons.views import _aud_state


STATE_SCHEMA = {"les_id": "", "les_step": 1, "les_present": False, "les_lock": []}


def state_from_query(query: dict) -> tuple[dict, dict, list[str]]:
    """(lesson state, locked parameter values, problems) from a link's query parameters.

    ``les_id`` a lesson id, ``les_step`` 1-based, ``les_present`` presenter mode, ``les_lock`` a comma-separated
    list of inputs whose values (given as ordinary view parameters, e.g. ``eps=0.5``) every step keeps."""
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in STATE_SCHEMA.items()}
    problems: list[str] = []
    lid = query.get("les_id")
    if lid is not None:
        if any(lesson.id == lid for lesson in LESSONS):
            state["les_id"] = lid
        else:
            problems.append(f"ignored unknown lesson {str(lid)[:30]!r}")
    raw = query.get("les_step")
    if raw is not None:
        try:
            k = int(str(raw))
            if k < 1:
                raise ValueError
            state["les_step"] = k
        except ValueError:
            problems.append("ignored les_step: it must be a whole number from 1")
    if str(query.get("les_present", "")).lower() in ("1", "true", "yes"):
        state["les_present"] = True
    locks = {}
    for name in [x for x in str(query.get("les_lock") or "").split(",") if x]:
        if name not in LESSON_INPUTS:
            problems.append(f"ignored lock of {name[:20]!r}: not a lesson input")
            continue
        if query.get(name) is None:
            problems.append(f"ignored lock of {name}: the link does not give its value")
            continue
        try:
            locks[name] = _validate_entry(name, query[name])
        except ValueError as exc:
            problems.append(f"ignored lock: {exc}")
    state["les_lock"] = list(locks)
    if state["les_id"]:
        n = len(get_lesson(state["les_id"]).steps)
        if state["les_step"] > n:
            problems.append(f"the lesson has {n} steps; showing the last")
            state["les_step"] = n
    return state, locks, problems


def encode_state(state: dict, values: dict | None = None) -> dict[str, str]:
    """Query parameters of a lesson view: les_* entries plus the values of changed or locked inputs."""
    out: dict[str, str] = {}
    if state.get("les_id"):
        out["les_id"] = state["les_id"]
        out["les_step"] = str(int(state.get("les_step", 1)))
    if state.get("les_present"):
        out["les_present"] = "1"
    if state.get("les_lock"):
        out["les_lock"] = ",".join(state["les_lock"])
    for k, v in (values or {}).items():
        v = _validate_entry(k, v)
        out[k] = repr(float(v)) if isinstance(v, float) else str(v)
    return out


def page_link(step: Step, state: dict) -> str | None:
    """Relative URL of the dashboard page that shows the step's computation with its settings, or None."""
    from urllib.parse import urlencode

    page = VIEWS.get(step.view)
    if page is None:
        return None
    if page == "audit":
        from dpviz_ui import audit_page as ap

        mode = "audit" if step.view == "audit" else "stability"
        return "audit?" + urlencode(ap.encode({**_aud_state(state), "aud_mode": mode}))
    view = {k: state[k] for k in urlstate.SCHEMA if k in state and k != "page"}
    if page == "calibrate" and step.view == "threshold":
        view.update({"algorithm": "dpsgd-rdp", "T": state["n"], "show_map": True})
    if page == "simulate":
        view.update({"sim_algs": ["dpsgd-rdp"], "sim_sweep": "eps", "eps_grid": ["0.5", "1", "2", "4", "8"],
                     "kappas": ["0.1"], "G": 1.5, "sim_G_auto": False, "R": 1.0})
    return page + "?" + urlencode(urlstate.encode(view))
