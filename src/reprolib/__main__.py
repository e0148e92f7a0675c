"""``python -m reprolib`` runs the command line."""

import sys

from reprolib.cli import main

sys.exit(main())
