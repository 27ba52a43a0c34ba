"""Asking a case's questions in a live thread: the case, the payload of each kind, the ask."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from domain.base import utc_now
from domain.case import Case
from domain.engine.present import confirmation_prompt
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationPayload,
    DeliverablesPayload,
    PathChoicePayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from tests.integration.bot.harness import (
    CHANNEL,
    BotHarness,
    with_buttons,
)
from tests.integration.bot.replies import statement_reply
from tests.unit.domain.builders import add_evidence, add_hypothesis, add_solution

JsonDict = dict[str, Any]
Build = Callable[[Case], ConfirmationPayload]


async def open_case(bot: BotHarness, *, investigating: bool) -> str:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    if investigating:
        (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
        await bot.click(question, decision="yes")
        assert (await bot.case(thread_ts)).status is CaseStatus.INVESTIGATING
    return thread_ts


async def ask(bot: BotHarness, thread_ts: str, build: Build) -> JsonDict:
    """Put a question to the thread the way a turn would (rules checked by `propose`)."""
    case = await bot.case(thread_ts)
    asked = propose(case, build(case), now=utc_now(), prompt="Shall I go ahead?")
    services = bot.runtime.services
    saved = await services.cases.save(case)
    await services.presenter.show_prompts(saved, [confirmation_prompt(asked)])
    ts = await services.presenter.prompt_ts(saved, asked.confirmation_id)
    assert ts is not None
    message = bot.slack.message(CHANNEL, ts)
    assert message is not None
    return message


def _refutation(case: Case) -> ConfirmationPayload:
    hypothesis = add_hypothesis(case)
    evidence = add_evidence(case)
    return RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
    )


def _applied(case: Case) -> ConfirmationPayload:
    return SolutionAppliedPayload(solution_id=add_solution(case, mitigation=True).solution_id)


def _verified(case: Case) -> ConfirmationPayload:
    return SolutionVerifiedPayload(solution_id=add_solution(case).solution_id)


def _path(case: Case) -> ConfirmationPayload:
    return PathChoicePayload(
        path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
    )


def _close(case: Case) -> ConfirmationPayload:
    return StatusChangePayload(to_status=CaseStatus.CLOSED, reason="not worth it")


def _report(case: Case) -> ConfirmationPayload:
    return DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT])


def as_older_version(message: JsonDict) -> JsonDict:
    """``message`` as versions before the correction form drew it: No was an answer button."""
    older = json.loads(re.sub(r'"fm_correct:[^"]*"', '"fm_answer:no"', json.dumps(message)))
    assert isinstance(older, dict)
    return older


KINDS: dict[ConfirmationKind, tuple[Build, bool]] = {
    ConfirmationKind.STATUS_CHANGE: (_close, False),
    ConfirmationKind.PATH_CHOICE: (_path, True),
    ConfirmationKind.REFUTATION: (_refutation, True),
    ConfirmationKind.SOLUTION_APPLIED: (_applied, True),
    ConfirmationKind.SOLUTION_VERIFIED: (_verified, True),
}
