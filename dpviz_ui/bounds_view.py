"""Which theorems apply to the Bounds page's chosen loss (a theorem that does not is shown greyed with the reason and
the loss to switch to, one click away; ``pages/bounds.py`` draws it).  The rule is the library's,
:mod:`dpviz.engine.applicability`, which the Simulate run plan uses too."""

from __future__ import annotations

from dpviz.engine.applicability import loss_reason, refuses_smooth, switch_loss

__all__ = ["loss_reason", "switch_loss", "refuses_smooth"]
