"""What the Bounds page computes without Streamlit: which theorems apply to the chosen loss (a theorem that does not
is shown greyed with the reason and the loss to switch to, one click away; the rule is the library's,
:mod:`dpviz.engine.applicability`, which the Simulate run plan uses too), and the trivial bounds its charts draw
beside the bounds (:func:`trivial_levels`).  ``pages/bounds.py`` draws what these return."""

from __future__ import annotations

from dpviz.engine.applicability import loss_reason, refuses_smooth, switch_loss
from dpviz.theory import catalog, vacuous

__all__ = ["loss_reason", "switch_loss", "refuses_smooth", "trivial_levels"]


def trivial_levels(theorem_of: dict[str, str], params: dict) -> tuple[list[dict], dict[str, float]]:
    """The trivial bounds of the curves of a Bounds chart: ``theorem_of`` maps a curve's name to its theorem's id.

    Returns (the horizontal lines to draw, one per distinct trivial bound: ``{"name", "y", "hover"}``; and, per curve
    whose theorem's quantity has a trivial bound here, that bound: a point of the curve above it is vacuous).  The
    trivial bound is :func:`dpviz.theory.vacuous.trivial_bound` (G·R for an excess risk over the ball of radius R,
    2R for uniform argument stability); it depends on neither n nor ε, so it is a horizontal line on both charts."""
    levels, above = [], {}
    for name, tid in theorem_of.items():
        triv = vacuous.trivial_bound(tid, params)
        if triv is None:
            continue
        value, sentence = triv
        above[name] = value
        quantity = catalog.Risk.parse(catalog.get_theorem(tid).risk).quantity
        what = "excess risk" if quantity.startswith("excess") else quantity
        label = f"trivial bound of the {what}: {sentence.split(':')[0]}"
        if not any(lv["name"] == label for lv in levels):
            levels.append({"name": label, "y": value,
                           "hover": f"Trivial bound {sentence}. A bound above this line says nothing here "
                                    "(vacuous)."})
    return levels, above
