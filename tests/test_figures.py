import pytest

from dpviz.foundation import figures


def test_loglog_slope_by_hand():
    # y = 3 x^-0.5 at x = 1, 100: slope = (log(0.3) - log(3)) / (log(100) - log(1)) = -0.5
    assert figures.loglog_slope([1, 100], [3, 0.3]) == pytest.approx(-0.5)
    # y = x^2 at x = 1, 10, 100 -> slope 2
    assert figures.loglog_slope([1, 10, 100], [1, 100, 10000]) == pytest.approx(2.0)
    assert figures.loglog_slope([1], [1]) is None


def test_line_figure_drops_missing_and_labels_slope():
    fig = figures.line_figure([1, 10, 100], {"a": [1.0, None, 0.01]}, title="t", x_title="x", y_title="y",
                              slope_labels=True)
    tr = fig.data[0]
    assert list(tr.y) == [1.0, None, 0.01]
    assert "slope -1.00" in tr.name
    assert fig.layout.xaxis.type == "log"


def test_stacked_and_errors():
    fig = figures.stacked_terms_figure([1, 10], {"stat": [1.0, 0.1], "priv": [2.0, 2.0]}, title="t", x_title="n")
    assert all(t.stackgroup is None for t in fig.data)  # no stacked areas on a log axis
    assert fig.data[-1].name.startswith("sum of the terms")
    assert list(fig.data[-1].y) == [3.0, 2.1]
    assert "slope -1.00" in fig.data[0].name and "slope +0.00" in fig.data[1].name
    with pytest.raises(ValueError):
        figures.line_figure([1], {}, title="t", x_title="x", y_title="y")
    with pytest.raises(ValueError):
        figures.stacked_terms_figure([1], {}, title="t", x_title="x")


def test_feasibility_map_and_sigma_beta():
    fig = figures.feasibility_map_figure([100, 1000], [0.1, 1.0], [[False, False], [False, True]],
                                         boundary=([100, 1000], [2.0, 0.5]))
    assert [list(r) for r in fig.data[0].z] == [[0, 0], [0, 1]]
    assert list(fig.data[1].y) == [2.0, 0.5]
    with pytest.raises(ValueError):
        figures.feasibility_map_figure([1], [1, 2], [[True]])
    fig = figures.sigma_beta_figure([0.1, 0.5], [3.0, None], (0.2, 0.4))
    assert list(fig.data[0].y) == [3.0, None]
    assert fig.layout.shapes[0].x0 == 0.2 and fig.layout.shapes[0].x1 == 0.4
    with pytest.raises(ValueError):
        figures.sigma_beta_figure([], [], None)


def test_log_tick_labels_are_plain_decimals_or_powers_of_ten():
    # epsilon = 0.5 must read "0.5" (not "5"), and no SI prefixes (1μ, 100n) that clash with μ and n
    assert figures.tick_label(0.5) == "0.5"
    assert figures.tick_label(2.0) == "2"
    assert figures.tick_label(10000.0) == "10000"
    assert figures.tick_label(1e-6) == "10⁻⁶"
    assert figures.tick_label(2e-7) == "2·10⁻⁷"
    assert figures.tick_label(1e6) == "10⁶"
    assert figures.log_ticks(0.01, 10) == [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]
    fig = figures.line_figure([0.01, 0.5, 10], {"a": [1e-7, 1e-6, 1e-5]}, title="t", x_title="ε", y_title="σ")
    assert "0.5" in fig.layout.xaxis.ticktext
    assert all("μ" not in t and "n" not in t for t in fig.layout.yaxis.ticktext)
    with pytest.raises(ValueError):
        figures.tick_label(0.0)


def test_coinciding_lines_stay_visible_and_current_point_marked():
    fig = figures.line_figure([1, 10], {"Thm 2": [1.0, 0.1], "Thm 3": [1.0, 0.1]}, title="t", x_title="n",
                              y_title="b", current_x=5.0, current_label="current n = 5")
    assert "coincides with Thm 2" in fig.data[1].name
    assert fig.data[0].line.dash != fig.data[1].line.dash
    assert fig.data[-1].name == "current n = 5"
    fm = figures.feasibility_map_figure([100, 1000], [0.1, 1.0], [[False, False], [False, True]],
                                        boundary=([100, 1000], [2.0, 0.5]), boundary_name="Lemma 13",
                                        current=(500, 0.5))
    assert [t.name for t in fm.data[1:]] == ["Lemma 13", "current (n, ε)"]
    sb = figures.sigma_beta_figure([0.1, 0.5], [3.0, 2.0], (0.2, 0.4), chosen=(0.5, 2.0))
    assert sb.data[-1].name == "chosen β"


def test_readable_log_axes_labels_subplot_axes_too():
    """A second subplot's log axis gets plain ticks (no bare "2" / "5" between decades, no SI prefixes)."""
    from plotly.subplots import make_subplots

    from dpviz.foundation.figures import readable_log_axes

    fig = make_subplots(rows=1, cols=2)
    fig.add_scatter(x=[0.05, 3.0], y=[0.4, 0.9], row=1, col=1)
    fig.add_scatter(x=[0.05, 3.0], y=[0.2, 20000.0], row=1, col=2)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", row=1, col=2)
    readable_log_axes(fig)
    assert list(fig.layout.xaxis2.ticktext) == ["0.05", "0.1", "0.2", "0.5", "1", "2"]
    # five decades on y2: powers of ten only, 10 000 as a plain number
    assert list(fig.layout.yaxis2.ticktext) == ["1", "10", "100", "1000", "10000"]
    assert fig.layout.yaxis.tickvals is None  # linear axis untouched


def test_line_figure_marks_points_not_computed_not_as_gaps():
    """Points a time budget skipped are shaded and named "not computed (time budget)" in the figure itself (title
    left as given), so a downloaded copy cannot be read as "not private there"."""
    fig = figures.line_figure([0.01, 0.1, 1, 10], {"a": [None, None, 2.0, 1.0], "b": [3.0, 2.0, 1.0, 0.5]},
                              title="Noise", x_title="ε", y_title="σ", not_computed={"a": [0.01, 0.1]})
    assert fig.layout.title.text == "Noise"
    names = [t.name for t in fig.data]
    assert "not computed (time budget)" in names
    assert len(fig.layout.shapes) == 1  # one grey band over the run 0.01 .. 0.1
    band = fig.layout.shapes[0]
    assert band.x0 == 0.01 and band.x1 == pytest.approx((0.1 * 1) ** 0.5)  # half way (in log) to the next point
    assert "(2 points of 1 curve)" in fig.layout.annotations[0].text
    plain = figures.line_figure([1, 10], {"a": [1.0, None]}, title="t", x_title="x", y_title="y")
    assert not plain.layout.shapes and "not computed (time budget)" not in [t.name for t in plain.data]
