import pytest

from dpviz.foundation import urlstate


def test_round_trip():
    state = dict(urlstate.DEFAULTS, n=5000, eps=0.5, theorems=["wang-nonsmooth-thm9", "x-thm1"], sweep="eps")
    enc = urlstate.encode(state)
    assert enc == {"n": "5000", "eps": "0.5", "theorems": "wang-nonsmooth-thm9,x-thm1", "sweep": "eps"}
    dec, problems = urlstate.decode(enc)
    assert dec == state and problems == []


def test_bad_values_ignored_with_message():
    dec, problems = urlstate.decode({"n": "1.5", "eps": "inf", "algorithm": "<script>", "zzz": "1"})
    assert dec["n"] == 1000 and dec["eps"] == 1.0 and dec["algorithm"] == ""
    assert len(problems) == 4


@pytest.mark.parametrize("name,value", [("n", 1), ("alpha", 1.5), ("eps", "nan"), ("page", "a b"), ("nope", 1)])
def test_validate_rejects(name, value):
    with pytest.raises(ValueError):
        urlstate.validate(name, value)
