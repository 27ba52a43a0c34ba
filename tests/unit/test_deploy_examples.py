"""The deployment examples in deploy/ and the Dockerfile agree with the code they deploy.

Nothing here can start a container; instead every name, port, path and command in the examples is
checked against what the code itself declares: the settings' variable names, the `fm` parser, the
HTTP app's route table, the shutdown grace period and the offline defaults.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urlsplit

import yaml
from aiohttp import web
from dotenv import dotenv_values
from pydantic import SecretStr
from slack_bolt.app.async_app import AsyncApp

from bot.cli import build_parser
from bot.server.http_app import HEALTH_PATH, READY_PATH, build_web_app
from bot.server.runner import GRACE_S
from bot.settings import OFFLINE_DEFAULTS, Settings, known_variables, load_settings

ROOT = Path(__file__).resolve().parents[2]
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


def _manifests() -> dict[str, dict[str, Any]]:
    """The documents kustomization.yaml lists, by kind."""
    kustomization = yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())
    documents = [
        yaml.safe_load((KUBERNETES / name).read_text()) for name in kustomization["resources"]
    ]
    return {document["kind"]: document for document in documents}


def _container() -> dict[str, Any]:
    (container,) = _manifests()["Deployment"]["spec"]["template"]["spec"]["containers"]
    return dict(container)


def _container_port() -> int:
    (port,) = _container()["ports"]
    return int(port["containerPort"])


def _kubernetes_environment() -> dict[str, str]:
    """What the bot's container sees: the image's ENV, the ConfigMap, the Secret, its env."""
    manifests = _manifests()
    explicit = {item["name"]: item["value"] for item in _container().get("env", [])}
    return {
        **_image_environment(),
        **manifests["ConfigMap"]["data"],
        **manifests["Secret"]["stringData"],
        **explicit,
    }


def test_the_kustomization_lists_every_manifest_in_the_directory() -> None:
    kustomization = yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())
    files = {path.name for path in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}

    assert set(kustomization["resources"]) == files


def test_every_variable_the_kubernetes_example_sets_is_a_setting_the_bot_reads() -> None:
    names = {name for name in _kubernetes_environment() if BOT_VARIABLE.match(name)}

    assert names - set(known_variables()) == set()


def test_the_kubernetes_example_sets_every_object_store_setting() -> None:
    object_store = {name for name in known_variables() if name.startswith("FM_S3_")}

    assert object_store <= set(_kubernetes_environment())


def test_the_kubernetes_settings_load_as_an_http_bot_on_postgres_and_object_storage() -> None:
    environment = _kubernetes_environment()
    settings = load_settings(environment, env_file=None)

    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"} <= set(environment)
    assert "SLACK_APP_TOKEN" not in environment
    assert settings.database_url.startswith("postgresql+asyncpg://")
    assert settings.lancedb_uri.startswith("s3://")


def test_secrets_are_in_the_secret_and_nothing_secret_is_in_the_config_map() -> None:
    manifests = _manifests()
    config = manifests["ConfigMap"]["data"]
    secret = manifests["Secret"]["stringData"]

    assert [name for name, value in config.items() if _is_secret(name, str(value))] == []
    assert [name for name, value in secret.items() if not _is_secret(name, value)] == []
    assert "FM_DATABASE_URL" in secret  # it carries the database password


def test_the_deployment_reads_the_example_config_map_and_secret() -> None:
    manifests = _manifests()
    sources = _container()["envFrom"]

    assert {source["configMapRef"]["name"] for source in sources if "configMapRef" in source} == {
        manifests["ConfigMap"]["metadata"]["name"]
    }
    assert {source["secretRef"]["name"] for source in sources if "secretRef" in source} == {
        manifests["Secret"]["metadata"]["name"]
    }


def test_the_deployment_runs_two_replicas_of_fm_run_on_the_container_port() -> None:
    deployment = _manifests()["Deployment"]

    assert deployment["spec"]["replicas"] == 2
    assert _fm_run(_container()["command"]).port == _container_port()
    assert _container_port() == _default_port()


def test_every_probe_asks_a_served_get_route_on_the_container_port() -> None:
    container = _container()
    probes = [container[kind] for kind in ("startupProbe", "readinessProbe", "livenessProbe")]
    (port,) = container["ports"]

    for probe in probes:
        assert probe["httpGet"]["path"] in _get_paths()
        assert probe["httpGet"]["port"] in (port["name"], port["containerPort"])


def test_a_pod_gets_traffic_once_warm_and_is_restarted_only_when_unhealthy() -> None:
    container = _container()

    # Healthy from the first second (a warming pod is not restarted); ready once turns run at
    # full speed (only then does the Service send it Slack's requests).
    assert container["startupProbe"]["httpGet"]["path"] == HEALTH_PATH
    assert container["livenessProbe"]["httpGet"]["path"] == HEALTH_PATH
    assert container["readinessProbe"]["httpGet"]["path"] == READY_PATH


def test_the_service_targets_the_container_port_of_the_pods_it_selects() -> None:
    manifests = _manifests()
    (port,) = manifests["Service"]["spec"]["ports"]
    (container_port,) = _container()["ports"]
    pod_labels = manifests["Deployment"]["spec"]["template"]["metadata"]["labels"]

    assert port["targetPort"] in (container_port["name"], container_port["containerPort"])
    assert manifests["Service"]["spec"]["selector"].items() <= pod_labels.items()


def test_the_paths_the_service_comment_promises_are_served() -> None:
    text = (KUBERNETES / "service.yaml").read_text()
    promised = set(re.findall(r"(GET|POST) (/[\w/]+)", text))

    assert len(promised) == 3
    assert promised <= _routes()


def test_the_pod_runs_as_the_images_non_root_user() -> None:
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]["securityContext"]
    uid, gid = _image_user()

    assert pod["runAsNonRoot"] is True
    assert (pod["runAsUser"], pod["runAsGroup"], pod["fsGroup"]) == (uid, gid, gid)


def test_the_pod_has_room_for_the_embedding_model() -> None:
    resources = _container()["resources"]
    request = _bytes(resources["requests"]["memory"])

    assert request >= EMBEDDING_MODEL_BYTES
    assert _bytes(resources["limits"]["memory"]) >= request


def test_the_writable_directories_of_a_read_only_pod_include_the_data_directory() -> None:
    container = _container()
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}

    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert {_image_environment()["FM_DATA_DIR"], "/tmp"} <= mounts


def test_kubernetes_waits_for_running_turns_to_finish_before_killing_a_pod() -> None:
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]

    assert pod["terminationGracePeriodSeconds"] > GRACE_S


def test_no_service_link_variables_reach_the_bot() -> None:
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]

    assert pod["enableServiceLinks"] is False


# ---------------------------------------------------------------- Docker Compose


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
