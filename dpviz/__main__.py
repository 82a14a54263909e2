"""``python -m dpviz`` — see :mod:`dpviz.cli`."""
import sys

from dpviz.cli import main

sys.exit(main())
