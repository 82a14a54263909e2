"""Input checks shared by the accountants of :mod:`dpviz.theory.accounting`: δ (at most :data:`DELTA_MAX`), the
number of steps, the sampling probability, the accountant, the sampling scheme and the neighbouring relation, and the
search range of the noise multiplier."""

from __future__ import annotations

from dpviz.foundation import validate as v


#: Supported accountants.
ACCOUNTANTS = ("rdp", "pld")


_Z_MIN = 1e-3  # below this the subsampled Gaussian gives essentially no privacy


_Z_MAX = 1e7


_MAX_BRACKET = 64  # cap on the bracket widenings of _root (log_4(_Z_MAX / _Z_MIN) = 17 suffice)


#: Largest δ the accountants accept (the dashboard's pages cap δ at 10⁻¹ too): above it an (ε, δ) guarantee is vacuous
#: — publishing a random tenth of the data set is (0, 0.1)-DP — and the searches only waste time (δ = 0.9999 took
#: 14.7 s of CPU to report ε = 0).
DELTA_MAX = 0.1


def check_accounting_delta(delta) -> float:
    """δ for an accountant: in (0, :data:`DELTA_MAX`], else ``ValueError`` saying why."""
    delta = v.check_delta(delta)
    if delta > DELTA_MAX:
        raise ValueError(
            f"delta = {delta:g} is above {DELTA_MAX:g}: an (eps, delta) guarantee with delta that large is vacuous (a "
            f"mechanism that publishes a random {DELTA_MAX:.0%} of the examples is (0, {DELTA_MAX:g})-DP), so the "
            f"accountants refuse it, as the dashboard's pages do; use delta <= {DELTA_MAX:g}, typically 1/n^2 or "
            "smaller.")
    return delta


def _check_common(delta, steps, sampling_prob, accountant):
    delta = check_accounting_delta(delta)
    steps = v.check_int("steps (number of compositions)", steps)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(
            f"sampling_prob (the probability that an example is used in a step) must lie in (0, 1], got {q:g}; "
            "use 1 for no sub-sampling and e.g. batch_size / n for Poisson sampling."
        )
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(map(repr, ACCOUNTANTS))}, got {accountant!r}.")
    return delta, steps, q


#: Sampling schemes and neighbouring relations understood by :func:`epsilon_general` / :func:`noise_multiplier_general`.
SAMPLINGS = ("poisson", "without-replacement")


NEIGHBOURINGS = ("add-remove", "replace-one")


def _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant):
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(map(repr, SAMPLINGS))}, got {sampling!r}.")
    if neighbouring not in NEIGHBOURINGS:
        raise ValueError(f"neighbouring must be one of {', '.join(map(repr, NEIGHBOURINGS))}, got {neighbouring!r}.")
    if sampling == "without-replacement" and q < 1.0:
        if neighbouring != "replace-one":
            raise ValueError(
                "sampling without replacement (a fixed-size batch) is analysed under replace-one neighbours (the "
                "data set size n is public); choose neighbouring='replace-one', or Poisson sampling for add/remove.")
        if accountant != "rdp":
            raise ValueError(
                "dp_accounting has no PLD accountant for sampling without replacement; use accountant='rdp' "
                "(Wang, Balle & Kasiviswanathan 2019) for it, or Poisson sampling for PLD.")
    if sampling == "poisson" and neighbouring == "replace-one" and q < 1.0 and accountant == "rdp":
        raise ValueError(
            "dp_accounting's RDP accountant handles Poisson sampling only under add/remove neighbours; use "
            "accountant='pld' for Poisson sampling with replace-one neighbours.")
    return delta, steps, q


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)
