"""``python -m atlas``: the command line of the calculators (``atlas.cli``)."""

import sys

from atlas.cli import main

if __name__ == "__main__":
    sys.exit(main())
