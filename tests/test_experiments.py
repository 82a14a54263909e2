"""Reproduction targets (dpviz.experiments, python -m dpviz reproduce): listing, files, direction of each finding."""

from __future__ import annotations

import json
import math

import pytest

from dpviz import cli, experiments as E, reproduce as R


def test_list_json_names_every_target_by_paper_key(capsys):
    assert cli.main(["reproduce", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == list(E.EXPERIMENTS)
    for r in rows:
        assert set(r) == {"id", "paper", "what", "seconds_estimate"}
        assert r["id"].startswith(r["paper"] + "-")
        assert r["seconds_estimate"] > 0
    assert set(E.EXPERIMENTS) >= set(R.NAMES) | {"wang-nonsmooth-fig1", "wang-nonsmooth-alpha", "yang-pairwise-rates"}


def test_reproduce_cli_errors_exit_2_with_one_line(capsys, tmp_path):
    assert cli.main(["reproduce"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert cli.main(["reproduce", "wang-nonsmooth-alpha"]) == 2
    assert "--out" in capsys.readouterr().err
    assert cli.main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown reproduction" in err


def test_lemma13_region_direction(tmp_path):
    res = E.run("wang-nonsmooth-fig1", out_dir=tmp_path, points=5)
    assert res["shown"], res["finding"]
    df = res["summary"]
    # Lemma 13 threshold at n = 1000 by hand: c = 1000^(1/3) - 1 = 9; (7*9 + 4*ln(1000)*1000 + 7) / (2*1000*9)
    # = (63 + 27631.02 + 7) / 18000 = 1.53894
    from dpviz.papers.wang_nonsmooth import lemma13_eps_threshold

    assert lemma13_eps_threshold(1000) == pytest.approx((63 + 4 * math.log(1000) * 1000 + 7) / 18000)
    assert df[df.lemma13_sufficient]["beta_exists"].all()  # the lemma's region is feasible everywhere
    html = (tmp_path / "wang-nonsmooth-fig1.html").read_text()
    assert "plotly.js" in html.lower() or "Plotly" in html and len(html) > 1_000_000  # plotly.js embedded
    md = (tmp_path / "wang-nonsmooth-fig1.md").read_text()
    assert "Claimed finding" in md and "Shows the finding" in md


def test_alpha_rate_study_direction(tmp_path):
    res = E.run("wang-nonsmooth-alpha", out_dir=tmp_path, points=4)
    assert res["shown"], res["finding"]
    df = res["summary"]
    t12 = df[df.theorem == "wang-nonsmooth-thm12"].groupby("alpha")["slope_T"].first()
    # Theorem 12: T ~ n^((2 - alpha)/(1 + alpha)) for alpha < 1/2: alpha = 0.25 -> 1.75 / 1.25 = 1.4; alpha >= 1/2: 1
    assert t12[0.25] == pytest.approx(1.4, abs=0.02)
    assert t12[0.0] == pytest.approx(2.0, abs=0.02) and t12[1.0] == pytest.approx(1.0, abs=0.02)


def test_yang_corollaries_rate_direction(tmp_path):
    res = E.run("yang-pairwise-rates", out_dir=tmp_path, points=5)
    assert res["shown"], res["finding"]
    assert (tmp_path / "yang-pairwise-rates.csv").read_text().startswith("experiment,")


@pytest.mark.parametrize("name", ["wang-lownoise-fig1", "wang-lownoise-fig2"])
def test_lownoise_figures_direction(tmp_path, name):
    res = R.reproduce(name, reps=15, seed=0, out_dir=tmp_path)
    assert res["shown"], res["finding"]
    assert res["md"].read_text().count("Shows the finding") == 1


def test_definitions_are_plain_data():
    for e in E.EXPERIMENTS.values():
        assert e.kind in ("simulation", "bounds", "region", "study")
        assert e.x in e.grid
        assert e.claim and e.place
