"""The privacy statement of an algorithm (Calibrate, Accounting, ``python -m dpviz account … --statement``):
its ε against the accountant called directly (dp_accounting's RDP accountant for sampling without replacement,
replace-one; the exact analytic Gaussian mechanism written out here), its command recomputes it, and the pages'
statements equal what the command prints."""

import functools
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


@functools.lru_cache(maxsize=None)  # several tests ask for the same (n, T, z, δ)
def _rdp_wor_eps(n, T, z, delta):
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    from conftest import wor_forward_diffs_once
    from dpviz.theory import accounting

    # the orders of the matched accountant (WOR_ORDERS); dp_accounting computes each order's RDP itself (its forward
    # differences once per σ: the same numbers, tests/conftest.py)
    acc = rdp.RdpAccountant(accounting.WOR_ORDERS, dp_accounting.NeighboringRelation.REPLACE_ONE)
    with wor_forward_diffs_once():
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


def _unit(x):
    """One unit in the 4th significant digit of x > 0."""
    return 10.0 ** (math.floor(math.log10(x)) - 3)


def _rounded_up(printed, ref):
    """printed is ref to 4 significant digits rounded up: still an upper bound (to 1e-12 relative, the float noise
    the statement's rounding ignores), at most one unit above."""
    return printed >= ref * (1 - 1e-12) and printed - ref <= _unit(ref) * (1 + 1e-9)


def _rounded_down(printed, ref):
    return printed <= ref * (1 + 1e-12) and ref - printed <= _unit(ref) * (1 + 1e-9)


def test_dpsgd_statement_matches_dp_accounting_directly():
    # DP-SGD of Wang, Lei, Ying & Zhou at n = T = 1000, G = 1, σ = 2: z = σ/(2G) = 1, one example of n per step
    g = pl.guarantee("dpsgd-rdp", sigma=2.0, n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    ref = _rdp_wor_eps(1000, 1000, 1.0, 1e-6)
    assert g["eps"] == pytest.approx(ref, rel=1e-6)
    assert g["eps_lower"] is None and not g["exact"] and g["accountant"] == "rdp" and g["delta"] == 1e-6
    text = pl.algorithm_statement(g, "python -m dpviz account …")
    eps_p, delta_p = _numbers(text)
    assert _rounded_up(eps_p, ref) and delta_p == 1e-6  # an upper bound printed rounded up stays an upper bound
    assert "replace-one" in text and "without replacement" in text and "Not covered" in text
    assert "upper bound (safe to claim)" in text and "no lower bound" in text
    # the f-DP line quotes the RDP → f-DP curve at α = 0.05
    from dpviz.labs import tradeoff as trade

    b = trade.tradeoff_rdp_gaussian_wor([0.05], noise_multiplier=1.0, sampling_prob=1e-3, steps=1000)[0]
    shown = float(re.search(r"at type I error 0.05 the type II error is at least ([0-9.e+-]+[0-9])", text).group(1))
    assert _rounded_down(shown, b)  # a lower bound printed rounded down
    assert g["meaningful"] and "NO meaningful" not in text


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
    assert _rounded_up(_numbers(text)[0], _rdp_wor_eps(1000, 1000, 1.0, 1e-6))
    command = text.strip().splitlines()[-1].removeprefix("Recompute: ")
    assert command.startswith("python -m dpviz account --algorithm dpsgd-rdp") and "--sigma 2.0" in command
    assert main(shlex.split(command)[3:]) in (0, None)
    assert capsys.readouterr().out == text
    # without --sigma: the paper's σ (here the calibration's), as the Accounting page without "your σ"
    assert main(argv[:-3] + ["--statement"]) in (0, None)
    paper = capsys.readouterr().out
    g = pl.guarantee("dpsgd-rdp", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    assert paper.startswith("Privacy statement:") and "--sigma" not in paper.strip().splitlines()[-1]
    assert _rounded_up(_numbers(paper)[0], g["eps"]) and g["sigma"] == pytest.approx(
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
    # the extreme case: DP-SGD at n = T = 1000, ε = 1, δ = 1/n² and your σ = 0.001 -- no meaningful privacy, on the
    # page and in the command's text alike; then back to a meaningful σ
    at.selectbox(key="w_algorithm").set_value("dpsgd-rdp").run()
    at.text_input(key="w_eps").set_value("1").run()
    for sigma, meaningful in (("0.001", False), ("2", True)):
        at.text_input(key="w_acc_sigma").set_value(sigma).run()
        assert not at.exception and not at.error
        cap = _statement_caption(at)
        cmd, text = _run_command(cap, capsys)
        assert f"--sigma {float(sigma)!r}" in cmd and "--n 1000" in cmd and "--T 1000" in cmd
        _check(cap, text)
        assert ("NO meaningful privacy" in cap) == ("NO meaningful privacy" in text) == (not meaningful)
        # the summary line under the accountants' table says it too, beside "your σ buys ε = …"
        summary = next(t.value for t in at.text if t.value.startswith("Summary:"))
        assert f"your σ = {float(sigma):g} buys ε = " in summary
        assert ("NO meaningful privacy at your σ" in summary) == (not meaningful), summary
        z = float(sigma) / 2  # σ/(2G), G = 1
        assert _rounded_up(_numbers(text)[0], _rdp_wor_eps(1000, 1000, z, 1e-6))


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


# --- the edges: no meaningful privacy, ε tiny or certified 0, ε at the target, δ tiny, T = 1 and n = 2, overflow ---

DPSGD = dict(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
DPGDSC = dict(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.5)  # one release, sensitivity 8G/(μn) = 0.016


def _exact_eps(mu, delta, hi=1e3):
    """The analytic Gaussian ε of μ = Δ/σ, with a wider bracket than _analytic_eps (μ = 16 needs ε ≈ 203); e^ε Φ(·)
    in logs so that it does not overflow."""
    f = lambda e: (stats.norm.cdf(mu / 2 - e / mu) - math.exp(e + stats.norm.logcdf(-mu / 2 - e / mu))
                   - delta)
    return optimize.brentq(f, 0.0, hi, xtol=1e-12, rtol=1e-14)


def test_threshold_of_no_meaningful_privacy_from_the_tradeoff_formula():
    # (ε, δ)-DP allows type II error f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) at type I error α. At α = 0.01
    # the middle term vanishes from ε = ln((1 − δ)/0.01) ≈ 4.6 on, but e^{−ε}(1 − δ − α) does not: it falls below
    # 10⁻⁶ only past ε* = ln((1 − δ − 0.01)·10⁶) ≈ 13.8.
    f = lambda e, d, a=0.01: max(0.0, 1 - d - math.exp(e) * a, math.exp(-e) * (1 - d - a))
    for d in (1e-30, 1e-6, 1e-3):
        star = math.log((1 - d - 0.01) * 1e6)
        assert pl.meaningless_eps(d) == pytest.approx(star, rel=1e-12)
        assert f(star - 1e-3, d) > 1e-6 > f(star + 1e-3, d) and f(5.0, d) > 0  # e^ε·α ≥ 1 alone is not the edge
        assert pl.meaningful(star - 1e-3, d) and not pl.meaningful(star + 1e-3, d)
    assert pl.meaningless_eps(1e-6) == pytest.approx(13.805, abs=1e-3)
    # the mechanism's own curve can rescue a large ε: a Gaussian release at μ = 2.5 has ε > 13.8 at δ = 1e-6 but
    # type II error Φ(Φ⁻¹(0.99) − 2.5) ≈ 0.43 at type I error 0.01 -- a meaningful guarantee, and said so
    mu = 2.5
    eps = _exact_eps(mu, 1e-6)
    beta = stats.norm.cdf(stats.norm.isf(0.01) - mu)
    assert eps > pl.meaningless_eps(1e-6) and beta > 0.4
    g = pl.guarantee("dpgd-sc", sigma=0.016 / mu, **DPGDSC)
    assert g["eps"] == pytest.approx(eps, rel=1e-8) and g["tradeoff"][0][1] == pytest.approx(beta, rel=1e-6)
    assert g["meaningful"]
    text = pl.algorithm_statement(g, "cmd")
    assert "NO meaningful" not in text and text.count("Guarantee: with Gaussian noise") == 1


def test_tiny_sigma_says_no_meaningful_privacy():
    # DP-SGD at σ = 0.001, n = T = 1000, G = 1: z = σ/(2G) = 5e-4 -- the ε dp_accounting certifies is about 4e9
    ref = _rdp_wor_eps(1000, 1000, 0.0005, 1e-6)
    assert ref > 1e9
    g = pl.guarantee("dpsgd-rdp", sigma=0.001, **DPSGD)
    assert g["eps"] == pytest.approx(ref, rel=1e-6) and not g["meaningful"] and not g["meets_target"]
    text = pl.algorithm_statement(g, "cmd")
    assert "Guarantee: NO meaningful privacy." in text and "Guarantee: with Gaussian noise" not in text
    assert "certifies only" in text and "essentially nothing" in text and "type II error bound is essentially 0" in text
    eps_p, _ = _numbers(text)
    assert _rounded_up(eps_p, ref)
    # e^ε in words: 10^(ε/ln 10), the exponent rounded up
    k = float(re.search(r"e\^ε ≈ 10\^\(([0-9.e+-]+)\)", text).group(1))
    assert _rounded_up(k, ref / math.log(10))
    assert "inf" not in text.replace("influence", "") and "nan" not in text
    # an exact mechanism: DPGDSC at σ = 0.001, μ = 0.016/0.001 = 16 -- ε ≈ 203 and type II error ~1e-42
    ref = _exact_eps(16.0, 1e-6)
    g = pl.guarantee("dpgd-sc", sigma=0.001, **DPGDSC)
    assert g["eps"] == pytest.approx(ref, rel=1e-8) and not g["meaningful"]
    text = pl.algorithm_statement(g, "cmd")
    assert "NO meaningful privacy" in text and _rounded_up(_numbers(text)[0], ref)
    beta = stats.norm.cdf(stats.norm.isf(0.01) - 16.0)
    shown = float(re.search(r"at type I error 0.01 the type II error is at least ([0-9.e+-]+[0-9])", text).group(1))
    assert beta < 1e-40 and _rounded_down(shown, beta)
    odds = float(re.search(r"e\^ε ≈ ([0-9.e+-]+[0-9])", text).group(1))
    assert odds >= math.exp(ref) and odds <= math.exp(ref) * 1.01


def test_huge_sigma_tiny_and_certified_zero_eps():
    # one release at σ = 1000: μ = 1.6e-5, ε ≈ 1.8e-5 -- printed as such (rounded up), never as 0
    ref = _exact_eps(0.016 / 1000, 1e-6, hi=1.0)
    g = pl.guarantee("dpgd-sc", sigma=1000.0, **DPGDSC)
    assert 0 < ref < 1e-4 and g["eps"] == pytest.approx(ref, rel=1e-6) and g["meaningful"]
    text = pl.algorithm_statement(g, "cmd")
    assert _rounded_up(_numbers(text)[0], ref) and "ε = 0 " not in text and "certified, not rounded" not in text
    # DP-SGD at σ = 1e6 (z = 5e5): dp_accounting itself certifies ε = 0 (T·RDP so small that TV <= δ)
    assert _rdp_wor_eps(1000, 1000, 5e5, 1e-6) == 0.0
    g = pl.guarantee("dpsgd-rdp", sigma=1e6, **DPSGD)
    text = pl.algorithm_statement(g, "cmd")
    assert g["eps"] == 0.0 and _numbers(text) == (0.0, 1e-6) and "ε = 0 is certified, not rounded" in text


def test_eps_at_the_target_delta_tiny_and_one_step_of_two():
    # the calibrated σ of DPGDSC at ε = 1: the analytic Gaussian ε of that σ is the target itself
    from dpviz.theory import catalog

    s = catalog.calibrate("dpgd-sc", **DPGDSC).sigma
    ref = _exact_eps(0.016 / s, 1e-6)
    assert ref == pytest.approx(1.0, abs=1e-9)
    g = pl.guarantee("dpgd-sc", sigma=s, **DPGDSC)
    text = pl.algorithm_statement(g, "cmd")
    assert g["meets_target"] and "This σ meets the target (ε, δ) = (1, 1e-06)." in text
    assert _numbers(text) == (1.0, 1e-6)  # exactly 1 (dp's ε <= 1 + 1e-9), not 1.001
    # δ = 1e-30: shown as such, ε by dp_accounting directly
    ref = _rdp_wor_eps(1000, 1000, 1.0, 1e-30)
    g = pl.guarantee("dpsgd-rdp", sigma=2.0, **{**DPSGD, "delta": 1e-30})
    text = pl.algorithm_statement(g, "cmd")
    eps_p, delta_p = _numbers(text)
    assert _rounded_up(eps_p, ref) and delta_p == 1e-30 and g["meaningful"]
    # T = 1 step on n = 2 examples (the paper gives no σ: the statement is of σ = 2), z = 1, rate 1/2
    ref = _rdp_wor_eps(2, 1, 1.0, 1e-6)
    g = pl.guarantee("dpsgd-rdp", sigma=2.0, n=2, eps=1.0, delta=1e-6, T=1, G=1.0)
    text = pl.algorithm_statement(g, "cmd")
    assert g["eps"] == pytest.approx(ref, rel=1e-6) and _rounded_up(_numbers(text)[0], ref)
    assert "n = 2 examples" in text and "each of the 1 steps" in text


def test_overflow_says_what_happened():
    # σ = 1e-6 on one release: μ = 1.6e4, the analytic Gaussian accountant cannot reach its ε (> 1e7)
    with pytest.raises(ValueError, match="no finite ε it can certify") as info:
        pl.guarantee("dpgd-sc", sigma=1e-6, **DPGDSC)
    msg = str(info.value)
    assert "No privacy can be certified" in msg and "inf" not in msg and "nan" not in msg
    for x in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="non-finite"):
            pl.fmt_bound(x, up=True)
    # σ = 1e-12 on DP-SGD: dp_accounting still returns a finite ε (about 4e27): stated, meaningless
    ref = _rdp_wor_eps(1000, 1000, 5e-13, 1e-6)
    g = pl.guarantee("dpsgd-rdp", sigma=1e-12, **DPSGD)
    text = pl.algorithm_statement(g, "cmd")
    assert math.isfinite(ref) and _rounded_up(_numbers(text)[0], ref) and "NO meaningful privacy" in text


def test_fmt_bound_rounds_outward():
    assert pl.fmt_bound(0.89524, up=True) == "0.8953" and pl.fmt_bound(0.89524, up=False) == "0.8952"
    assert pl.fmt_bound(1.0, up=True) == "1" and pl.fmt_bound(0.1, up=True) == "0.1"
    assert pl.fmt_bound(1.8349e-05, up=True) == "1.835e-05" and pl.fmt_bound(0.0, up=True) == "0"
    assert pl.fmt_bound(9.99951, up=True) == "10" and pl.fmt_bound(1e-30, up=True, digits=3) == "1e-30"
    # a float sum's last-bit noise does not push a claim up a whole unit; a real excess does
    assert pl.fmt_bound(0.1 + 0.2, up=True) == "0.3" and pl.fmt_bound(1.0 + 2e-16, up=True) == "1"
    assert pl.fmt_bound(1.0 + 1e-9, up=True) == "1.001" and pl.fmt_bound(7.5e-07 + 2.5e-07, up=True, digits=3) == "1e-06"


def test_cli_statement_at_tiny_sigma_recomputes_itself(capsys):
    argv = ["account", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1.0", "--delta", "1e-06", "--T", "1000",
            "--G", "1.0", "--sigma", "0.001", "--statement"]
    assert main(argv) in (0, None)
    text = capsys.readouterr().out
    assert "Guarantee: NO meaningful privacy." in text
    assert _rounded_up(_numbers(text)[0], _rdp_wor_eps(1000, 1000, 0.0005, 1e-6))
    command = text.strip().splitlines()[-1].removeprefix("Recompute: ")
    assert main(shlex.split(command)[3:]) in (0, None)
    assert capsys.readouterr().out == text
    # the overflow: one clear error, no traceback, no statement
    assert main(["account", "--algorithm", "dpgd-sc", "--n", "1000", "--eps", "1", "--delta", "1e-6", "--G", "1",
                 "--mu", "0.5", "--sigma", "1e-6", "--statement"]) not in (0, None)
    err = capsys.readouterr()
    assert "no finite ε it can certify" in err.err + err.out and "Traceback" not in err.err
