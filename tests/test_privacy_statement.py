"""The privacy statement of an algorithm (Calibrate, Accounting, ``python -m dpviz account … --statement``):
its ε against the accountant called directly (dp_accounting's RDP accountant for sampling without replacement,
replace-one; the exact analytic Gaussian mechanism written out here), its command recomputes it, and the pages'
statements equal what the command prints."""

import math
import re
import shlex
from pathlib import Path

import pytest
from scipy import optimize, stats
from streamlit.testing.v1 import AppTest

from dpviz.labs import privacy_lab as pl
from dpviz.cli.commands import main

APP = Path(__file__).resolve().parent.parent / "app.py"


def _rdp_wor_eps(n, T, z, delta):
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    acc = rdp.RdpAccountant(rdp.DEFAULT_RDP_ORDERS, dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.SampledWithoutReplacementDpEvent(n, 1, dp_accounting.GaussianDpEvent(z)), T))
    return acc.get_epsilon(delta)


def _analytic_eps(mu, delta):
    """Smallest ε with Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) <= δ (Balle & Wang 2018, Theorem 8; μ = Δ/σ)."""
    f = lambda e: stats.norm.cdf(mu / 2 - e / mu) - math.exp(e) * stats.norm.cdf(-mu / 2 - e / mu) - delta
    return optimize.brentq(f, 0.0, 200.0, xtol=1e-13)


def _numbers(text):
    m = re.search(r"with ε = ([0-9.e+-]+) and δ = ([0-9.e+-]*[0-9])", text)
    return float(m.group(1)), float(m.group(2))


def test_dpsgd_statement_matches_dp_accounting_directly():
    # DP-SGD of Wang, Lei, Ying & Zhou at n = T = 1000, G = 1, σ = 2: z = σ/(2G) = 1, one example of n per step
    g = pl.guarantee("dpsgd-rdp", sigma=2.0, n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    ref = _rdp_wor_eps(1000, 1000, 1.0, 1e-6)
    assert g["eps"] == pytest.approx(ref, rel=1e-6)
    assert g["eps_lower"] is None and not g["exact"] and g["accountant"] == "rdp" and g["delta"] == 1e-6
    text = pl.algorithm_statement(g, "python -m dpviz account …")
    assert _numbers(text) == (float(f"{ref:.4g}"), 1e-6)
    assert "replace-one" in text and "without replacement" in text and "Not covered" in text
    assert "upper bound (safe to claim)" in text and "no lower bound" in text
    # the f-DP line quotes the RDP → f-DP curve at α = 0.05
    from dpviz.labs import auditing as A

    b = A.tradeoff_rdp_gaussian_wor([0.05], noise_multiplier=1.0, sampling_prob=1e-3, steps=1000)[0]
    assert f"at type I error 0.05 the type II error is at least {b:.4g}" in text


def test_single_release_statement_is_exact_analytic_gaussian():
    # DPGDSC of Xue, Yang, Huai & Wang, one release of sensitivity 8G/(μn) = 8/(0.5·1000) = 0.016
    g = pl.guarantee("dpgd-sc", sigma=0.05, n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.5)
    ref = _analytic_eps(0.016 / 0.05, 1e-6)
    assert g["exact"] and g["eps"] == pytest.approx(ref, rel=1e-8) and g["eps_lower"] == g["eps"]
    assert not g["meets_target"]  # σ = 0.05 is below the σ the target needs
    text = pl.algorithm_statement(g, "cmd")
    assert "does NOT meet the target" in text and "exact" in text
    with pytest.raises(ValueError, match="Laplace"):
        pl.guarantee("dpgd-sc", n=1000, eps=1.0, delta=0.0, G=1.0, mu=0.5)


def test_cli_statement_recomputes_itself(capsys):
    argv = ["account", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1.0", "--delta", "1e-06", "--T", "1000",
            "--G", "1.0", "--sigma", "2.0", "--statement"]
    assert main(argv) in (0, None)
    text = capsys.readouterr().out
    assert _numbers(text)[0] == float(f"{_rdp_wor_eps(1000, 1000, 1.0, 1e-6):.4g}")
    command = text.strip().splitlines()[-1].removeprefix("Recompute: ")
    assert command.startswith("python -m dpviz account --algorithm dpsgd-rdp") and "--sigma 2.0" in command
    assert main(shlex.split(command)[3:]) in (0, None)
    assert capsys.readouterr().out == text
    # without --sigma: the paper's σ (here the calibration's), as the Accounting page without "your σ"
    assert main(argv[:-3] + ["--statement"]) in (0, None)
    paper = capsys.readouterr().out
    g = pl.guarantee("dpsgd-rdp", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    assert paper.startswith("Privacy statement:") and "--sigma" not in paper.strip().splitlines()[-1]
    assert _numbers(paper)[0] == float(f"{g['eps']:.4g}") and g["sigma"] == pytest.approx(
        pl.mechanism("dpsgd-rdp", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0).paper_sigma)


def _statement_caption(at):
    caps = [c.value for c in at.caption if c.value.startswith("Privacy statement:")]
    assert len(caps) == 1, [c.value for c in at.caption][:20]
    return caps[0]


def _run_command(caption, capsys):
    cmd = re.search(r"`(python -m dpviz account [^`]+)`", caption).group(1)
    capsys.readouterr()
    assert main(shlex.split(cmd)[3:]) in (0, None)
    return cmd, capsys.readouterr().out


def _check(caption, text):
    eps = re.search(r"ε = ([0-9.e+-]+) and δ = ([0-9.e+-]*[0-9])", caption)
    assert _numbers(text) == (float(eps.group(1)), float(eps.group(2)))
    sig = re.search(r"σ = ([0-9.e+-]+) is", caption).group(1)
    assert f"standard deviation σ = {sig}," in text


def test_accounting_page_statement_equals_the_command(capsys):
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["algorithm"] = "dpgd-sc"
    at.query_params["mu"] = "0.5"
    at.run()
    at.switch_page("pages/accounting.py").run()
    assert not at.exception
    for alg, eps in (("dpgd-sc", "0.5"), ("dpsgd-rdp", "2"), ("dpgd-c", "1.5")):
        at.selectbox(key="w_algorithm").set_value(alg).run()
        at.text_input(key="w_eps").set_value(eps).run()
        assert not at.exception and not at.error
        cap = _statement_caption(at)
        cmd, text = _run_command(cap, capsys)
        assert f"--algorithm {alg}" in cmd and f"--eps {float(eps)!r}" in cmd
        _check(cap, text)


def test_calibrate_page_statement_equals_the_command(capsys):
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("pages/calibrate.py").run()
    assert not at.exception
    for alg, eps in (("dpgd-sc", "1"), ("dpsgd-rdp", "4"), ("dpsgd-output", "2")):
        at.selectbox(key="w_algorithm").set_value(alg).run()
        at.text_input(key="w_eps").set_value(eps).run()
        assert not at.exception
        cap = _statement_caption(at)
        cmd, text = _run_command(cap, capsys)
        assert f"--algorithm {alg}" in cmd and f"--eps {float(eps)!r}" in cmd
        _check(cap, text)
