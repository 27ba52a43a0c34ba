"""Scoring in Slack: one message in the case thread, rewritten from "queued" to the result.

The result shows the total and its tier, the four categories, the deterministic facts, who asked,
when, and whether the criteria are current. The judge's analyses are shown whole when they fit one
message (Slack folds long sections behind "Show more"); otherwise a preview of whole sentences is
shown and the full text is shared as a markdown file in the thread. Nothing is cut mid-sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from slack_sdk.models.blocks import Block, MarkdownTextObject, SectionBlock

from bot.slack.render.limits import fit
from bot.slack.render.markdown import to_mrkdwn
from bot.slack.render.message import SlackMessage, context, header, message, sections
from bot.slack.render.text import split_text
from domain.scoring.lifecycle import from_us
from domain.scoring.model import (
    CATEGORY_MAX,
    CaseFacts,
    Category,
    ConfidenceCheck,
    ScoreTier,
    ScoringPhase,
    ScoringStatus,
    SessionScore,
)

TIER_LABELS = {
    ScoreTier.LOW: "🔴 below 50",
    ScoreTier.MIDDLE: "🟡 50–74",
    ScoreTier.HIGH: "🟢 75 and above",
}
CATEGORY_LABELS = {
    Category.LOGICAL_FLOW: "Logical flow",
    Category.CONSISTENCY: "Consistency",
    Category.TOOL_RELEVANCE: "Tool relevance",
    Category.SYNTHESIS_QUALITY: "Synthesis quality",
}
STEPS = (
    (ScoringPhase.EVALUATING, "Evaluating the investigation"),
    (ScoringPhase.MISSING_TOOLS, "Identifying missing evidence and tools"),
)
PREVIEW_CHARS = 1200
NO_ANALYSIS = "_(the judge wrote nothing here)_"


@dataclass(frozen=True)
class ScoreFile:
    """The full result as a markdown file, shared when the message can only hold a preview."""

    filename: str
    title: str
    content: str


@dataclass(frozen=True)
class RenderedScoring:
    """The message, and the file to share with it (only for a long result)."""

    message: SlackMessage
    attachment: ScoreFile | None = None


def when(us: int) -> str:
    """A microsecond timestamp as people read it."""
    return from_us(us).strftime("%Y-%m-%d %H:%M UTC")


def tier_label(total: int) -> str:
    """🔴 below 50 / 🟡 50–74 / 🟢 75 and above."""
    return TIER_LABELS[ScoreTier.of(total)]


def criteria_note(current: bool, case_label: str) -> str:
    """Whether the scoring was made with the criteria this version ships."""
    if current:
        return "✅ current scoring criteria"
    return f"⚠️ older scoring criteria (`/fm score {case_label} --force` re-scores)"


def scoring_message(score: SessionScore, *, case_label: str, current: bool) -> RenderedScoring:
    """The thread message for a scoring in any status."""
    if score.status is ScoringStatus.COMPLETED:
        return _result(score, case_label, current)
    if score.status is ScoringStatus.FAILED:
        return RenderedScoring(_failed(score, case_label))
    return RenderedScoring(_running(score, case_label))


def _running(score: SessionScore, case_label: str) -> SlackMessage:
    if score.status is ScoringStatus.PENDING:
        steps = "⏳ Queued: the judge starts in a moment."
    else:
        reached = [phase for phase, _ in STEPS].index(score.phase or ScoringPhase.EVALUATING)
        steps = "\n".join(_step(i, reached, label) for i, (_, label) in enumerate(STEPS))
    blocks: list[Block] = [header(f"🏅 Scoring {case_label}…"), *sections(steps)]
    blocks += _facts_blocks(score.facts)
    blocks += context(_asked(score))
    return message(blocks, text=f"Scoring {case_label}…")


def _step(index: int, reached: int, label: str) -> str:
    if index < reached:
        return f"✅ {label}"
    if index == reached:
        return f"⏳ {label}…"
    return f"▫️ {label}"


def _failed(score: SessionScore, case_label: str) -> SlackMessage:
    reason = score.error_message or "The scoring stopped."
    blocks: list[Block] = [header(f"🏅 Scoring {case_label} failed")]
    blocks += sections(
        f"❌ {to_mrkdwn(reason)}\nNothing was scored. `/fm score {case_label} --force` tries again."
    )
    blocks += _facts_blocks(score.facts)
    blocks += context(_asked(score))
    return message(blocks, text=f"Scoring {case_label} failed: {reason}")


def _result(score: SessionScore, case_label: str, current: bool) -> RenderedScoring:
    whole = _result_message(score, case_label, current, preview=False)
    if len(fit(whole)) == 1:
        return RenderedScoring(whole)
    preview = _result_message(score, case_label, current, preview=True)
    return RenderedScoring(preview, score_file(score, case_label=case_label, current=current))


def _result_message(
    score: SessionScore, case_label: str, current: bool, *, preview: bool
) -> SlackMessage:
    total = score.total_score or 0
    blocks: list[Block] = [header(f"🏅 {case_label} scored {total}/100 · {tier_label(total)}")]
    blocks.append(
        SectionBlock(
            text=MarkdownTextObject(text=f"*Categories* ({CATEGORY_MAX} points each)"),
            fields=[MarkdownTextObject(text=f) for f in _category_fields(score)],
        )
    )
    blocks += _facts_blocks(score.facts)
    blocks += _analysis("Analysis", _without_scores(score.score_analysis), preview=preview)
    blocks += _analysis("Missing evidence and tools", score.missing_tools_analysis, preview=preview)
    if preview:
        blocks += sections("📎 The full analysis is in the file below.")
    blocks += context(_asked(score), criteria_note(current, case_label))
    return message(blocks, text=f"{case_label} scored {total}/100 ({tier_label(total)})")


def _category_fields(score: SessionScore) -> list[str]:
    fields = []
    for category, points in score.category_scores().items():
        shown = "not given" if points is None else f"{points}/{CATEGORY_MAX}"
        fields.append(f"*{CATEGORY_LABELS[category]}:* {shown}")
    return fields


_SCORE_LINE = re.compile(
    r"[\W_]*(?:logical\s*flow|consistency|tool\s*relevance|synthesis\s*quality)[\W_]*"
    r"\d+\s*/\s*25[\W_]*",
    re.IGNORECASE,
)


def _without_scores(text: str | None) -> str | None:
    """The judge's analysis without its lines that only restate a category's points (the
    message shows them as fields above; the file keeps the analysis whole)."""
    if text is None:
        return None
    kept = [line for line in text.splitlines() if not _SCORE_LINE.fullmatch(line.strip())]
    return "\n".join(kept).strip()


def _analysis(title: str, text: str | None, *, preview: bool) -> list[Block]:
    body = (text or "").strip()
    if not body:
        return sections(f"*{title}*\n{NO_ANALYSIS}")
    if preview:
        pieces = split_text(body, PREVIEW_CHARS)
        body = pieces[0] + ("\n…" if len(pieces) > 1 else "")
    return sections(f"*{title}*\n{to_mrkdwn(body)}")


def _facts_blocks(facts: CaseFacts | None) -> list[Block]:
    return sections("*Facts (counted, not judged)*\n" + facts_text(facts)) if facts else []


def facts_text(facts: CaseFacts) -> str:
    """The deterministic facts with ✅ / ⚠️ where they say something about quality."""
    requests = (
        f"• Evidence requests: {facts.requests_made} made · {facts.requests_answered} answered"
        f" · {facts.requests_blocked} blocked"
    )
    destructive = "✅ 0" if facts.unsafe_commands == 0 else f"⚠️ {facts.unsafe_commands}"
    commands = (
        f"• Actions proposed: {facts.actions_proposed} · "
        f"State-changing commands shown: {facts.changing_commands_shown} · "
        f"Destructive commands suggested: {destructive}"
    )
    lines = [requests, commands]
    if not facts.root_cause_stated:
        lines.append("• Root cause: ⚠️ none stated")
    else:
        cites = (
            f"✅ yes ({_items(facts.cited_evidence, 'evidence item')})"
            if facts.root_cause_cites_evidence
            else "⚠️ no"
        )
        lines.append(f"• Root cause cites evidence: {cites}")
        lines.append(f"• Confidence vs evidence: {_confidence(facts)}")
    reached = (
        f"{facts.turns_to_root_cause} of {facts.total_turns}"
        if facts.turns_to_root_cause is not None
        else f"not recorded ({facts.total_turns} turns)"
    )
    lines.append(f"• Turns to root cause: {reached}")
    return "\n".join(lines)


def _items(count: int, noun: str) -> str:
    """``1 evidence item``, ``2 evidence items``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _confidence(facts: CaseFacts) -> str:
    confidence = round((facts.root_cause_confidence or 0.0) * 100)
    basis = (
        f"{confidence}% with {_items(facts.evidence_count, 'evidence item')}, "
        f"{facts.cited_evidence} cited"
    )
    if facts.confidence_check is ConfidenceCheck.CALIBRATED:
        return f"✅ {basis}"
    return f"⚠️ {basis}: more confident than the cited evidence supports"


def _asked(score: SessionScore) -> str:
    asked = f"Asked by <@{score.score_triggered_by}> at {when(score.scored_at_us)}"
    if score.completed_at_us is not None:
        asked += f" · finished {when(score.completed_at_us)}"
    return asked


def score_file(score: SessionScore, *, case_label: str, current: bool) -> ScoreFile:
    """The whole result as markdown (for results too long for one message)."""
    total = score.total_score or 0
    categories = "\n".join(f"- {field.replace('*', '**')}" for field in _category_fields(score))
    facts = facts_text(score.facts).replace("• ", "- ") if score.facts else "- not computed"
    content = "\n\n".join(
        [
            f"# Score of {case_label}: {total}/100 ({tier_label(total)})",
            categories,
            f"## Facts (counted, not judged)\n{facts}",
            f"## Analysis\n{(score.score_analysis or '').strip() or '(none)'}",
            f"## Missing evidence and tools\n{(score.missing_tools_analysis or '').strip()}",
            f"---\nAsked by {score.score_triggered_by} at {when(score.scored_at_us)}; "
            f"criteria {score.prompt_hash[:12]} ({'current' if current else 'older'}).",
        ]
    )
    return ScoreFile(
        filename=f"score-{case_label}.md",
        title=f"Score of {case_label}: {total}/100",
        content=content + "\n",
    )
