"""Which theorems apply to a loss: a theorem of a pairwise algorithm needs a pairwise loss, a smooth-loss theorem
needs α = 1, and an α-Hölder theorem that refuses α = 1 (Wang, Lei, Ying & Zhou (wang-lownoise), Theorems 4 and 7:
α in [0, 1)) needs α < 1.  Used by the Bounds page (a theorem that does not apply is greyed, with a switch) and by
the Simulate run plan (a run is compared with, and scheduled by, only the theorems that cover its loss)."""

from __future__ import annotations

from functools import lru_cache

from dpviz.theory import catalog

__all__ = ["loss_reason", "switch_loss", "refuses_smooth"]


@lru_cache(maxsize=None)
def refuses_smooth(theorem_id: str) -> bool:
    """Whether an α-Hölder theorem refuses α = 1 (the smooth case is another theorem of its paper), probed once
    with the theorem's own bound."""
    thm = catalog.get_theorem(theorem_id)
    if "holder" not in thm.assumptions or "alpha" not in catalog.parameters_of(thm.bound):
        return False
    probe = {"n": 1000, "d": 10, "eps": 1.0, "delta": 1e-6, "T": 1000, "eta": 0.01, "G": 1.0, "L": 1.0, "M": 1.0,
             "R": 1.0, "mu": 0.1, "c": 1.0, "kappa": 1.0, "alpha": 1.0}
    names = set(catalog.parameters_of(thm.bound))
    try:
        catalog.bound(theorem_id, **{k: v for k, v in probe.items() if k in names})
    except ValueError as exc:
        return "alpha" in str(exc).lower() or "α" in str(exc)
    return False


def _loss(loss, q: float | None):
    from dpviz.engine import losses

    if not isinstance(loss, str):
        return loss
    lossobj = losses.get_loss(loss)
    if getattr(lossobj, "q", None) is not None and q is not None:
        lossobj = losses.get_loss(loss, q=float(q))
    return lossobj


def loss_reason(theorem_id: str, loss, q: float | None = None) -> str:
    """Why theorem ``theorem_id`` does not apply to ``loss`` (an id of :mod:`dpviz.engine.losses`, with exponent
    ``q`` for a q-norm loss, or a loss object), or "" when it does (or ``loss`` is None: "custom" constants are the
    user's assumption)."""
    if loss is None:
        return ""
    thm = catalog.get_theorem(theorem_id)
    lossobj = _loss(loss, q)
    name = getattr(lossobj, "name", str(loss))
    setting = catalog.get_algorithm(thm.algorithm).setting
    have = getattr(lossobj, "setting", "pointwise")
    if setting != have:
        return (f"needs a {setting} loss ({catalog.get_algorithm(thm.algorithm).name} is a {setting} algorithm); "
                f"{name} is {have}")
    alpha = float(getattr(lossobj, "alpha", 1.0))
    if "smooth" in thm.assumptions and alpha < 1:
        return f"needs a smooth loss (α = 1); {name} is only α-Hölder smooth with α = {alpha:g}"
    if "holder" in thm.assumptions and alpha >= 1 and refuses_smooth(theorem_id):
        return (f"needs an α-Hölder loss with α < 1 (the smooth case α = 1 is another theorem of the paper); "
                f"{name} is smooth (α = 1)")
    return ""


def switch_loss(theorem_id: str, options: list[str], q: float | None = None) -> str | None:
    """The first loss of ``options`` (ids, in the page's order) to which theorem ``theorem_id`` applies, or None."""
    for lid in options:
        if not loss_reason(theorem_id, lid, q):
            return lid
    return None
