"""Prometheus' own binaries for the tests that need them (the Debian package `prometheus`).

`.ci/run` installs the package when it is missing. Outside CI a test without them is skipped and
says why; in CI (CI=true) a missing binary fails the test, so the check cannot quietly vanish.
"""

from __future__ import annotations

import os
import shutil

import pytest


def binary(name: str) -> str:
    """The path of ``name`` (prometheus, promtool); skip outside CI, fail in CI, when absent."""
    found = shutil.which(name)
    if found is not None:
        return found
    reason = f"`{name}` is not installed (apt-get install prometheus; .ci/run does it)"
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(reason)
    pytest.skip(reason)
