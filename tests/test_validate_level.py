"""The confidence-level check shared by the canary audit (Clopper-Pearson) and the trade-off curves."""

import pytest

from dpviz.foundation import validate as v
from dpviz.labs import canary_audit, tradeoff


@pytest.mark.parametrize("level", [0.5, 0.95, "0.99", 0.999999])
def test_levels_in_range_are_returned_as_floats(level):
    assert v.check_level(level) == float(level)


@pytest.mark.parametrize("level,words", [(1.0, "[0.5, 1)"), (0.49, "[0.5, 1)"), (-1, "[0.5, 1)"),
                                         (float("nan"), "level"), ("high", "must be a number")])
def test_levels_out_of_range_say_what_and_where(level, words):
    with pytest.raises(ValueError, match="level") as exc:
        v.check_level(level)
    assert words in str(exc.value)


def test_each_caller_names_its_level():
    with pytest.raises(ValueError, match=r"level \(the Clopper-Pearson confidence level\) must lie in \[0.5, 1\)"):
        canary_audit.clopper_pearson(3, 10, level=1.0)
    with pytest.raises(ValueError, match=r"level \(the confidence level\) must lie in \[0.5, 1\), got 0.4"):
        tradeoff._level(0.4)
