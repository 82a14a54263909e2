"""``python -m dpviz`` — see :mod:`dpviz.cli.commands`."""
import sys

from dpviz.cli.commands import main

sys.exit(main())
