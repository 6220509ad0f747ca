"""``python -m firmware_host`` runs the ``tablehost`` command line."""

import sys

from firmware_host.cli import main

sys.exit(main())
