"""Every reply schema the bot sends stays inside the JSON Schema subset every provider accepts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from bot.llm.calls import validate
from bot.llm.schema import SchemaNotPortableError, wire_schema
from domain.base import DomainModel
from domain.engine.prompting.prompts import SCHEMAS
from domain.engine.schemas import ConsultingResponse, InvestigationResponse
from domain.workflows.prompts import REPLY_SCHEMAS
from domain.workflows.rca import RcaFindings, RcaReply
from tests.fakes.models.provider_rules import (
    anthropic_output_problem,
    fill_nullable,
    openai_strict_problem,
)

EVERY_SCHEMA = [s for s in SCHEMAS.values() if s is not None] + list(REPLY_SCHEMAS)
FORBIDDEN = {
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "allOf",
    "oneOf",
    "patternProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
    "const",
    "$ref",
    "$defs",
    "not",
}


def nodes(schema: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in ``schema``, with its path."""
    if not isinstance(schema, dict):
        return
    yield where or "(root)", schema
    for name, child in schema.get("properties", {}).items():
        yield from nodes(child, f"{where}.{name}")
    yield from nodes(schema.get("items"), f"{where}[]")
    for index, branch in enumerate(schema.get("anyOf", [])):
        yield from nodes(branch, f"{where}|{index}")


def test_the_bot_sends_every_reply_schema_it_has() -> None:
    names = {s.__name__ for s in EVERY_SCHEMA}

    assert names == {
        "ConsultingResponse",
        "InvestigationResponse",
        "TerminalResponse",
        "RcaFindings",
        "RcaReply",
    }


@pytest.mark.parametrize("model", EVERY_SCHEMA, ids=lambda m: m.__name__)
def test_every_object_is_closed_and_lists_every_property_as_required(
    model: type[BaseModel],
) -> None:
    schema = wire_schema(model)

    assert schema["type"] == "object"
    assert "anyOf" not in schema
    for where, node in nodes(schema):
        if node.get("type") == "object":
            assert node.get("properties"), f"{where}: a free-form object"
            assert node["additionalProperties"] is False, where
            assert node["required"] == list(node["properties"]), where


@pytest.mark.parametrize("model", EVERY_SCHEMA, ids=lambda m: m.__name__)
def test_no_keyword_outside_the_strict_subset_appears(model: type[BaseModel]) -> None:
    schema = wire_schema(model)

    for where, node in nodes(schema):
        assert not FORBIDDEN & set(node), f"{where}: {sorted(FORBIDDEN & set(node))}"


@pytest.mark.parametrize("model", EVERY_SCHEMA, ids=lambda m: m.__name__)
def test_openai_strict_mode_and_anthropic_structured_outputs_accept_it(
    model: type[BaseModel],
) -> None:
    schema = wire_schema(model)

    assert openai_strict_problem(schema) is None
    assert anthropic_output_problem(schema) is None


def test_a_limit_the_schema_cannot_carry_is_said_in_words_and_enforced_on_the_reply() -> None:
    statement = wire_schema(ConsultingResponse)["properties"]["state_updates"]["anyOf"][0]
    field = statement["properties"]["proposed_problem_statement"]

    assert "at most 1000 characters" in str(field).lower()
    too_long = {"agent_response": "ok", "state_updates": {"proposed_problem_statement": "x" * 1001}}
    with pytest.raises(ValidationError, match="at most 1000 characters"):
        validate(ConsultingResponse, _json(too_long))


def test_rca_findings_still_refuse_an_empty_summary_after_parsing() -> None:
    empty = {
        "analysis_summary": "",
        "root_cause_assessment": "OOM",
        "rca_severity": "high",
        "signal_type": "OOMKilled",
    }

    with pytest.raises(ValidationError, match="at least 1 character"):
        validate(RcaFindings, _json(empty))


def test_workflow_parameters_are_name_value_pairs_not_a_free_form_object() -> None:
    strategy = wire_schema(RcaReply)["properties"]["strategies"]["anyOf"][0]["items"]
    parameters = strategy["properties"]["parameters"]["anyOf"][0]

    assert parameters["type"] == "array"
    assert set(parameters["items"]["properties"]) == {"name", "value"}


@pytest.mark.parametrize("model", EVERY_SCHEMA, ids=lambda m: m.__name__)
def test_a_strict_reply_with_every_optional_field_null_reads_as_the_defaults(
    model: type[BaseModel],
) -> None:
    minimal = MINIMAL[model.__name__]
    strict = fill_nullable(minimal, wire_schema(model))

    assert any(value is None for value in strict.values())
    assert validate(model, _json(strict)) == model.model_validate(minimal)


def test_nested_nulls_read_as_defaults_too() -> None:
    reply = {
        "agent_response": "Two requests.",
        "state_updates": {
            "evidence_requests": [
                {"label": "Logs", "description": "errors", "category": "symptoms"}
            ]
        },
    }
    strict = fill_nullable(reply, wire_schema(InvestigationResponse))

    assert strict["state_updates"]["evidence_requests"][0]["guidance"] is None
    parsed = validate(InvestigationResponse, _json(strict))
    (request,) = parsed.state_updates.evidence_requests
    assert request.guidance.commands == []


def test_a_model_with_free_form_keys_cannot_be_sent() -> None:
    class Loose(DomainModel):
        """Keys nobody can list."""

        values: dict[str, str] = Field(default_factory=dict)

    with pytest.raises(SchemaNotPortableError, match=r"Loose\.values: an open object"):
        wire_schema(Loose)


def test_json_after_a_line_of_prose_or_in_a_fence_is_read() -> None:
    body = '{"agent_response": "ok"}'

    assert validate(ConsultingResponse, f"Here it is:\n{body}").agent_response == "ok"
    assert validate(ConsultingResponse, f"```json\n{body}\n```").agent_response == "ok"


def test_prose_alone_is_an_invalid_reply() -> None:
    with pytest.raises(ValidationError, match="Invalid JSON"):
        validate(ConsultingResponse, "The database pool is exhausted.")


MINIMAL: dict[str, dict[str, Any]] = {
    "ConsultingResponse": {"agent_response": "Hello."},
    "InvestigationResponse": {"agent_response": "Looking."},
    "TerminalResponse": {"agent_response": "Done."},
    "RcaFindings": {
        "analysis_summary": "The pod was OOM-killed.",
        "root_cause_assessment": "The memory limit is below the working set.",
        "rca_severity": "high",
        "signal_type": "OOMKilled",
    },
    "RcaReply": {
        "analysis_summary": "The pod was OOM-killed.",
        "root_cause_assessment": "The memory limit is below the working set.",
        "rca_severity": "high",
        "context_used": {
            "cluster_state": "healthy",
            "resource_availability": "enough memory on the nodes",
            "blast_radius": "one deployment",
        },
    },
}


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
