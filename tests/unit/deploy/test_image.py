"""The Dockerfile agrees with the code it packs: the command, the port, the driver, the user."""

from __future__ import annotations

import json
import tomllib

from bot.settings import OFFLINE_DEFAULTS
from tests.unit.deploy.examples import (
    ROOT,
    _command_of,
    _console_script,
    _default_port,
    _image_environment,
    _image_user,
    _instructions,
)


def test_the_image_runs_fm_run_on_the_port_it_exposes() -> None:
    (exposed,) = _instructions("EXPOSE")
    (cmd,) = _instructions("CMD")
    command = json.loads(cmd)

    assert command[0] == _console_script()
    assert _command_of(command[1:]) is _command_of(["run"])
    assert int(exposed) == _default_port()


def test_the_image_installs_the_postgres_driver() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    postgres = extras["optional-dependencies"]["postgres"]

    assert any(dependency.startswith("asyncpg") for dependency in postgres)
    assert any("'.[postgres]'" in run for run in _instructions("RUN"))


def test_the_image_keeps_the_libraries_offline_as_fm_does() -> None:
    environment = _image_environment()

    assert {name: environment.get(name) for name in OFFLINE_DEFAULTS} == OFFLINE_DEFAULTS


def test_the_image_runs_as_a_numeric_non_root_user() -> None:
    uid, gid = _image_user()

    assert uid > 0
    assert gid > 0


# ---------------------------------------------------------------- Kubernetes
