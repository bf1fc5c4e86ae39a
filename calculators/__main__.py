"""``python -m calculators``: see ``calculators.cli``."""

import sys

from calculators.cli import main

if __name__ == "__main__":
    sys.exit(main())
