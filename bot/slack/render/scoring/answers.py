"""What people are told privately about scoring: the answer to a request, and recent scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.slack.render.case.header import STATUS_LABELS
from bot.slack.render.commands import notice
from bot.slack.render.message import SlackMessage, bullets, message, sections
from bot.slack.render.scoring.message import criteria_note, tier_label, when
from bot.slack.render.text import code, escape, shorten
from domain.case import Case
from domain.scoring.job import PHASE_WORDS
from domain.scoring.model import ScoringStatus, SessionScore
from domain.scoring.requests import RequestOutcome

NO_JUDGE = (
    "Scoring needs a language model for the judge, and none is configured "
    "(set FM_LLM_MODEL or FM_LLM_JUDGE_MODEL)."
)
NOT_A_CASE = (
    "This thread isn't a FaultMaven case, so there is nothing to score. Use *Score "
    "investigation* on a message inside a case thread, or `/fm score <case>`."
)


@dataclass(frozen=True)
class ScoreLink:
    """A scoring, the case it graded, and a link to its message in the thread."""

    score: SessionScore
    case: Case
    link: str | None
    current: bool

    @property
    def label(self) -> str:
        """The case id people type."""
        return self.case.short_id or self.case.case_id


def not_finished(case: Case) -> SlackMessage:
    """Why an open case cannot be scored yet."""
    label = case.short_id or case.case_id
    return notice(
        f"{code(label)} is still {STATUS_LABELS[case.status]}: only resolved or closed cases can "
        f"be scored. Resolve it in its thread, or close it with `/fm close {label}`, then score it."
    )


def request_answer(outcome: RequestOutcome, item: ScoreLink) -> SlackMessage:
    """The private answer to `/fm score`, the Score button or the shortcut."""
    score, label = item.score, item.label
    there = _linked(item.link, "in its thread")
    if outcome is RequestOutcome.STARTED:
        return notice(f"🏅 Scoring {code(label)} now; follow it {there}.")
    if outcome is RequestOutcome.CONFLICT:
        return notice(
            f"A scoring of {code(label)} is already running, so a new one can't be forced yet; "
            f"follow it {there} and force one once it has finished."
        )
    return _existing(score, label, there, item.current)


def _existing(score: SessionScore, label: str, there: str, current: bool) -> SlackMessage:
    again = f"To score it again: `/fm score {label} --force`."
    if score.status is ScoringStatus.COMPLETED and score.total_score is not None:
        total = score.total_score
        return notice(
            f"{code(label)} was scored *{total}/100* ({tier_label(total)}) at "
            f"{when(score.completed_at_us or score.scored_at_us)}, asked by "
            f"<@{score.score_triggered_by}>; see the result {there}. "
            f"{criteria_note(current, label)}. {again}"
        )
    if score.status is ScoringStatus.FAILED:
        reason = escape(score.error_message or "no reason was recorded")
        return notice(f"The last scoring of {code(label)} failed: {reason} {again}")
    doing = PHASE_WORDS[score.phase] if score.phase else "waiting for the judge"
    return notice(f"{code(label)} is already being scored ({doing}); follow it {there}.")


def scores_list(items: Sequence[ScoreLink], *, below: int | None) -> SlackMessage:
    """Recent completed scores with links to their threads (`/fm scores [--below N]`)."""
    heading = "Recent scores" + (f" below {below}" if below is not None else "")
    if not items:
        empty = "none yet." if below is None else "none."
        return notice(f"*{heading}:* {empty} `/fm score <case>` grades a finished case.")
    lines = [_score_line(item) for item in items]
    text = f"*{heading} ({len(items)}):*\n" + bullets(lines)
    return message(sections(text), text=f"{heading}: {len(items)}")


def _score_line(item: ScoreLink) -> str:
    score = item.score
    total = score.total_score or 0
    title = escape(shorten(item.case.title or "untitled", 80))
    older = "" if item.current else " · ⚠️ older criteria"
    finished = when(score.completed_at_us or score.scored_at_us)
    return (
        f"{_linked(item.link, item.label, fallback=code(item.label))} · *{total}/100* "
        f"{tier_label(total)} · {finished} · {title}{older}"
    )


def _linked(url: str | None, text: str, *, fallback: str | None = None) -> str:
    """A Slack link, or the text alone where there is no link (the console)."""
    return f"<{url}|{text}>" if url else (fallback or text)
