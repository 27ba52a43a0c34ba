"""The scoring message through its phases, the private answers and the list: snapshots, limits."""

from __future__ import annotations

import pytest

from bot.services.commands import parse_below
from bot.slack.render.limits import fit, problems
from bot.slack.render.message import SlackMessage
from bot.slack.render.scoring.answers import ScoreLink, not_finished, request_answer, scores_list
from bot.slack.render.scoring.message import RenderedScoring, scoring_message
from domain.scoring.lifecycle import to_us
from domain.scoring.model import (
    CaseFacts,
    ConfidenceCheck,
    ScoringPhase,
    ScoringStatus,
    SessionScore,
)
from domain.scoring.requests import RequestOutcome
from tests.fakes.clock import START
from tests.integration.storage.builders import full_case, new_case
from tests.unit.bot.slack.render.snapshots import assert_snapshot

FACTS = CaseFacts(
    requests_made=4,
    requests_answered=3,
    requests_blocked=1,
    unsafe_commands=0,
    evidence_count=3,
    root_cause_stated=True,
    cited_evidence=1,
    root_cause_confidence=0.92,
    confidence_check=ConfidenceCheck.OVERCONFIDENT,
    turns_to_root_cause=5,
    total_turns=8,
)
ANALYSIS = """**Logical flow.** However, it jumped to the release without the pool metrics.
It never asked for `pg_stat_activity` <!channel> and concluded early.

Logical Flow: 14/25
Consistency: 16/25
Tool Relevance: 11/25
Synthesis Quality: 17/25"""
MISSING = "1. **Pool metrics**: would have shown exhaustion directly."
SENTENCE = "The investigation should have asked for the pool metrics before concluding anything. "


def score(status: ScoringStatus = ScoringStatus.PENDING, **changes: object) -> SessionScore:
    base = SessionScore(
        score_id="00000000-0000-0000-0000-000000000001",
        case_id="case_1",
        prompt_hash="d" * 64,
        score_triggered_by="W222",
        scored_at_us=to_us(START),
        started_at_us=to_us(START),
        status=status,
        message_channel="C1",
        message_ts="1.5",
    )
    return base.model_copy(update=changes)


def completed(**changes: object) -> SessionScore:
    values: dict[str, object] = {
        "total_score": 58,
        "score_analysis": ANALYSIS,
        "missing_tools_analysis": MISSING,
        "logical_flow_score": 14,
        "consistency_score": 16,
        "tool_relevance_score": 11,
        "synthesis_quality_score": None,
        "facts": FACTS,
        "phase": ScoringPhase.MISSING_TOOLS,
        "completed_at_us": to_us(START) + 42_000_000,
    }
    values.update(changes)
    return score(ScoringStatus.COMPLETED, **values)


def snapshot(name: str, rendered: RenderedScoring | SlackMessage) -> None:
    message = rendered.message if isinstance(rendered, RenderedScoring) else rendered
    assert problems(message) == []
    assert len(fit(message)) == 1
    assert_snapshot(name, {"text": message.text, "blocks": message.block_dicts()})


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("scoring_queued", score()),
        (
            "scoring_evaluating",
            score(ScoringStatus.IN_PROGRESS, phase=ScoringPhase.EVALUATING, facts=FACTS),
        ),
        (
            "scoring_missing_tools",
            score(ScoringStatus.IN_PROGRESS, phase=ScoringPhase.MISSING_TOOLS, facts=FACTS),
        ),
        (
            "scoring_failed",
            score(
                ScoringStatus.FAILED,
                error_message="The judge model did not answer in time (3 attempts, while "
                "evaluating the investigation).",
                facts=FACTS,
                completed_at_us=to_us(START) + 1,
            ),
        ),
    ],
)
def test_the_message_through_its_phases(name: str, state: SessionScore) -> None:
    snapshot(name, scoring_message(state, case_label="FM-7K3Q", current=True))


def test_the_result_shows_total_tier_categories_facts_analyses_and_criteria() -> None:
    rendered = scoring_message(completed(), case_label="FM-7K3Q", current=False)

    assert rendered.attachment is None
    text = str(rendered.message.block_dicts())
    assert "FM-7K3Q scored 58/100 · 🟡 50–74" in text
    assert "*Synthesis quality:* not given" in text
    assert "&lt;!channel&gt;" in text, "text from the model cannot ping the channel"
    assert "⚠️ older scoring criteria (`/fm score FM-7K3Q --force` re-scores)" in text
    snapshot("scoring_completed", rendered)


@pytest.mark.parametrize(("total", "tier"), [(49, "🔴 below 50"), (50, "🟡 50–74"), (75, "🟢 75")])
def test_the_tier_bands(total: int, tier: str) -> None:
    rendered = scoring_message(completed(total_score=total), case_label="FM-1", current=True)

    assert tier in rendered.message.text


def test_a_long_result_is_a_preview_of_whole_sentences_and_a_file() -> None:
    long = "\n\n".join(SENTENCE * 5 for _ in range(30)) + "\nThe very last sentence."

    rendered = scoring_message(completed(score_analysis=long), case_label="FM-7K3Q", current=True)

    assert rendered.attachment is not None
    assert rendered.attachment.filename == "score-FM-7K3Q.md"
    assert "The very last sentence." in rendered.attachment.content
    assert "- **Logical flow:** 14/25" in rendered.attachment.content
    sections = [b["text"]["text"] for b in rendered.message.block_dicts() if b["type"] == "section"]
    analysis = next(s for s in sections if s.startswith("*Analysis*"))
    assert analysis.endswith("concluding anything.\n…")
    assert "The very last sentence." not in str(rendered.message.block_dicts())
    assert problems(rendered.message) == []
    assert len(fit(rendered.message)) == 1


def test_an_empty_analysis_is_said_plainly() -> None:
    rendered = scoring_message(
        completed(score_analysis="", missing_tools_analysis=None), case_label="FM-1", current=True
    )

    assert "the judge wrote nothing here" in str(rendered.message.block_dicts())


def link(state: SessionScore) -> ScoreLink:
    case = full_case()
    case.short_id = "FM-7K3Q"
    return ScoreLink(state, case, "https://x.slack.com/archives/C1/p15", current=True)


@pytest.mark.parametrize(
    ("outcome", "state", "expected"),
    [
        (RequestOutcome.STARTED, score(), "Scoring `FM-7K3Q` now; follow it <https://x"),
        (RequestOutcome.EXISTING, completed(), "was scored *58/100* (🟡 50–74)"),
        (
            RequestOutcome.EXISTING,
            score(ScoringStatus.FAILED, error_message="It broke."),
            "The last scoring of `FM-7K3Q` failed: It broke. To score it again",
        ),
        (RequestOutcome.EXISTING, score(), "already being scored (waiting for the judge)"),
        (
            RequestOutcome.EXISTING,
            score(ScoringStatus.IN_PROGRESS, phase=ScoringPhase.MISSING_TOOLS),
            "already being scored (identifying the missing evidence and tools)",
        ),
        (RequestOutcome.CONFLICT, score(), "already running, so a new one can't be forced yet"),
    ],
)
def test_the_private_answer_to_each_row_of_the_status_table(
    outcome: RequestOutcome, state: SessionScore, expected: str
) -> None:
    answer = request_answer(outcome, link(state))

    assert expected in answer.text
    assert problems(answer) == []


def test_an_open_case_is_refused_with_its_status() -> None:
    case = new_case()
    case.short_id = "FM-OPEN"

    text = not_finished(case).text

    assert "`FM-OPEN` is still 💬 Being described" in text
    assert "`/fm close FM-OPEN`" in text


def test_the_list_of_recent_scores() -> None:
    older = link(completed(total_score=81))
    missing_link = ScoreLink(completed(total_score=30), older.case, None, current=False)

    listed = scores_list([older, missing_link], below=None)

    snapshot("scores_list", listed)
    assert "Recent scores below 40:* none." in scores_list([], below=40).text


@pytest.mark.parametrize(
    ("args", "below"), [([], None), (["--below", "50"], 50), (["--BELOW", "100"], 100)]
)
def test_below_takes_a_number_from_1_to_100(args: list[str], below: int | None) -> None:
    assert parse_below(args) == below


@pytest.mark.parametrize(
    "args", [["--below"], ["--below", "0"], ["--below", "101"], ["--below", "x"], ["50"]]
)
def test_anything_else_is_not_a_below(args: list[str]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message is for people, not tests
        parse_below(args)
