"""The model names a tool as the catalogue does and gives its arguments as JSON text."""

from __future__ import annotations

import pytest

from domain.tools import ResolvedRequest, ToolRequest, ToolSpec, resolve

CATALOGUE = [
    ToolSpec(
        server="prometheus",
        tool="execute_query",
        name="prometheus__execute_query",
        description="Run a PromQL instant query.",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
        trusted=False,
    )
]


def request(
    name: str = "prometheus__execute_query", arguments: str = '{"query": "up"}'
) -> ToolRequest:
    return ToolRequest(name=name, arguments=arguments, reason="Is the API up?")


def test_a_request_resolves_to_its_server_tool_and_arguments() -> None:
    resolved = resolve(request(), CATALOGUE)

    assert isinstance(resolved, ResolvedRequest)
    assert (resolved.spec.server, resolved.spec.tool) == ("prometheus", "execute_query")
    assert resolved.arguments == {"query": "up"}


@pytest.mark.parametrize(
    ("asked", "sentence"),
    [
        (
            request(name="prometheus__delete_series"),
            "No tool named 'prometheus__delete_series' is offered.",
        ),
        (
            request(arguments="{query: up}"),
            "The arguments for prometheus__execute_query are not valid JSON",
        ),
        (
            request(arguments='["up"]'),
            "The arguments for prometheus__execute_query must be one JSON object.",
        ),
    ],
)
def test_a_request_that_names_nothing_runnable_is_one_sentence(
    asked: ToolRequest, sentence: str
) -> None:
    resolved = resolve(asked, CATALOGUE)

    assert isinstance(resolved, str)
    assert resolved.startswith(sentence)


def test_empty_arguments_are_an_empty_object() -> None:
    resolved = resolve(request(arguments=""), CATALOGUE)

    assert isinstance(resolved, ResolvedRequest)
    assert resolved.arguments == {}


def test_the_fields_describe_themselves_to_the_model() -> None:
    schema = ToolRequest.model_json_schema()

    assert schema["properties"]["name"]["description"].startswith("The tool's name exactly")
    assert "JSON object" in schema["properties"]["arguments"]["description"]
