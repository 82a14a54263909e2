"""Labs layer: experiments about privacy and stability on top of the engine.

What belongs here: the privacy audit (:mod:`.audit`) and its trade-off-curve (f-DP), GDP-based and one-run audits
(:mod:`.auditing`), the stability experiments on coupled chains (:mod:`.stability`) and the privacy-accounting lab
(:mod:`.privacy_lab`).

What it may import: :mod:`dpviz.foundation`, :mod:`dpviz.theory`, :mod:`dpviz.engine` and this package.
"""
