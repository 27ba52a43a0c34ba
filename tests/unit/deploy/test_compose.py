"""The Docker Compose example and its .env.example agree with the code they deploy."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import yaml
from dotenv import dotenv_values

from bot.server.runner import GRACE_S
from bot.settings import known_variables, load_settings
from tests.unit.deploy.examples import (
    BOT_VARIABLE,
    COMPOSE,
    COMPOSE_VARIABLE,
    DEPLOY,
    ENV_EXAMPLE,
    SECRET_NAME,
    _fm_run,
    _get_paths,
    _has_credentials,
    _image_environment,
    _is_secret,
    _secret_settings,
)


def _compose() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text()))


def _env_example() -> dict[str, str]:
    return {name: value or "" for name, value in dotenv_values(ENV_EXAMPLE).items()}


def _interpolate(text: str, values: Mapping[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, as a filled-in .env gives them."""

    def value(match: re.Match[str]) -> str:
        given = values.get(match["name"], "")
        if given:
            return given
        if match["op"] in (":-", "-"):
            return match["arg"]
        return f"filled-in-{match['name'].lower().replace('_', '-')}"

    return COMPOSE_VARIABLE.sub(value, text)


def _bot_service() -> dict[str, Any]:
    return dict(_compose()["services"]["bot"])


def _compose_environment() -> dict[str, str]:
    """What a bot replica sees: the image's ENV, the env file, then `environment`."""
    bot = _bot_service()
    assert bot["env_file"] == ".env"  # the copy of .env.example users fill in
    example = _env_example()
    explicit = {
        name: _interpolate(str(value), example) for name, value in bot["environment"].items()
    }
    return {**_image_environment(), **example, **explicit}


def _documented_variables() -> set[str]:
    """Every FM_*/SLACK_* name in the env example, commented-out suggestions included."""
    return set(re.findall(r"^#?\s*((?:FM|SLACK)_\w+)=", ENV_EXAMPLE.read_text(), re.MULTILINE))


def _healthcheck_url() -> str:
    test = " ".join(_bot_service()["healthcheck"]["test"])
    match = re.search(r"https?://[^'\"\s]+", test)
    assert match, test
    return match.group()


def test_every_variable_the_compose_example_sets_is_a_setting_the_bot_reads() -> None:
    names = {name for name in _compose_environment() if BOT_VARIABLE.match(name)}

    assert (names | _documented_variables()) - set(known_variables()) == set()


def test_the_compose_example_sets_every_object_store_setting() -> None:
    object_store = {name for name in known_variables() if name.startswith("FM_S3_")}

    assert object_store <= set(_bot_service()["environment"])


def test_the_compose_settings_load_as_an_http_bot_on_postgres_and_object_storage() -> None:
    environment = _compose_environment()
    settings = load_settings(environment, env_file=None)

    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"} <= set(_env_example())
    assert "SLACK_APP_TOKEN" not in environment
    assert settings.database_url.startswith("postgresql+asyncpg://")
    assert settings.lancedb_uri.startswith("s3://")


def test_the_compose_bot_reaches_the_database_and_object_store_it_runs() -> None:
    services = _compose()["services"]
    environment = _compose_environment()
    database = urlsplit(environment["FM_DATABASE_URL"])
    store = urlsplit(environment["FM_S3_ENDPOINT"])

    assert database.hostname in services
    assert services[database.hostname]["environment"]["POSTGRES_DB"] == database.path.lstrip("/")
    assert services[database.hostname]["environment"]["POSTGRES_USER"] == database.username
    assert store.hostname in services
    assert store.scheme == "http"
    assert environment["FM_S3_ALLOW_HTTP"] == "true"


def test_the_bucket_job_creates_the_bucket_lancedb_uses() -> None:
    bucket = urlsplit(_compose_environment()["FM_LANCEDB_URI"]).netloc
    job = " ".join(_compose()["services"]["bucket"]["command"])

    assert re.search(rf"mc mb --ignore-existing \w+/{re.escape(bucket)}(\s|$)", job)


def test_the_compose_bot_runs_two_replicas_of_fm_run_checked_on_its_port() -> None:
    bot = _bot_service()
    port = _fm_run(bot["command"]).port
    health = urlsplit(_healthcheck_url())

    assert bot["deploy"]["replicas"] == 2
    assert health.port == port
    assert health.path in _get_paths()


def test_the_load_balancer_sends_to_every_bot_replica_on_its_port() -> None:
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    port = _fm_run(_bot_service()["command"]).port
    (listen,) = re.findall(r"^:(\d+) \{", caddyfile, re.MULTILINE)
    published = {str(mapping) for mapping in _compose()["services"]["proxy"]["ports"]}

    assert re.search(rf"dynamic a \{{\s*name bot\s+port {port}\s", caddyfile)
    assert published == {f"{listen}:{listen}"}


def test_the_bots_start_once_the_database_answers_and_the_bucket_exists() -> None:
    depends = _bot_service()["depends_on"]
    database = urlsplit(_compose_environment()["FM_DATABASE_URL"]).hostname

    assert depends[database]["condition"] == "service_healthy"
    assert depends["bucket"]["condition"] == "service_completed_successfully"


def test_compose_waits_for_running_turns_to_finish_before_killing_a_replica() -> None:
    grace = _bot_service()["stop_grace_period"]

    assert grace.endswith("s")
    assert int(grace.removesuffix("s")) > GRACE_S


def _literal_secret(name: str, value: str) -> bool:
    """Whether a Compose value holds a secret itself rather than through ${VARIABLE}."""
    literal = COMPOSE_VARIABLE.sub("", value)
    if name in _secret_settings() or SECRET_NAME.search(name):
        return literal != ""
    return _has_credentials(literal)


def test_compose_takes_every_secret_from_the_env_file() -> None:
    literal = [
        (service, name)
        for service, definition in _compose()["services"].items()
        for name, value in definition.get("environment", {}).items()
        if _literal_secret(name, str(value))
    ]

    assert literal == []


def test_the_env_example_holds_no_secret_values() -> None:
    filled = {name for name, value in _env_example().items() if _is_secret(name, value) and value}

    assert filled == set()


def test_every_variable_compose_needs_is_in_the_env_example() -> None:
    needed = {match["name"] for match in COMPOSE_VARIABLE.finditer(COMPOSE.read_text())}

    assert needed - set(_env_example()) == set()
