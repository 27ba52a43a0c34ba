"""Renderers: Block Kit from view models, snapshot-checked and within Slack's limits."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bot.slack.ids import AnswerValue, KbAddMetadata, RequestValue, load_value
from bot.slack.render.case.header import case_header_message, summary_message
from bot.slack.render.case.prompts import confirmation_message, decided_message, superseded_message
from bot.slack.render.case.reply import reply_message
from bot.slack.render.case.uploads import upload_refused, upload_summary
from bot.slack.render.commands import CaseLink, case_list, help_message, kb_results
from bot.slack.render.limits import fit, problems
from bot.slack.render.message import SlackMessage
from bot.slack.render.views import HomeModel, ScoreLine, home_view, kb_add_modal
from bot.thread.header import SUMMARY_GROWTH, SUMMARY_GROWTH_BLOCKS
from domain.budget import LLMSpend
from domain.case import Case
from domain.engine.summary import Mitigation, Phase
from domain.engine.view import ConclusionView, SolutionView
from domain.knowledge import (
    Citation,
    KnowledgeBaseKind,
    KnowledgeResult,
    RetrievedChunk,
    ToolStatus,
)
from domain.lifecycle.confirmations import Decision, StatusChangePayload
from domain.lifecycle.status import CaseStatus
from tests.unit.bot.slack.render.snapshots import assert_snapshot
from tests.unit.bot.slack.render.views import (
    AT,
    fault_reply,
    full_reply,
    ingest_report,
    prompt,
    stuck_reply,
    summary,
)

CASE_ID = "case_000000000001"


def snapshot(name: str, message: SlackMessage) -> None:
    assert problems(message) == []
    assert_snapshot(name, {"text": message.text, "blocks": message.block_dicts()})


def test_the_summary_of_an_ongoing_incident_shows_cause_mitigation_and_next_step() -> None:
    rendered = summary_message(summary())
    text = json.dumps(rendered.block_dicts())
    assert "Ongoing" in text
    assert "70% sure" in text
    assert "proposed, not applied yet" in text
    assert "<@U0ONCALL> to share: Pool metrics" in text
    snapshot("header_investigating", rendered)


def test_a_finished_case_summary_offers_report_and_score_and_says_how_long_it_lasted() -> None:
    rendered = summary_message(
        summary(
            phase=Phase.RESOLVED,
            ended_at=AT + timedelta(minutes=83),
            duration_minutes=83,
            cause_settled=True,
            mitigation=Mitigation.VERIFIED,
            next_step=None,
            waiting_questions=0,
            outcome="Pool raised to 50; error rate back under 0.1%",
        )
    )
    actions = [b for b in rendered.block_dicts() if b["type"] == "actions"]
    assert [e["action_id"] for e in actions[0]["elements"]] == ["fm_report", "fm_score"]
    text = json.dumps(rendered.block_dicts())
    assert "lasted 1 h 23 min" in text
    assert "Next:" not in text
    snapshot("header_closed", rendered)


def test_a_question_named_by_next_is_not_announced_again() -> None:
    asked = summary(next_step="<@U0ONCALL> to answer the question below", waiting_questions=1)
    other = summary(next_step="<@U0ONCALL> to apply the mitigation: roll back", waiting_questions=1)

    assert "❓" not in json.dumps(summary_message(asked).block_dicts(), ensure_ascii=False)
    assert "❓ 1 question is waiting" in json.dumps(
        summary_message(other).block_dicts(), ensure_ascii=False
    ), "Next names something else: the question is said apart"


def test_a_stuck_case_says_so_in_its_summary() -> None:
    text = json.dumps(summary_message(summary(stuck=True, waiting_questions=0)).block_dicts())
    assert "Stuck" in text


def test_a_new_case_header_names_the_problem_from_the_title() -> None:
    case = Case(team_id="T1", channel_id="C1", thread_ts="1.1", user_id="U1", title="db-1 down")
    case.short_id = "FM-ABCD"
    text = json.dumps(case_header_message(case).block_dicts())
    assert "db-1 down" in text
    assert "FM-ABCD" in text
    assert "fm_close_case" in text


def test_a_full_reply_has_the_answer_cards_hypotheses_root_cause_fix_and_sources() -> None:
    snapshot("reply_full", reply_message(full_reply(), case_id=CASE_ID))


def test_a_request_card_button_carries_the_case_and_request() -> None:
    blocks = reply_message(full_reply(), case_id=CASE_ID).block_dicts()
    (button,) = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    value = load_value(RequestValue, button["value"])
    assert (value.case_id, value.request_id) == (CASE_ID, "req_000000000001")
    assert button["action_id"] == "fm_cant_get:req_000000000001"


def test_a_stuck_case_shows_the_escalation_options() -> None:
    snapshot("reply_stuck", reply_message(stuck_reply(), case_id=CASE_ID))


def test_a_model_fault_is_one_warning_sentence() -> None:
    rendered = reply_message(fault_reply(), case_id=CASE_ID)
    assert len(rendered.blocks) == 1
    assert rendered.text.startswith("⚠️ The model did not answer in time")


def test_a_question_has_yes_and_no_buttons_carrying_the_decision() -> None:
    rendered = confirmation_message(prompt(), case_id=CASE_ID, final=False)
    snapshot("prompt_problem_statement", rendered)
    buttons = [e for b in rendered.block_dicts() if b["type"] == "actions" for e in b["elements"]]
    decisions = [load_value(AnswerValue, b["value"]).decision for b in buttons]
    assert decisions == [Decision.YES, Decision.NO]
    assert all("confirm" not in b for b in buttons)


def test_a_final_question_asks_are_you_sure_on_yes_only() -> None:
    closing = prompt(StatusChangePayload(to_status=CaseStatus.CLOSED))
    rendered = confirmation_message(closing, case_id=CASE_ID, final=True)
    buttons = [e for b in rendered.block_dicts() if b["type"] == "actions" for e in b["elements"]]
    assert [("confirm" in b) for b in buttons] == [True, False]
    snapshot("prompt_close", rendered)


def test_a_decided_question_shows_who_decided_and_has_no_buttons() -> None:
    rendered = decided_message("<@U1> answered yes (accepted): Close it?", accepted=True)
    assert rendered.text == "✅ <@U1> answered yes (accepted): Close it?"
    assert all(b["type"] != "actions" for b in rendered.block_dicts())
    assert superseded_message("Old question").text == "(no longer applies) Old question"


def test_an_upload_summary_shows_its_findings_cited_by_line_then_the_counts() -> None:
    rendered = upload_summary(ingest_report())
    text = json.dumps(rendered.block_dicts(), ensure_ascii=False)
    assert "ERROR ×37, new" in text
    assert "📄 `payments.log` — what stands out" in text, "the file is named once, above"
    assert "`:812–1990` (14:41–14:59)" in text, "each finding cites its lines and times only"
    assert "maximumPoolSize=50 → maximumPoolSize=10" in text
    assert "37 errors, 4 warnings" in text
    snapshot("upload_summary", rendered)
    refused = upload_refused("big.log", "it is 40.0 MB and the limit is 25 MB")
    assert "didn't read `big.log`" in refused.text


def test_help_lists_every_subcommand() -> None:
    text = help_message().text + json.dumps(help_message().block_dicts())
    for sub in ("help", "cases", "status", "close", "score", "kb search", "kb add"):
        assert f"/fm {sub}" in text


def test_kb_results_quote_hits_with_their_citation() -> None:
    chunk = RetrievedChunk(
        text="rotate logs when the disk is full",
        citation=Citation(kb=KnowledgeBaseKind.GLOBAL, source="Disk runbook", section="Fix"),
        score=1.0,
    )
    result = KnowledgeResult(
        status=ToolStatus.OK, query="disk", kb=KnowledgeBaseKind.GLOBAL, chunks=[chunk]
    )
    snapshot("kb_results", kb_results("disk full", [result]))


def test_the_home_view_lists_cases_scores_and_knowledge_size() -> None:
    case = Case(
        team_id="T1",
        channel_id="C1",
        thread_ts="1.1",
        user_id="U1",
        title="db-1 down",
        case_id=CASE_ID,
    )
    case.short_id = "FM-ABCD"
    view = home_view(
        HomeModel(
            cases=[CaseLink(case, "https://x.slack.com/archives/C1/p11")],
            scores=[ScoreLine("FM-WXYZ", 82)],
            knowledge_chunks=1234,
        )
    )
    assert_snapshot("home", view.to_dict())
    assert case_list([CaseLink(case, None)]).text == "Open cases: 1"


def test_the_kb_add_modal_carries_where_it_was_opened() -> None:
    view = kb_add_modal(KbAddMetadata(channel_id="C1"))
    assert load_value(KbAddMetadata, view.private_metadata).channel_id == "C1"
    assert_snapshot("kb_add_modal", view.to_dict())


def test_text_from_a_model_cannot_ping_everyone() -> None:
    reply = full_reply().model_copy(update={"text": "<!channel> deploy <@U123> now & <b>"})
    text = reply_message(reply, case_id=CASE_ID).block_dicts()[0]["text"]["text"]
    assert text == "&lt;!channel&gt; deploy <@U123> now &amp; &lt;b&gt;"


@pytest.mark.parametrize("paragraphs", [5, 200])
def test_a_long_answer_is_split_between_sentences_and_over_several_messages(
    paragraphs: int,
) -> None:
    sentence = "The pool was exhausted at 14:05 because traffic doubled after the deploy. "
    long_text = "\n\n".join(sentence * 12 for _ in range(paragraphs))
    reply = full_reply().model_copy(update={"text": long_text})

    parts = fit(reply_message(reply, case_id=CASE_ID))

    assert all(problems(part) == [] for part in parts)
    assert (len(parts) > 1) is (paragraphs == 200)
    answer = [
        b["text"]["text"]
        for part in parts
        for b in part.block_dicts()
        if b["type"] == "section" and b["text"]["text"].startswith("The pool")
    ]
    assert len(answer) > 1
    assert all(section.endswith("deploy.") for section in answer)
    assert sum(section.count("The pool") for section in answer) == 12 * paragraphs


def test_buttons_are_worded_by_the_renderer_for_each_kind_of_question() -> None:
    from bot.slack.render.case.prompts import confirmation_message
    from domain.engine.view import ConfirmationPrompt
    from domain.lifecycle.confirmations import ConfirmationKind, Decision

    refute = ConfirmationPrompt(
        confirmation_id="conf_1",
        kind=ConfirmationKind.REFUTATION,
        prompt="Refute it?",
        options=[Decision.YES, Decision.NO, Decision.UNSURE],
    )
    choose = ConfirmationPrompt(
        confirmation_id="conf_2",
        kind=ConfirmationKind.PATH_CHOICE,
        prompt="Which first?",
        options=[Decision.YES, Decision.NO],
    )

    def labels(prompt: ConfirmationPrompt) -> list[str]:
        blocks = confirmation_message(prompt, case_id="case_1", final=False).block_dicts()
        return [e["text"]["text"] for b in blocks if b["type"] == "actions" for e in b["elements"]]

    assert labels(refute) == [
        "✅ Confirm: evidence is accurate",
        "❌ Dispute: evidence may be wrong",
        "🤔 Not sure: need to verify",
    ]
    assert labels(choose) == ["🩹 Mitigate first", "🔬 Root cause first"]


def test_a_fix_people_vouch_for_is_not_shown_as_verified() -> None:
    vouched = SolutionView(
        solution_id="sol_2",
        title="Rolled checkout-api back to v2.14.0",
        is_mitigation=False,
        state="attested",
        immediate_action="Rolled checkout-api back to v2.14.0",
    )
    reply = full_reply().model_copy(update={"solutions": [vouched]})
    shown = json.dumps(reply_message(reply, case_id=CASE_ID).block_dicts())

    assert "people say it works, not verified by evidence" in shown
    assert "(verified)" not in shown
    assert shown.count("Rolled checkout-api back to v2.14.0") == 1, "its title is what was done"


def test_a_working_conclusion_reads_as_the_likely_cause_so_far_in_plain_words() -> None:
    guess = ConclusionView(statement="the pool shrank in the 14:03 rollout", confidence=0.6)
    reply = full_reply().model_copy(update={"root_cause": None, "working_conclusion": guess})
    shown = json.dumps(reply_message(reply, case_id=CASE_ID).block_dicts())

    assert "*Likely cause so far* (60%): the pool shrank in the 14:03 rollout" in shown
    assert "Working conclusion" not in shown


def test_the_summary_at_its_longest_leaves_the_first_answer_its_room() -> None:
    words = "checkout-api pool exhausted after the rollout " * 40
    longest = summary(
        title=words,
        impact=words,
        cause=words,
        mitigation_title=words,
        outcome=words,
        next_step=words,
        severity="CRITICAL",
        duration_minutes=600,
        stuck=True,
    )
    blocks = summary_message(longest).block_dicts()

    size = sum(len(json.dumps(b, separators=(",", ":"), ensure_ascii=False)) for b in blocks)
    assert size <= SUMMARY_GROWTH, "its growth fits in the room the first answer leaves"


def test_the_summary_grows_by_no_more_blocks_than_an_analysis_under_it_leaves_free() -> None:
    shortest = summary(
        impact="", cause="", mitigation=Mitigation.NONE, next_step="", waiting_questions=0
    )
    longest = summary(next_step="someone else", waiting_questions=2, stuck=True)
    spent = LLMSpend(calls=3, tokens=4_200, cost_usd=0.012)

    grown = len(summary_message(longest, spent).blocks) - len(summary_message(shortest).blocks)

    assert grown <= SUMMARY_GROWTH_BLOCKS
