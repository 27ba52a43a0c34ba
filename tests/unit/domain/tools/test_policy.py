"""Which tools may run: the allowlist decides, annotations can only take a tool away."""

from __future__ import annotations

import pytest

from domain.tools import (
    Availability,
    ServerConfig,
    ToolInfo,
    allowed_specs,
    availability,
    qualified_name,
    start_problems,
)


def server(**keys: object) -> ServerConfig:
    return ServerConfig.model_validate({"name": "prom", "command": "prometheus-mcp-server", **keys})


def tool(name: str, **hints: bool) -> ToolInfo:
    return ToolInfo(name=name, description=f"{name} tool", input_schema={"type": "object"}, **hints)


def test_a_server_without_include_tools_offers_nothing() -> None:
    prom = server()

    assert (
        availability(prom, tool("execute_query", read_only_hint=True))
        is Availability.NOT_ALLOWLISTED
    )
    assert allowed_specs(prom, [tool("execute_query", read_only_hint=True)]) == []
    assert start_problems(prom, []) == ["server 'prom' has no includeTools, so it offers no tool"]


def test_an_allowlisted_tool_without_annotations_may_run() -> None:
    assert availability(server(includeTools=["q"]), tool("q")) is Availability.ALLOWED


def test_exclude_tools_wins_over_include_tools() -> None:
    assert (
        availability(server(includeTools=["q"], excludeTools=["q"]), tool("q"))
        is Availability.EXCLUDED
    )


@pytest.mark.parametrize(
    ("hints", "annotation"),
    [
        ({"destructive_hint": True}, "destructiveHint: true"),
        ({"read_only_hint": False}, "readOnlyHint: false"),
        ({"read_only_hint": True, "destructive_hint": True}, "destructiveHint: true"),
    ],
)
def test_a_tool_annotated_as_changing_things_is_refused_at_start_by_name(
    hints: dict[str, bool], annotation: str
) -> None:
    prom = server(includeTools=["delete_series"], trust=True)
    delete = tool("delete_series", **hints)

    assert availability(prom, delete) is Availability.DESTRUCTIVE
    assert allowed_specs(prom, [delete]) == []
    assert start_problems(prom, [delete]) == [
        f"server 'prom': tool 'delete_series' is refused, it is annotated {annotation};"
        " only read-only tools run, remove it from includeTools"
    ]


def test_an_allowlisted_tool_the_server_does_not_offer_is_named() -> None:
    assert start_problems(server(includeTools=["ghost"]), [tool("q")]) == [
        "server 'prom' has no tool 'ghost' (named in includeTools)"
    ]


def test_the_catalogue_names_each_tool_uniquely_with_its_schema_and_trust() -> None:
    [spec] = allowed_specs(
        server(includeTools=["execute_query"], trust=True),
        [tool("execute_query", read_only_hint=True), tool("list_metrics")],
    )

    assert spec.name == "prom__execute_query"
    assert (spec.server, spec.tool, spec.trusted) == ("prom", "execute_query", True)
    assert spec.input_schema == {"type": "object"}


def test_a_long_description_is_cut_so_a_server_cannot_fill_the_prompt() -> None:
    long = ToolInfo(name="q", description="x" * 50_000)

    [spec] = allowed_specs(server(includeTools=["q"]), [long])

    assert len(spec.description) == 1_000


def test_qualified_names_use_only_characters_every_provider_accepts() -> None:
    assert qualified_name("k8s-prod", "pods.log/tail") == "k8s-prod__pods_log_tail"
    assert len(qualified_name("s" * 32, "t" * 64)) == 64
