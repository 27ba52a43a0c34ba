"""How well stated root-cause confidence matched what people confirmed: `/fm calibration`, Home."""

from __future__ import annotations

from slack_sdk.models.blocks import Block

from bot.slack.render.message import SlackMessage, bullets, context, header, message, sections
from bot.slack.render.text import code, percent
from domain.calibration import Bin
from domain.outcomes import MIN_POINTS, CalibrationSummary, ModelLine, Verdict

NONE_YET = (
    "No finished cases graded yet. An outcome is recorded when a case is resolved: its root "
    "cause counts as right or wrong from the 👍 / 👎 under it and from what fixed the case."
)
HOW_TO_READ = (
    "Right means people confirmed the stated root cause (👍, or the fix named it); wrong means "
    "they contradicted it. Well calibrated: each confidence range is right about as often as it "
    "says."
)


def calibration_text(summary: CalibrationSummary, *, last: int) -> str:
    """Counts and hit rates per confidence range and per model, Brier and ECE when they mean it."""
    if not summary.considered:
        return NONE_YET
    verdicts = summary.verdicts
    lines = [
        f"*The last {summary.considered} outcomes* (of up to {last}): "
        f"✅ {verdicts[Verdict.RIGHT]} right · ❌ {verdicts[Verdict.WRONG]} wrong · "
        f"❔ {verdicts[Verdict.UNKNOWN]} unknown · ➖ {verdicts[Verdict.NO_OUTCOME]} no outcome "
        "(closed without a fix, or no root cause stated)",
        "*By stated confidence*\n" + bullets(_bin_line(b) for b in summary.bins),
    ]
    if summary.models:
        lines.append("*By model*\n" + bullets(_model_line(m) for m in summary.models))
    lines.append(_scores(summary))
    return "\n".join(lines)


def _bin_line(rows: Bin) -> str:
    span = f"{percent(rows.lower)}–{percent(rows.upper)}"
    if rows.accuracy is None or rows.mean_confidence is None:
        return f"{span}: none"
    right = round(rows.accuracy * rows.count)
    return (
        f"{span}: {rows.count} · {right} right ({percent(rows.accuracy)}), "
        f"stated {percent(rows.mean_confidence)} on average"
    )


def _model_line(line: ModelLine) -> str:
    rate = percent(line.right / line.graded) if line.graded else "–"
    return f"{code(line.model)}: {line.graded} graded · {line.right} right ({rate})"


def _scores(summary: CalibrationSummary) -> str:
    if summary.brier is None or summary.ece is None:
        return (
            f"_Too few to mean anything yet: {summary.graded} graded outcome(s); Brier and ECE "
            f"are shown from {MIN_POINTS}._"
        )
    return (
        f"*Brier* {summary.brier:.3f} (0 is perfect; always saying 50% scores 0.250) · "
        f"*ECE* {summary.ece:.3f} (average gap between stated confidence and hit rate)"
    )


def calibration_message(summary: CalibrationSummary, *, last: int) -> SlackMessage:
    """The private answer to `/fm calibration`."""
    blocks = [header("📏 Calibration"), *sections(calibration_text(summary, last=last))]
    if summary.considered:
        blocks += context(HOW_TO_READ)
    return message(blocks, text=f"Calibration of the last {summary.considered} outcomes")


def calibration_section(summary: CalibrationSummary, *, last: int) -> list[Block]:
    """The App Home's calibration section."""
    return [header("Calibration"), *sections(calibration_text(summary, last=last))]
