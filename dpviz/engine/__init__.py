"""Engine layer: the simulation of the papers' algorithms on data.

What belongs here: the batched simulation engine (:mod:`.simulate`), the losses and their constants
(:mod:`.losses`), the data sets (:mod:`.data`), the projections onto the sets W (:mod:`.projections`) and the
reference risk of the excess risk (:mod:`.reference`).

What it may import: :mod:`dpviz.foundation`, :mod:`dpviz.theory` and this package.
"""
