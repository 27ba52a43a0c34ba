"""Programs from Debian's packages that some tests run for real (Prometheus, Alertmanager).

`.ci/run` installs the packages when they are missing. Outside CI a test without its program is
skipped and says why; in CI (CI=true) a missing program fails the test, so the check cannot
quietly vanish.
"""

from __future__ import annotations

import os
import shutil

import pytest


def binary(name: str, *, package: str = "prometheus") -> str:
    """The path of ``name``; skipped outside CI, failed in CI, when it is not installed."""
    found = shutil.which(name)
    if found is not None:
        return found
    reason = f"`{name}` is not installed (apt-get install {package}; .ci/run does it)"
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(reason)
    pytest.skip(reason)
