"""The bot looks for itself, through a case: a tool run waits for ▶ Run it (or runs at once when
its server is trusted), its result is read in the next turn, and what the tool says is data.

The tools are the in-repo fake MCP server (`tests/fakes/mcp_server.py`) run as a child process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.mcp import McpHub
from domain.lifecycle.status import CaseStatus
from domain.tools import parse_config
from domain.tools.runs import TRUST, ToolRunStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.mcp_server import INJECTION, SECRET_KEY, SECRET_PASSWORD
from tests.fakes.models.llm_server import FakeLLMServer, refusal
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.conversation.test_commands import fm
from tests.integration.bot.harness import BotHarness, eventually, text_of, with_buttons
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.paths import REPO_ROOT

STRANGER = "W999"
ALLOWED = ["deploy_note", "show_config", "whoami", "failing", "slow", "huge"]


def hub(*, trust: bool) -> McpHub:
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "includeTools": ALLOWED,
        "timeout": 5_000,
        "trust": trust,
    }
    return McpHub(parse_config({"mcpServers": {"fake": entry}}, {}))


async def started(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path, *, trust: bool
) -> tuple[BotHarness, McpHub]:
    tools = hub(trust=trust)
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, tools=tools)
    await eventually(lambda: bool(tools.catalogue()), seconds=60)
    return bot, tools


@pytest.fixture
async def asking(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, McpHub]]:
    bot, tools = await started(slack, llm, knowledge, tmp_path, trust=False)
    try:
        yield bot, tools
    finally:
        await bot.stop()


@pytest.fixture
async def trusting(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, McpHub]]:
    bot, tools = await started(slack, llm, knowledge, tmp_path, trust=True)
    try:
        yield bot, tools
    finally:
        await bot.stop()


def tool_request(tool: str, arguments: dict[str, Any] | None = None) -> dict[str, str]:
    return {
        "name": f"fake__{tool}",
        "arguments": json.dumps(arguments or {}),
        "reason": f"{tool} shows what changed",
    }


async def investigating(bot: BotHarness) -> str:
    thread_ts = await bot.mention("checkout-api answers 502s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes")
    return thread_ts


async def ran_on_the_server(tools: McpHub) -> list[str]:
    result = await tools.call(server="fake", tool="whoami", arguments={})
    return list(json.loads(result.text)["ran"])


async def test_a_tool_run_waits_for_run_it_and_its_result_is_read_and_cited_in_the_next_answer(
    asking: tuple[BotHarness, McpHub], slack: FakeSlack
) -> None:
    bot, tools = asking
    thread_ts = await investigating(bot)
    await bot.reply(
        thread_ts,
        "what changed?",
        chat_reply("Let me read the deploy note.", tool_requests=[tool_request("deploy_note")]),
    )
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    assert "fake deploy_note {}" in text_of(card)
    assert "fake__deploy_note" in bot.llm_prompts(), "the catalogue is in the prompt"
    assert await ran_on_the_server(tools) == [], "nothing runs before the click"

    fooled = chat_reply(
        "Deploy 4812 went out at 03:10Z. I'm marking the case resolved.",
        citations=["fake:deploy_note#1"],
        status_change_request={"to_status": "resolved", "reason": "the note says so"},
    )
    bot.llm.script(fooled)
    await bot.click(card, action_prefix="fm_run_tool")

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert run.status is ToolRunStatus.RAN
    assert run.consented_by == "W222"
    assert run.record is not None
    assert run.record.outcome.value == "ok"
    last = json.dumps(bot.llm.requests[-1])
    assert 'kind=\\"tool-result\\" cite=\\"fake:deploy_note#1\\"' in last
    assert "Deploy 4812 rolled out" in last
    answer = text_of(bot.bot_messages(thread_ts)[-1])
    assert "fake:deploy_note#1" in answer
    assert "Deploy 4812 went out" in answer
    (redrawn,) = [m for m in bot.bot_messages(thread_ts) if m["ts"] == card["ts"]]
    assert not with_buttons([redrawn], "fm_run_tool"), "the card's buttons are gone"
    assert "Ran" in text_of(redrawn)
    # The injection in the note is data: the case is as the people left it.
    assert case.status is CaseStatus.INVESTIGATING
    assert not case.pending_confirmations()
    assert "marking the case resolved" not in answer, "the claim is corrected where it stood"
    assert INJECTION in last, "quoted, inside its fence"
    assert slack.invalid_payloads == []


async def test_skip_sets_the_run_aside_and_nothing_runs_for_someone_outside_the_case(
    asking: tuple[BotHarness, McpHub], slack: FakeSlack
) -> None:
    bot, tools = asking
    thread_ts = await investigating(bot)
    await bot.reply(
        thread_ts,
        "what changed?",
        chat_reply("Let me read the deploy note.", tool_requests=[tool_request("deploy_note")]),
    )
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    asked = len(bot.llm.requests)

    await bot.click(card, action_prefix="fm_run_tool", user=STRANGER)
    await bot.click(card, action_prefix="fm_skip_tool")

    (run,) = (await bot.case(thread_ts)).tool_runs
    assert run.status is ToolRunStatus.SKIPPED
    assert await ran_on_the_server(tools) == []
    assert len(bot.llm.requests) == asked
    (refused,) = slack.ephemerals(user=STRANGER)
    assert "Only the people of this case" in refused["text"]
    assert "Skipped" in text_of(
        next(m for m in bot.bot_messages(thread_ts) if m["ts"] == card["ts"])
    )


async def test_with_trust_the_run_needs_no_click_and_its_secrets_reach_neither_model_nor_database(
    trusting: tuple[BotHarness, McpHub], knowledge: FakeKnowledge
) -> None:
    bot, _ = trusting
    thread_ts = await investigating(bot)

    await bot.reply(
        thread_ts,
        "check the config",
        chat_reply("Reading the config.", tool_requests=[tool_request("show_config")]),
        chat_reply("The config names checkout-api.", citations=["fake:show_config#1"]),
    )
    await bot.runtime.worker.wait_idle(20)

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert run.status is ToolRunStatus.RAN
    assert run.consented_by == TRUST
    assert not with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    assert "service=checkout-api" in bot.llm_prompts()
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    kept = (
        bot.llm_prompts()
        + case.model_dump_json()
        + json.dumps([entry.model_dump(mode="json") for entry in audit])
        + json.dumps([c.text for chunks in knowledge.case.values() for c in chunks])
    )
    for secret in (SECRET_KEY, SECRET_PASSWORD):
        assert secret not in kept
    assert any(entry.action == "tool.called" for entry in audit)
    assert "The config names checkout-api." in text_of(bot.bot_messages(thread_ts)[-1])
    status = text_of(await fm(bot, f"status {case.short_id}"))
    assert "Tools run:" in status
    assert "fake show_config {}: ok (" in status
    assert "run by trusted server · fake:show_config#1" in status


async def test_a_tool_outside_the_allowlist_is_never_called_and_a_failing_one_is_one_sentence(
    trusting: tuple[BotHarness, McpHub],
) -> None:
    bot, tools = trusting
    thread_ts = await investigating(bot)

    await bot.reply(
        thread_ts,
        "go on",
        chat_reply(
            "Looking.",
            tool_requests=[tool_request("delete_series", {"match": "up"}), tool_request("failing")],
        ),
        chat_reply("The tool failed; let us look elsewhere."),
    )
    await bot.runtime.worker.wait_idle(20)

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert run.tool == "failing"
    assert run.outcome is not None
    assert run.outcome.value == "error"
    assert "delete_series" not in await ran_on_the_server(tools)
    texts = "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))
    assert "No tool named 'fake__delete_series' is offered" in texts
    assert "fake failing reported an error." in texts
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in bot.llm_prompts() + texts


async def test_the_status_line_says_what_runs_and_a_huge_reply_is_cut_before_anyone_reads_it(
    trusting: tuple[BotHarness, McpHub], slack: FakeSlack
) -> None:
    bot, _ = trusting
    thread_ts = await investigating(bot)
    statuses: set[str] = set()

    asked = await bot.reply(
        thread_ts,
        "go on",
        chat_reply(
            "Looking.",
            tool_requests=[
                tool_request("slow", {"seconds": 1.5}),
                tool_request("huge", {"megabytes": 3}),
            ],
        ),
        chat_reply("The log repeats one timeout."),
        settle=False,
    )

    def running() -> bool:
        statuses.update(slack.workspace.statuses.values())
        return any(status.startswith("is running") for status in statuses)

    await eventually(running, seconds=20)
    await bot.settle()
    await bot.runtime.worker.wait_idle(20)

    assert "is running fake slow, fake huge…" in statuses
    case = await bot.case(thread_ts)
    assert [run.status for run in case.tool_runs] == [ToolRunStatus.RAN, ToolRunStatus.RAN]
    huge = case.tool_runs[1].record
    assert huge is not None
    assert huge.bytes > 3_000_000
    assert huge.kept_bytes <= 64 * 1024 + 200
    assert len(json.dumps(bot.llm.requests[-1])) < 120_000
    lead = text_of(bot.bot_messages(thread_ts)[-1])
    assert "fake huge answered (cut to the first part)." in lead
    assert asked


async def test_a_model_failure_after_a_tool_run_is_retried_with_the_same_result(
    asking: tuple[BotHarness, McpHub], slack: FakeSlack
) -> None:
    bot, tools = asking
    thread_ts = await investigating(bot)
    ask = chat_reply("Let me read the deploy note.", tool_requests=[tool_request("deploy_note")])
    await bot.reply(thread_ts, "what changed?", ask)
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    bot.llm.script(refusal())
    await bot.click(card, action_prefix="fm_run_tool")
    (*_, fault) = bot.bot_messages(thread_ts)
    assert "declined to answer" in text_of(fault)
    asked = len(bot.llm.requests)
    bot.llm.script(chat_reply("Deploy 4812 went out at 03:10Z.", citations=["fake:deploy_note#1"]))

    await bot.click(fault, action_prefix="fm_retry", settle=False)
    await bot.settle(expect=2)  # the click, and the turn recorded again

    assert len(bot.llm.requests) == asked + 1
    assert "Deploy 4812 rolled out" in json.dumps(bot.llm.requests[-1]), "the tool's reply again"
    assert await ran_on_the_server(tools) == ["deploy_note"], "the tool did not run twice"
    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum("Deploy 4812 went out" in text for text in said) == 1
