"""One module per paper (references in docs/papers.md); each defines PAPER, ALGORITHMS, THEOREMS and TABLES (see dpviz.catalog)."""
