"""`python -m evals`: run the evaluation suite with the scripted competent investigator."""

from __future__ import annotations

import logging
import sys

from evals.cli import main

# Withheld commands are counted on the scoreboard; their warnings would only drown it.
logging.basicConfig(level=logging.ERROR)
raise SystemExit(main(sys.argv[1:]))
