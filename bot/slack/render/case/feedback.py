"""👍 / 👎 under a stated root cause: Slack's feedback buttons in a context actions block."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
)

from bot.slack.ids import ActionId, FeedbackValue, action_id
from bot.slack.render.commands import notice
from bot.slack.render.message import SlackMessage
from domain.engine.view import RootCauseView
from domain.outcomes import Rating, conclusion_id

THANKS = "Thanks — noted."
RIGHT_LABEL = "This root cause is right"
WRONG_LABEL = "This root cause is wrong"


def feedback_buttons(case_id: str, root: RootCauseView) -> Block:
    """👍 / 👎 for one stated root cause; each button's value says which and how sure it was."""

    def value(rating: Rating) -> str:
        return FeedbackValue(
            case_id=case_id,
            conclusion_id=conclusion_id(root.root_cause, root.confidence_score),
            rating=rating,
            confidence=root.confidence_score,
        ).dump()

    element = FeedbackButtonsElement(
        action_id=action_id(ActionId.FEEDBACK),
        positive_button=FeedbackButtonObject(
            text="👍", value=value(Rating.UP), accessibility_label=RIGHT_LABEL
        ),
        negative_button=FeedbackButtonObject(
            text="👎", value=value(Rating.DOWN), accessibility_label=WRONG_LABEL
        ),
    )
    return ContextActionsBlock(elements=[element])


def feedback_blocks(root: RootCauseView | None, *, case_id: str) -> list[Block]:
    """The buttons when a reply states a root cause, else nothing."""
    return [feedback_buttons(case_id, root)] if root is not None else []


def thanks() -> SlackMessage:
    """The private answer to a rating."""
    return notice(THANKS)
