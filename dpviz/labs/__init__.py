"""Labs layer: experiments about privacy and stability on top of the engine.

What belongs here: the trade-off curves (f-DP, :mod:`.tradeoff`), the canary audit that trains on neighbouring data sets
(:mod:`.canary_audit`), the GDP-based and one-run audit methods (:mod:`.audit_methods`), the audit planner
(:mod:`.audit_planner`), the stability experiments on coupled chains (:mod:`.stability`) and the privacy-accounting lab
(:mod:`.privacy_lab`).

What it may import: :mod:`dpviz.foundation`, :mod:`dpviz.theory`, :mod:`dpviz.engine` and this package.
"""
