"""``python -m fabricstudio``: the same entry point as the ``fabricstudio`` command."""

import sys

from fabricstudio.cli import main

if __name__ == "__main__":
    sys.exit(main())
