"""Surfaces that are not messages: the App Home tab and the modals (`kb add`, correcting the
problem statement)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from slack_sdk.models.blocks import (
    Block,
    InputBlock,
    PlainTextInputElement,
    PlainTextObject,
)
from slack_sdk.models.views import View

from bot.slack.ids import CallbackId, CorrectionInput, CorrectionMetadata, KbAddMetadata, KbInput
from bot.slack.render.commands import CaseLink, case_line
from bot.slack.render.message import bullets, context, divider, header, sections
from bot.slack.render.scoring.calibration import calibration_section
from bot.slack.render.scoring.message import tier_label
from bot.slack.render.text import code
from domain.budget import LLMSpend
from domain.outcomes import CalibrationSummary

HOME_MAX_CASES = 20


@dataclass(frozen=True)
class ScoreLine:
    """A recent score with the case it graded."""

    case_label: str
    score: int | None
    link: str | None = None


@dataclass(frozen=True)
class HomeModel:
    """What the App Home shows one person."""

    cases: Sequence[CaseLink]
    scores: Sequence[ScoreLine]
    knowledge_chunks: int | None
    calibration: CalibrationSummary | None = None
    """Recent outcomes' calibration (no section when None)."""
    calibration_last: int = 0
    spend_today: LLMSpend | None = None
    """What the model cost the workspace today (no line when None)."""


def home_view(model: HomeModel) -> View:
    """Your open cases with links, recent scores, calibration, knowledge-base size."""
    blocks: list[Block] = [header("FaultMaven")]
    blocks += sections(
        "Mention me in a channel, or use *Investigate* on a message, to open a case."
    )
    blocks += [divider(), header("Your open cases")]
    if model.cases:
        lines = [case_line(item) for item in model.cases[:HOME_MAX_CASES]]
        blocks += sections(bullets(lines))
    else:
        blocks += sections("None. 🎉")
    if model.spend_today is not None:
        blocks += context(f"🪙 Model use in this workspace today: {model.spend_today.sentence()}")
    blocks += [divider(), header("Recent scores")]
    blocks += sections(_scores(model.scores))
    if model.calibration is not None:
        calibration = calibration_section(model.calibration, last=model.calibration_last)
        blocks += [divider(), *calibration]
    blocks += [divider()]
    size = (
        "unknown right now"
        if model.knowledge_chunks is None
        else f"{model.knowledge_chunks:,} indexed passages"
    )
    blocks += context(f"📚 Knowledge base: {size} · `/fm kb add` adds a personal runbook")
    return View(type="home", blocks=blocks)


def _scores(scores: Sequence[ScoreLine]) -> str:
    if not scores:
        return "No scored investigations yet."
    lines = []
    for line in scores:
        name = f"<{line.link}|{line.case_label}>" if line.link else code(line.case_label)
        score = "pending" if line.score is None else f"{line.score}/100 {tier_label(line.score)}"
        lines.append(f"{name} · {score}")
    return bullets(lines)


def kb_add_modal(metadata: KbAddMetadata) -> View:
    """A modal to add a personal runbook (title + markdown)."""
    title = InputBlock(
        block_id=KbInput.TITLE.value,
        label=PlainTextObject(text="Title"),
        element=PlainTextInputElement(action_id=KbInput.TITLE.value, max_length=200),
    )
    body = InputBlock(
        block_id=KbInput.BODY.value,
        label=PlainTextObject(text="Runbook (markdown)"),
        element=PlainTextInputElement(action_id=KbInput.BODY.value, multiline=True),
        hint=PlainTextObject(text="Only you will see it in searches and investigations."),
    )
    return View(
        type="modal",
        callback_id=CallbackId.KB_ADD.value,
        title=PlainTextObject(text="Add a runbook"),
        submit=PlainTextObject(text="Save"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=metadata.dump(),
        blocks=[title, body],
    )


STATEMENT_MAX = 1000
"""A problem statement's length limit (the domain's)."""


def correction_modal(statement: str, metadata: CorrectionMetadata) -> View:
    """No on a problem statement: the statement, ready to edit, and what happens next."""
    edit = InputBlock(
        block_id=CorrectionInput.STATEMENT.value,
        label=PlainTextObject(text="What is going wrong?"),
        element=PlainTextInputElement(
            action_id=CorrectionInput.STATEMENT.value,
            multiline=True,
            max_length=STATEMENT_MAX,
            initial_value=statement[:STATEMENT_MAX],
        ),
        hint=PlainTextObject(
            text="Change what is wrong: the service, the symptom, when it started, who is hit."
        ),
    )
    return View(
        type="modal",
        callback_id=CallbackId.CORRECT_STATEMENT.value,
        title=PlainTextObject(text="Correct the problem"),
        submit=PlainTextObject(text="Send correction"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=metadata.dump(),
        blocks=[
            *sections(
                "FaultMaven will restate the problem from your words in the thread and ask you "
                "again."
            ),
            edit,
        ],
    )
