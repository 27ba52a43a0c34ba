"""`python -m evals`: run the evaluation suite with the scripted competent investigator."""

from __future__ import annotations

import sys

from evals.cli import main

raise SystemExit(main(sys.argv[1:]))
