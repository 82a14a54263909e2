"""One module per paper of ../shared/seeds/; each defines PAPER, ALGORITHMS, THEOREMS and TABLES (see dpviz.catalog)."""
