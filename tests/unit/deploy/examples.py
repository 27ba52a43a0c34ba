"""What the deployment examples in deploy/ and the Dockerfile are checked against: the code.

Nothing here can start a container; instead every name, port, path and command in the examples is
checked against what the code itself declares: the settings' variable names, the `fm` parser, the
HTTP app's route table, the shutdown grace period and the offline defaults. This module reads those,
and the Dockerfile; the tests are by example.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, get_args

from aiohttp import web
from pydantic import SecretStr
from slack_bolt.app.async_app import AsyncApp

from bot.cli import build_parser
from bot.server.http_app import build_web_app
from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
KUBERNETES = DEPLOY / "kubernetes"
COMPOSE = DEPLOY / "docker-compose.yml"
ENV_EXAMPLE = DEPLOY / ".env.example"
DOCKERFILE = ROOT / "Dockerfile"

BOT_VARIABLE = re.compile(r"^(FM|SLACK)_")
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|_KEY")
URL_CREDENTIALS = re.compile(r"//[^/@\s]+:[^/@\s]+@")
COMPOSE_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")
QUANTITY = re.compile(r"(?P<number>\d+)(?P<unit>Ki|Mi|Gi)?")
UNITS = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
EMBEDDING_MODEL_BYTES = 2**30


# ---------------------------------------------------------------- what the code declares


def _secret_settings() -> set[str]:
    """Variables whose setting is typed SecretStr."""
    return {
        str(field.validation_alias)
        for field in Settings.model_fields.values()
        if SecretStr in (field.annotation, *get_args(field.annotation))
    }


def _is_secret(name: str, value: str) -> bool:
    return name in _secret_settings() or bool(SECRET_NAME.search(name) or _has_credentials(value))


def _has_credentials(value: str) -> bool:
    return bool(URL_CREDENTIALS.search(value))


async def _database_ok() -> bool:
    return True


async def _alerts(request: web.Request) -> web.Response:
    return web.Response()


def _routes() -> set[tuple[str, str]]:
    """(method, path) of every route `fm run --http` serves, from the app's own route table."""
    bolt = AsyncApp(token="xoxb-test", signing_secret="test-signing-secret")
    app = build_web_app(bolt=bolt, database_ok=_database_ok, alerts=_alerts)
    return {(route.method, route.resource.canonical) for route in app.router.routes()}


def _get_paths() -> set[str]:
    return {path for method, path in _routes() if method == "GET"}


def _command_of(argv: list[str]) -> Any:
    """The function the real `fm` parser dispatches `argv` to."""
    return build_parser().parse_args(argv).command


def _fm_run(command: list[str]) -> Any:
    """Parse a container command with the real `fm` parser; it must run the bot over HTTP."""
    assert command[0] == _console_script()
    args = build_parser().parse_args(command[1:])
    assert args.command is _command_of(["run"]), command
    assert args.http, f"{command} is not HTTP mode"
    return args


def _console_script() -> str:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    (name,) = [name for name, target in scripts.items() if target == "bot.cli:main"]
    return str(name)


def _default_port() -> int:
    return int(build_parser().parse_args(["run"]).port)


def _bytes(quantity: str) -> int:
    match = QUANTITY.fullmatch(quantity)
    assert match, f"unexpected quantity {quantity!r}"
    return int(match["number"]) * UNITS[match["unit"]]


# ---------------------------------------------------------------- the Dockerfile


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    lines = [line.strip() for line in text.splitlines()]
    pairs = [line.split(maxsplit=1) for line in lines if line and not line.startswith("#")]
    return [(pair[0].upper(), pair[1]) for pair in pairs]


def _instructions(name: str) -> list[str]:
    return [arguments for instruction, arguments in _dockerfile() if instruction == name]


def _image_environment() -> dict[str, str]:
    pairs = (token.split("=", 1) for line in _instructions("ENV") for token in line.split())
    return dict(pairs)


def _image_user() -> tuple[int, int]:
    (*_, user) = _instructions("USER")
    uid, gid = user.split(":")
    return int(uid), int(gid)
