"""``python -m ndpgpu``: the command line (``ndpgpu``)."""

import sys

from .cli import main

sys.exit(main())
