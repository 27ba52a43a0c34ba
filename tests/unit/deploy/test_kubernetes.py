"""The Kubernetes example in deploy/kubernetes agrees with the code it deploys."""

from __future__ import annotations

import re
from typing import Any

import yaml

from bot.server.http_app import HEALTH_PATH, READY_PATH
from bot.server.runner import GRACE_S
from bot.settings import known_variables, load_settings
from tests.unit.deploy.examples import (
    BOT_VARIABLE,
    EMBEDDING_MODEL_BYTES,
    KUBERNETES,
    _bytes,
    _default_port,
    _fm_run,
    _get_paths,
    _image_environment,
    _image_user,
    _is_secret,
    _routes,
)


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
