"""Studies layer: the papers' experiments and the sweeps.

What belongs here: every paper experiment defined once as data, and its one runner (:mod:`.experiments`), the
engine-simulation figures (:mod:`.reproduce`), the studies of Kang, Li, Liu & Wang Section 7 (:mod:`.kang`) and of
Xue, Yang, Huai & Wang Section 5 (:mod:`.xue`), and the TOML sweeps run on Dask (:mod:`.sweep`).

What it may import: :mod:`dpviz.foundation`, :mod:`dpviz.theory`, :mod:`dpviz.engine`, :mod:`dpviz.labs` and this
package.
"""
