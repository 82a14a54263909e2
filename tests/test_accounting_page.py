"""AppTest checks of the Accounting page: default run, several widget changes (table, URL), URL values validated."""

import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz import privacy_lab as pl

APP = Path(__file__).resolve().parent.parent / "app.py"


def _page(query=None):
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, val in (query or {}).items():
        at.query_params[k] = val
    at.run()
    at.switch_page("pages/accounting.py").run()
    assert not at.exception
    return at


def _table(at):
    return at.dataframe[0].value


def _row(at, prefix):
    df = _table(at)
    hit = df[df["accountant"].str.startswith(prefix)]
    assert len(hit) == 1, list(df["accountant"])
    return hit.iloc[0]


def test_accounting_page_changes_inputs_several_times():
    at = _page(query={"acc_algorithm": "dpgd-sc", "acc_mu": "0.5"})
    assert not at.error
    assert at.selectbox(key="acc_algorithm").value == "dpgd-sc"
    # default n = 1000, eps = 1, delta = 1e-6, G = 1, mu = 0.5: paper sigma = 8 sqrt(2 ln(1.25e6))/(0.5*1000*1)
    #   = 8 * 5.298803 / 500 = 0.0847808
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.08478, rel=1e-3)
    # 1. eps = 0.5: the paper's sigma doubles
    at.number_input(key="acc_eps").set_value(0.5).run()
    assert not at.exception and not at.error
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.1696, rel=1e-3)
    assert at.query_params["acc_eps"] == ["0.5"] or at.query_params["acc_eps"] == "0.5"
    # 2. n = 4000: four times less noise; the exact accountant's sigma is recomputed
    at.number_input(key="acc_n").set_value(4000).run()
    assert not at.exception
    mech = pl.mechanism("dpgd-sc", n=4000, eps=0.5, delta=1e-6, G=1.0, mu=0.5)
    exact = pl.sigma_for(mech, pl.accountants(mech)[0], 0.5)
    assert float(_row(at, "matched, exact")["σ for ε"]) == pytest.approx(exact, rel=1e-3)
    assert float(_row(at, "paper's closed form")["σ for ε"]) == pytest.approx(0.1696 / 4, rel=1e-3)
    # 3. your sigma: a column with the eps it buys appears
    at.number_input(key="acc_sigma").set_value(0.05).run()
    assert not at.exception
    assert float(_row(at, "matched, exact")["ε of your σ"]) == pytest.approx(
        pl.epsilon(mech, pl.accountants(mech)[0], 0.05), rel=1e-3)
    # 4. another algorithm: DPGDC2, full batch
    at.selectbox(key="acc_algorithm").set_value("dpgd-c").run()
    assert not at.exception and not at.error
    assert _row(at, "matched, exact")["sampling / relation"] == "full-batch, replace-one"
    qp = at.query_params
    assert (qp["acc_algorithm"] if isinstance(qp["acc_algorithm"], str) else qp["acc_algorithm"][0]) == "dpgd-c"
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(figs) == 2
    for f in figs:  # log axes with powers of ten, never SI prefixes
        assert f["layout"]["xaxis"]["exponentformat"] == "power" and f["layout"]["yaxis"]["type"] == "log"


def test_accounting_page_url_values_validated_and_clamped():
    at = _page(query={"acc_algorithm": "dpgd-sc", "acc_mu": "0.5", "acc_n": "100000000000", "acc_eps": "abc",
                      "acc_calc_sampling": "rm -rf", "acc_bogus": "1"})
    assert at.number_input(key="acc_n").value == 10**7  # clamped to the upper bound
    assert at.number_input(key="acc_eps").value == 1.0  # bad value ignored: default
    assert at.selectbox(key="acc_calc_sampling").value == "poisson"
    warnings = [w.value for w in at.warning]
    assert sum("not valid" in w for w in warnings) == 1  # one notice for all of them
    text = " ".join(warnings).replace("\\", "")  # markdown-escaped: acc\\_eps is shown as acc_eps
    assert "acc_eps" in text and "acc_bogus" in text and "acc_calc_sampling" in text and "acc_n" not in text
    # Xue et al. Algorithm 1 at the clamped n = 10^7: sigma = 8 sqrt(2 ln(1.25e6))/(0.5 * 1e7) = 8.478e-6
    assert _row(at, "paper's closed form")["σ for ε"] == "8.478·10⁻⁶"


def test_accounting_page_calculator():
    at = _page(query={"acc_algorithm": "dpgd-sc", "acc_mu": "0.5"})
    calc = at.dataframe[1].value
    assert list(calc["accountant"]) == ["RDP", "PLD"]
    at.selectbox(key="acc_calc_sampling").set_value("without-replacement").run()
    at.selectbox(key="acc_calc_neighbouring").set_value("replace-one").run()
    assert not at.exception
    calc = at.dataframe[1].value
    assert calc["ε"].iloc[1] == "—" and "no PLD" in calc["note"].iloc[1]
    assert math.isfinite(float(calc["ε"].iloc[0]))
