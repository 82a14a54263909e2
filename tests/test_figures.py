import pytest

from dpviz import figures


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
    assert [t.stackgroup for t in fig.data] == ["terms", "terms"]
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
