"""Alerts end to end: the bot with an alert channel, the test catalog and a fake automation.

`alert_bot(...)` starts a BotHarness whose alert endpoint takes `ALERT_TOKEN`, whose alert channel
is the harness channel, whose catalog is `tests/data/workflows/` searched through LanceDB (with
the hashing embedder, so no model loads), and whose Slack retries come after a fraction of a second.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.adapters.catalog_files import load_catalog
from domain.lifecycle.confirmations import Decision, StatusChangePayload
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.retry import RetryPolicy
from rag.store.workflow_index import LanceWorkflowIndex
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import Scripted, ScriptedModelServer, reply
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, BotHarness, JsonDict, buttons, text_of
from tests.paths import WORKFLOWS
from tests.unit.domain.workflows.catalog_data import findings
from tests.unit.domain.workflows.catalog_data import reply as rca_reply

ALERT_TOKEN = "test-alert-token-0123456789"
WORK_RETRY = RetryPolicy(attempts=4, first_delay_s=0.2)
"""Slack retries come after a fraction of a second in the tests."""
LARGE_BODY = 512 * 1024


async def alert_bot(
    slack: FakeSlack,
    llm: ScriptedModelServer,
    data_dir: Path,
    *,
    catalog: bool = True,
    env: dict[str, str] | None = None,
    **options: Any,
) -> BotHarness:
    """A bot that takes alerts into CHANNEL (and has the test catalog unless told otherwise)."""
    settings = {"FM_ALERT_TOKEN": ALERT_TOKEN, "FM_ALERT_CHANNEL": CHANNEL, **(env or {})}
    chosen: dict[str, Any] = {"work_retry": WORK_RETRY, **options}
    if catalog:
        settings["FM_WORKFLOW_CATALOG_DIR"] = str(WORKFLOWS)
        index = await LanceWorkflowIndex.open(
            str(data_dir / "workflow-index"), HashingEmbedder(), load_catalog(WORKFLOWS)
        )
        chosen.setdefault("workflow_index", index)
    knowledge = chosen.pop("knowledge", FakeKnowledge())
    return await BotHarness.start(slack, llm, data_dir, knowledge=knowledge, env=settings, **chosen)


async def post_alert(
    bot: BotHarness,
    payload: JsonDict | bytes,
    *,
    token: str | None = ALERT_TOKEN,
    scheme: str = "Bearer",
) -> tuple[int, JsonDict]:
    """POST a notification to the alert endpoint; return the status and the JSON answer."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"{scheme} {token}"
    # A large body goes as a stream (aiohttp warns about big raw bytes).
    data = io.BytesIO(body) if len(body) > LARGE_BODY else body
    async with bot.session.post(
        f"{bot.url}/alerts/alertmanager", data=data, headers=headers
    ) as response:
        return response.status, await response.json(content_type=None)


def analysis(*strategies: dict[str, Any], **changes: Any) -> tuple[Scripted, Scripted]:
    """The two model replies of an analysis: the RCA findings, then the strategies."""
    found = {key: value for key, value in changes.items() if key in findings()}
    final = {key: value for key, value in changes.items() if key not in found}
    return reply(findings(**found)), reply(rca_reply(*strategies, **final))


def alert_messages(bot: BotHarness) -> list[JsonDict]:
    """The alerts the bot posted at the top level of the alert channel."""
    return [m for m in bot.slack.messages(CHANNEL) if m.get("bot_id")]


def with_strategy_buttons(bot: BotHarness, thread_ts: str) -> list[JsonDict]:
    """Each workflow the thread offers with Approve / Reject, in order: its message (the
    analysis they are offered under), narrowed to that workflow's words and buttons."""
    offered = []
    for m in bot.thread(thread_ts):
        blocks = m.get("blocks") or []
        for at, block in enumerate(blocks):
            if block.get("type") == "actions" and any(
                b["action_id"].startswith("fm_approve") for b in buttons({"blocks": [block]})
            ):
                offered.append({**m, "blocks": blocks[max(at - 1, 0) : at + 1]})
    return offered


def thread_text(bot: BotHarness, thread_ts: str) -> str:
    """Everything the thread shows, as one string."""
    return "\n".join(text_of(m) for m in bot.thread(thread_ts))


async def close_case(bot: BotHarness, thread_ts: str, *, by: str = "W333") -> None:
    """Someone closed the alert's case (a confirmed status change, as the buttons would do)."""
    case = await bot.case(thread_ts)
    now = datetime.now(UTC)
    payload = StatusChangePayload(
        to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.OTHER, reason="handled"
    )
    asked = propose(case, payload, now=now, proposed_by=by, answerable_by=[by])
    answer(case, asked.confirmation_id, by=by, decision=Decision.YES, now=now)
    await bot.runtime.repositories.cases.save(case)
