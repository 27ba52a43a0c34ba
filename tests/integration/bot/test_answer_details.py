"""The answer to an upload, read as the on-call engineer reads it: short, the rest behind Details.

Over real HTTP with the fake Slack: the answer opens with what it concludes, shows at most three
findings, fits a phone (about 1,500 characters), and its Details button opens a modal (in the
click's three-second trigger window) holding what the thread leaves out: the alternatives, the
evidence for and missing, the mitigation's steps and the permanent fix.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.demo.visible import visible_length
from tests.fakes.models.llm_server import Scripted
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.budget import ThreadBudget
from tests.integration.bot.harness import (
    APP_TOKEN,
    BOT_TOKEN,
    BotHarness,
    eventually,
    find_button,
    with_buttons,
)
from tests.integration.bot.incident import incident_bot
from tests.integration.bot.incident_replies import (
    CITED,
    EVIDENCE,
    FIX,
    ROLLBACK,
    ROOT_CAUSE,
    CitingModelServer,
    logs_request_reply,
    second_look_reply,
    statement_reply,
    verification,
)
from tests.integration.bot.incident_story import DAY, LOG_NAME, OPENING, UPLOAD_TEXT, log_on
from tests.integration.engine.thread import json_reply

ALTERNATIVE = "The database hit its own max_connections"
ANSWER_CHARS = 1_500


def root_cause_with_alternatives(answers: list[str]) -> Scripted:
    """The incident's root cause, with an alternative judged less likely and a caveat."""
    before, after, timeout = (f"{{{{cite:{needle}}}}}" for needle in CITED)
    root = {
        **ROOT_CAUSE,
        "alternative_explanations": [
            {
                "hypothesis": ALTERNATIVE,
                "confidence": 0.25,
                "why_less_likely": "only checkout-api's pool logs timeouts",
            }
        ],
        "caveats": ["the database's own connection count was not seen"],
    }
    return json_reply(
        "The 14:03 rollout shrank the database pool, and the 502s are checkouts that gave up "
        f"waiting for a connection: `maximumPoolSize=50`{before} became "
        f"`maximumPoolSize=10`{after}, and from 14:05 every 502 follows a pool timeout{timeout}.",
        milestones={"symptom_verified": True, "root_cause_identified": True},
        verification_updates=verification(DAY),
        evidence_to_add=EVIDENCE,
        root_cause_conclusion=root,
        solutions_to_add=[ROLLBACK, FIX],
        classification={
            "matched_request_ids": answers,
            "completeness": "complete",
            "completeness_score": 0.9,
            "form": "document",
            "evidence_type": "supportive",
            "user_intent": "providing_evidence",
            "rationale": "the application log",
        },
        outcome="milestone_completed",
        citations=[before, after, timeout],
    )


async def _to_the_answer(bot: BotHarness, budget: ThreadBudget) -> str:
    thread_ts = await budget.act("mention", bot.mention(OPENING, statement_reply()))
    bot.llm.script(logs_request_reply())
    asked = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    await budget.act("confirm", bot.click(asked, decision="yes"))
    case = await bot.case(thread_ts)
    answers = [r.request_id for r in case.evidence_requests]
    shared = bot.slack.add_file(LOG_NAME, log_on(DAY))
    await budget.act(
        "upload",
        bot.reply(
            thread_ts,
            UPLOAD_TEXT,
            root_cause_with_alternatives(answers),
            second_look_reply(),
            files=[shared],
        ),
    )
    return thread_ts


async def test_the_answer_to_an_upload_is_short_and_its_details_hold_the_rest(
    tmp_path: Path,
) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        budget = ThreadBudget(bot)
        thread_ts = await _to_the_answer(bot, budget)
        answer = bot.bot_messages(thread_ts)[-1]
        shown = json.dumps(answer["blocks"], ensure_ascii=False)

        assert answer["text"].startswith("The 14:03 rollout"), "it opens with what it concludes"
        assert answer["blocks"][0]["text"]["text"].startswith("The 14:03 rollout")
        assert visible_length(answer) <= ANSWER_CHARS, visible_length(answer)
        findings = [
            line
            for block in answer["blocks"]
            if "what stands out" in (block.get("text") or {}).get("text", "")
            for line in block["text"]["text"].splitlines()
            if line.startswith("• ")
        ]
        assert 1 <= len(findings) <= 3, findings
        assert f"`{LOG_NAME}:" not in "\n".join(findings), "the file is named once, above"
        assert "kubectl rollout undo deploy/checkout-api -n shop" in shown, "the mitigation"
        for left_out in (ALTERNATIVE, "Supporting evidence", "hikaricp_connections_pending"):
            assert left_out not in shown, f"{left_out!r} belongs in the Details"

        details = find_button(answer, "fm_details")
        before = set(slack.workspace.views)
        status = await bot.click(answer, action_prefix="fm_details", settle=False)
        assert status == 200
        await eventually(lambda: len(slack.workspace.views) > len(before))
        (opened,) = [v for key, v in slack.workspace.views.items() if key not in before]
        modal = json.dumps(opened["blocks"], ensure_ascii=False)

        assert opened["type"] == "modal"
        assert details["value"]
        assert opened["title"]["text"] == "Details"
        assert ALTERNATIVE in modal, "the alternatives"
        assert "the database's own connection count was not seen" in modal, "the caveats"
        assert "Set spring.datasource.hikari.maximum-pool-size back to 50" in modal, "the fix"
        assert "alert on hikaricp_connections_pending" in modal, "the fix's steps"
        assert f"`{LOG_NAME}:" in modal, "every finding, cited with its file"
        budget.check(thread_ts)


async def test_details_of_another_workspace_s_case_open_nothing(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        thread_ts = await _to_the_answer(bot, ThreadBudget(bot))
        answer = bot.bot_messages(thread_ts)[-1]
        case = await bot.case(thread_ts)
        case.team_id = "T0OTHER"
        await bot.runtime.repositories.cases.save(case)
        before = dict(slack.workspace.views)

        await bot.click(answer, action_prefix="fm_details")

        assert slack.workspace.views == before, "no modal for a case of another workspace"


async def test_quick_suggestions_are_shown_under_the_answer_and_unsafe_ones_withheld(
    tmp_path: Path,
) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        suggested = json_reply(
            "Replica lag would explain stale reads; worth a look while we narrow it down.",
            quick_suggestions=["`kubectl top pods -n db`", "`kubectl delete namespace db`"],
        )
        thread_ts = await bot.mention("db-1 reads are stale", suggested)
        shown = json.dumps(bot.bot_messages(thread_ts)[-1]["blocks"], ensure_ascii=False)

        assert "💡 *Try now:* `kubectl top pods -n db`" in shown
        assert "kubectl delete namespace db" not in shown, "never shown: withheld, and said so"
        assert "Withheld" in shown
