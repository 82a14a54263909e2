"""Theory layer: what the papers say, computed.

What belongs here: the catalogue of papers, algorithms, theorems and tables (:mod:`.catalog`), one module or
package per paper (:mod:`.papers`), the Gaussian mechanism (:mod:`.gaussian`) and the numerical privacy accountants
(:mod:`.accounting`, with the certified lower PLD bound of :mod:`.pld_lower`).

What it may import: :mod:`dpviz.foundation` and this package (never the engine, labs, studies, cli or ui).
"""
