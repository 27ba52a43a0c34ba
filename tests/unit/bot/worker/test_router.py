"""One routing table of buttons, after the queue: every action id goes to exactly one service."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.slack.errors import BotError
from bot.slack.ids import ActionId
from bot.worker.router import Jobs


class Taker:
    """Any service: every attribute is a handler that notes what it took."""

    def __init__(self, name: str, took: list[tuple[str, str]]) -> None:
        self._name = name
        self._took = took

    def __getattr__(self, method: str) -> Any:
        async def handle(*, work: Any) -> None:
            self._took.append((f"{self._name}.{method}", work.action_id))

        return handle


def test_every_action_id_has_a_route() -> None:
    took: list[tuple[str, str]] = []
    services = SimpleNamespace(
        clicks=Taker("clicks", took),
        remediation=Taker("remediation", took),
        feedback=Taker("feedback", took),
        retries=Taker("retries", took),
        commands=Taker("commands", took),
        tools=Taker("tools", took),
        memory=Taker("memory", took),
        steps=Taker("steps", took),
        stuck=Taker("stuck", took),
    )

    assert Jobs(services).buttons == frozenset(ActionId)  # type: ignore[arg-type]


async def test_a_click_goes_to_the_one_service_its_action_id_names() -> None:
    took: list[tuple[str, str]] = []
    services = SimpleNamespace(
        clicks=Taker("clicks", took),
        remediation=Taker("remediation", took),
        feedback=Taker("feedback", took),
        retries=Taker("retries", took),
        commands=Taker("commands", took),
        tools=Taker("tools", took),
        memory=Taker("memory", took),
        steps=Taker("steps", took),
        stuck=Taker("stuck", took),
    )
    jobs = Jobs(services)  # type: ignore[arg-type]

    for action in (
        "fm_answer:yes",
        "fm_approve:rem_1",
        "fm_cant_get:req_1",
        "fm_feedback",
        "fm_retry",
        "fm_run_tool:tool_1",
        "fm_skip_tool:tool_1",
        "fm_use_runbook",
        "fm_case_status",
        "fm_applied:sol_1",
        "fm_not_now:sol_1",
        "fm_undo:cf_1",
        "fm_stuck:escalate",
    ):
        await jobs._click(SimpleNamespace(action_id=action))  # type: ignore[arg-type]

    assert took == [
        ("clicks.answer", "fm_answer:yes"),
        ("remediation.decide", "fm_approve:rem_1"),
        ("clicks.cant_get", "fm_cant_get:req_1"),
        ("feedback.rate", "fm_feedback"),
        ("retries.retry", "fm_retry"),
        ("tools.run", "fm_run_tool:tool_1"),
        ("tools.skip", "fm_skip_tool:tool_1"),
        ("memory.use_runbook", "fm_use_runbook"),
        ("commands.case_status", "fm_case_status"),
        ("steps.applied", "fm_applied:sol_1"),
        ("steps.not_now", "fm_not_now:sol_1"),
        ("steps.undo", "fm_undo:cf_1"),
        ("stuck.choose", "fm_stuck:escalate"),
    ]


async def test_a_tool_button_without_tools_configured_is_told_not_run() -> None:
    took: list[tuple[str, str]] = []
    services = SimpleNamespace(
        clicks=Taker("clicks", took),
        remediation=Taker("remediation", took),
        feedback=Taker("feedback", took),
        retries=Taker("retries", took),
        commands=Taker("commands", took),
        tools=None,
        memory=None,
        steps=None,
        stuck=None,
    )
    jobs = Jobs(services)  # type: ignore[arg-type]

    with pytest.raises(BotError, match="not configured"):
        await jobs._click(SimpleNamespace(action_id="fm_run_tool:tool_1"))  # type: ignore[arg-type]

    assert took == []


async def test_a_runbook_button_where_past_cases_cannot_be_searched_is_told_not_run() -> None:
    took: list[tuple[str, str]] = []
    services = SimpleNamespace(
        clicks=Taker("clicks", took),
        remediation=Taker("remediation", took),
        feedback=Taker("feedback", took),
        retries=Taker("retries", took),
        commands=Taker("commands", took),
        tools=None,
        memory=None,
        steps=None,
        stuck=None,
    )
    jobs = Jobs(services)  # type: ignore[arg-type]

    with pytest.raises(BotError, match="Past cases cannot be searched"):
        await jobs._click(SimpleNamespace(action_id="fm_use_runbook"))  # type: ignore[arg-type]

    assert took == []
