"""The hub against a real MCP server process: what is offered, what runs, what comes back."""

from __future__ import annotations

import json

import pytest

from bot.mcp import McpHub
from domain.tools import ToolOutcome
from tests.fakes.mcp_server import INJECTION, SECRET_KEY, SECRET_PASSWORD

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def ran(hub: McpHub) -> list[str]:
    """The tools the server process really ran so far."""
    result = await hub.call(server="fake", tool="whoami", arguments={})
    assert result.outcome is ToolOutcome.OK, result.sentence
    return list(json.loads(result.text)["ran"])


async def test_the_catalogue_holds_only_allowlisted_read_only_tools(shared: McpHub) -> None:
    names = [spec.name for spec in shared.catalogue()]

    assert "fake__echo" in names
    assert "fake__run_check" in names
    assert "fake__delete_series" not in names
    assert "fake__set_flag" not in names
    assert "fake__nothing" not in names  # offered by the server, not allowlisted


async def test_destructive_tools_in_include_tools_are_refused_at_start_by_name(
    shared: McpHub,
) -> None:
    [status] = shared.status()

    assert status.running
    assert "delete_series" in status.offered
    assert "delete_series" not in status.allowed
    assert any(
        "tool 'delete_series' is refused, it is annotated destructiveHint: true" in problem
        for problem in status.problems
    )
    assert any("tool 'set_flag' is refused" in problem for problem in status.problems)


@pytest.mark.parametrize(
    ("tool", "arguments", "sentence"),
    [
        ("delete_series", {"match": "up"}, "fake delete_series is not allowed: it is annotated"),
        ("nothing", {}, "fake nothing is not in includeTools."),
        ("echo", {"text": "hi", "shell": "ls"}, "arguments.shell is not an argument of this tool"),
        ("echo", {"text": 42}, "arguments.text must be string"),
        ("run_check", {"command": "rm -rf /var/lib"}, "arguments.command is refused"),
    ],
)
async def test_refused_calls_never_reach_the_server(
    shared: McpHub, tool: str, arguments: dict[str, object], sentence: str
) -> None:
    before = await ran(shared)

    result = await shared.call(server="fake", tool=tool, arguments=arguments)

    assert result.outcome is ToolOutcome.REFUSED
    assert sentence in result.sentence
    assert result.record.outcome is ToolOutcome.REFUSED
    assert await ran(shared) == before


async def test_an_allowed_call_answers_with_its_record(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="echo", arguments={"text": "p99 is 2.3 s"})

    assert (result.outcome, result.text, result.sentence) == (
        ToolOutcome.OK,
        "p99 is 2.3 s",
        "fake echo answered.",
    )
    audit = result.record
    assert (audit.server, audit.tool, audit.bytes, audit.kept_bytes) == ("fake", "echo", 12, 12)
    assert json.loads(audit.arguments) == {"text": "p99 is 2.3 s"}
    assert audit.duration_ms >= 0
    assert audit.started_at.tzinfo is not None


async def test_a_read_only_command_argument_is_sent(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="run_check", arguments={"command": "df -h"})

    assert result.text == "ran 'df -h' within 10 s"


async def test_environment_variables_reach_the_server(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="whoami", arguments={})

    assert json.loads(result.text)["greeting"] == "hi"


async def test_secrets_in_a_reply_are_redacted(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="show_config", arguments={})

    assert result.outcome is ToolOutcome.OK
    assert "service=checkout-api" in result.text
    assert SECRET_KEY not in result.text
    assert SECRET_PASSWORD not in result.text
    assert SECRET_KEY not in result.record.model_dump_json()


async def test_an_instruction_in_a_reply_is_only_evidence(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="deploy_note", arguments={})

    assert result.outcome is ToolOutcome.OK
    assert INJECTION in result.text
    assert result.sentence == "fake deploy_note answered."
    assert result.record.detail == "fake deploy_note answered."


async def test_a_slow_tool_is_one_sentence_and_the_server_stays_usable(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="slow", arguments={"seconds": 30})

    assert result.outcome is ToolOutcome.ERROR
    assert result.sentence == "fake slow did not answer within 2 s."
    assert 2_000 <= result.record.duration_ms < 5_000
    echo = await shared.call(server="fake", tool="echo", arguments={"text": "still here"})
    assert echo.text == "still here"


async def test_a_huge_reply_is_capped(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="huge", arguments={"megabytes": 2})

    assert result.outcome is ToolOutcome.OK
    assert result.truncated
    assert result.sentence == "fake huge answered (cut to the first part)."
    assert result.record.bytes > 2 * 1024 * 1024
    assert result.record.kept_bytes <= 64 * 1024 + 100
    assert result.text.splitlines()[-1].startswith("[cut: the tool returned 2,097,")


async def test_a_malformed_reply_is_one_sentence(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="malformed", arguments={})

    assert result.outcome is ToolOutcome.ERROR
    assert result.sentence == "fake malformed answered with a reply that is not a valid MCP result."
    echo = await shared.call(server="fake", tool="echo", arguments={"text": "after"})
    assert echo.text == "after"


async def test_a_tool_that_fails_reports_its_error_as_evidence(shared: McpHub) -> None:
    result = await shared.call(server="fake", tool="failing", arguments={})

    assert result.outcome is ToolOutcome.ERROR
    assert result.sentence == "fake failing reported an error."
    assert "failing" in result.text
    assert "ghp_" not in result.text


async def test_an_unknown_server_is_refused(shared: McpHub) -> None:
    result = await shared.call(server="grafana", tool="echo", arguments={})

    assert result.outcome is ToolOutcome.REFUSED
    assert result.sentence == "No MCP server named 'grafana' is configured."
