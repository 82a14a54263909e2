"""The class's distribution figure at a reveal (dpviz_ui/classroom/results.py): built once per class, question and
set of answers, with each student's "you" marker added to a copy -- the same figure, to the last key, as Plotly
builds from scratch (``build_distribution_figure``), and never changed by what a page does with its copy."""

from __future__ import annotations

import math

import pytest

from dpviz_ui.classroom import results as R

NUMBER = {"kind": "number", "answer": 3.0, "rtol": 0.05, "options": [], "shown": "3"}
LINEAR = {"kind": "number", "answer": -2.0, "rtol": 0.1, "options": [], "shown": "-2"}
CHOICE = {"kind": "choice", "answer": "no", "rtol": 0.0, "options": ["yes", "no", "it depends"], "shown": "no"}
SPREAD = ["0.5", "3.0", "60.0", "3000.0", "2.9", "3.1"]


@pytest.mark.parametrize("rev, values, mine", [
    (NUMBER, SPREAD, "60.0"),          # log axis, the student's marker at log10(60)
    (NUMBER, SPREAD, None),            # the presenter: no marker
    (NUMBER, SPREAD, "-4.0"),          # a non-positive prediction on a log axis: not drawn
    (NUMBER, ["2.9", "3.0", "3.5"], "3.5"),  # linear axis
    (LINEAR, ["-2.0", "-1.0", "5.0"], "-1.0"),  # negative values: linear
    (NUMBER, ["3.0"] * 4, "3.0"),      # all the same value
    (NUMBER, [], "2.0"),               # no answers: only the answer's mark and the student's
    (CHOICE, ["yes", "no", "no"], "no"),
    (CHOICE, ["yes", "no", "no"], None),
    (CHOICE, ["yes"], "maybe"),        # not an option: no marker
])
def test_the_fast_figure_is_plotlys_own(rev, values, mine):
    fast = R.distribution_figure(rev, values, mine).to_dict()
    slow = R.build_distribution_figure(rev, values, mine).to_dict()
    assert fast == slow


def test_the_students_marker_is_where_their_prediction_is():
    fig = R.distribution_figure(NUMBER, SPREAD, "60.0")
    you = [a for a in fig.layout.annotations if a.text == "you"]
    assert len(you) == 1 and you[0].x == pytest.approx(math.log10(60.0))  # 1.778..., by hand
    assert not [a for a in R.distribution_figure(NUMBER, SPREAD, "-4.0").layout.annotations if a.text == "you"]


def test_the_class_part_is_built_once_for_every_student_and_not_changed_by_a_copy():
    R._class_figure.cache_clear()
    values = [f"{2 + i / 100:.2f}" for i in range(60)]
    figs = [R.distribution_figure(NUMBER, values, v) for v in values]
    info = R._class_figure.cache_info()
    assert info.misses == 1 and info.hits == 59
    figs[0].update_layout(title="changed by one page")
    figs[0].data[0].y = [0] * len(figs[0].data[0].y)
    again = R.distribution_figure(NUMBER, values, None).to_dict()
    assert again == R.build_distribution_figure(NUMBER, values, None).to_dict()
    R.distribution_figure(NUMBER, [*values, "2.5"], None)  # one more answer: another figure
    assert R._class_figure.cache_info().misses == 2


def test_a_revealed_answer_is_checked():
    with pytest.raises(ValueError, match="kind is 'number' or 'choice'"):
        R.distribution_figure({"kind": "essay"}, ["x"])
