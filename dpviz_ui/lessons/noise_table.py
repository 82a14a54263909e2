"""Write ``dpviz_ui/lessons/noise_table.json``: the calibrated noise at every point the lessons ask for at their
steps' default states (what their handouts and the steps' charts compute), so that a handout is written in seconds.

    python -m dpviz_ui.lessons.noise_table

Every entry is computed by :func:`dpviz_ui.lessons.model._calibrated_noise` (dpviz's calibrations, nothing else);
``tests/test_lessons_handout.py`` recomputes every entry and compares exactly.  Run this again after a change to a
calibration or an accountant (that test fails until then).
"""

from __future__ import annotations

import json

from dpviz_ui.lessons import model


def compute() -> dict:
    """{key: σ or None} of every calibration the lessons' handouts and step charts run (all of them: one that is
    quick here may be quick only because dpviz's own caches hold what an earlier one computed)."""
    from dpviz_ui.lessons.content import LESSONS
    from dpviz_ui.lessons.handout import lesson_html
    from dpviz_ui.lessons.model import HEAVY, step_state
    from dpviz_ui.lessons.views import chart

    model._TABLE[:] = [{}]  # compute everything afresh
    model._NOISE_MEMO.clear()
    model._FEASIBLE_MEMO.clear()
    found: dict = {}
    original = model._calibrated_noise

    def record(algorithm_id, p):
        out = original(algorithm_id, p)
        key = model._table_key(algorithm_id, p)
        if key is not None:
            found[key] = out
        return out

    model._calibrated_noise = record
    try:
        for lesson in LESSONS:
            lesson_html(lesson.id)
            for step in lesson.steps:  # and the page's charts of the steps (with their markers and animations)
                if step.view not in HEAVY:
                    chart(step.view, step_state(step), animate=step.animate)
    finally:
        model._calibrated_noise = original
        model._TABLE.clear()
        model._NOISE_MEMO.clear()
        model._FEASIBLE_MEMO.clear()
    return dict(sorted(found.items()))


def main() -> None:
    noise = compute()
    model.NOISE_TABLE.write_text(json.dumps({"environment": model._environment(), "noise": noise}, indent=0)
                                 + "\n", encoding="utf-8")
    print(f"wrote {len(noise)} calibrations to {model.NOISE_TABLE}")


if __name__ == "__main__":
    main()
