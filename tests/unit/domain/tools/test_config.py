"""The `mcpServers` file: what other assistants write is read, checked and resolved."""

from __future__ import annotations

import pytest

from domain.tools import ServerConfig, ToolConfigError, parse_config


def servers(entries: dict[str, object], **environment: str) -> list[ServerConfig]:
    config = parse_config({"mcpServers": entries}, environment)
    assert config.problems == ()
    return list(config.servers)


def problems(entries: dict[str, object], **environment: str) -> tuple[str, ...]:
    return parse_config({"mcpServers": entries}, environment).problems


def test_a_local_server_is_read_with_its_safety_keys() -> None:
    [server] = servers(
        {
            "prometheus": {
                "command": "prometheus-mcp-server",
                "args": ["--flag"],
                "env": {"PROMETHEUS_URL": "http://prometheus:9090"},
                "includeTools": ["execute_query"],
                "excludeTools": ["list_metrics"],
                "trust": True,
                "timeout": 15000,
            }
        }
    )

    assert server.transport == "stdio"
    assert server.args == ("--flag",)
    assert server.env["PROMETHEUS_URL"].get_secret_value() == "http://prometheus:9090"
    assert server.include_tools == ("execute_query",)
    assert server.exclude_tools == ("list_metrics",)
    assert server.trust is True
    assert server.timeout_s == 15.0


def test_a_remote_server_is_reached_over_streamable_http() -> None:
    [server] = servers({"grafana": {"url": "https://mcp.example.com/mcp", "type": "http"}})

    assert server.transport == "http"
    assert server.include_tools == ()
    assert server.trust is False
    assert server.timeout_s == 30.0


def test_the_http_url_key_other_assistants_use_is_understood() -> None:
    [server] = servers({"grafana": {"httpUrl": "https://mcp.example.com/mcp"}})

    assert server.url == "https://mcp.example.com/mcp"


def test_variables_in_env_and_headers_come_from_the_environment_and_stay_secret() -> None:
    [server] = servers(
        {
            "grafana": {
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer ${GRAFANA_TOKEN}"},
            },
        },
        GRAFANA_TOKEN="glsa_secret_value_123",
    )

    assert server.headers["Authorization"].get_secret_value() == "Bearer glsa_secret_value_123"
    assert "glsa_secret_value_123" not in repr(server)
    assert "glsa_secret_value_123" not in str(server.model_dump())


def test_a_variable_that_is_not_set_is_named_and_only_that_server_is_left_out() -> None:
    config = parse_config(
        {
            "mcpServers": {
                "k8s": {"command": "kubernetes-mcp-server", "env": {"KUBECONFIG": "${KUBE}"}},
                "prometheus": {"command": "prometheus-mcp-server"},
            }
        },
        {},
    )

    assert [server.name for server in config.servers] == ["prometheus"]
    assert config.problems == ("server 'k8s': env.KUBECONFIG refers to ${KUBE}, which is not set",)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({}, "give either command (a local server) or url (a remote one)"),
        ({"command": "x", "url": "https://h/mcp"}, "give either command"),
        ({"url": "ftp://h/mcp"}, "url must start with http:// or https://"),
        ({"url": "https://h/sse", "type": "sse"}, "the SSE transport is not supported"),
        ({"command": "x", "type": "websocket"}, "unknown type 'websocket'"),
        ({"command": "x", "timeout": 0}, "timeout"),
        ({"command": "x", "env": {"A": 1}}, "env must be an object of strings"),
        ("x", "expected an object"),
    ],
)
def test_an_entry_that_cannot_be_used_is_reported_with_the_reason(
    entry: object, reason: str
) -> None:
    [problem] = problems({"broken": entry})

    assert problem.startswith("server 'broken': ")
    assert reason in problem


def test_a_server_name_must_fit_in_a_tool_name() -> None:
    [problem] = problems({"my server!": {"command": "x"}})

    assert "a name is 1-32 letters" in problem


def test_a_disabled_server_is_left_out_quietly() -> None:
    assert servers({"old": {"command": "x", "disabled": True}}) == []


def test_keys_of_other_assistants_are_ignored() -> None:
    [server] = servers({"p": {"command": "x", "alwaysAllow": ["y"], "description": "metrics"}})

    assert server.name == "p"


@pytest.mark.parametrize("document", [[], {"servers": {}}, {"mcpServers": []}])
def test_a_document_without_an_mcp_servers_object_is_refused(document: object) -> None:
    with pytest.raises(ToolConfigError, match="mcpServers"):
        parse_config(document, {})
