"""Failures and interactions the app no longer knows, in the words people see.

Every failed piece of work is told the same way (`failure_message`): one line saying what failed,
the reference that links it to the logs, and **Retry** when the same work can run again.
"""

from __future__ import annotations

from slack_sdk.models.blocks import PlainTextObject, SectionBlock
from slack_sdk.models.views import View

from bot.slack.ids import ActionId, RetryValue, action_id
from bot.slack.render.message import SlackMessage, actions, button, context, message, sections
from bot.slack.render.text import escape
from domain.people import mention

SOMETHING_WENT_WRONG = (
    "Something went wrong on my side and I couldn't finish that; if it keeps happening, "
    "give the reference below to your admin."
)
"""What failed, when the error is not one people can do anything about (details are logged)."""
STALE_BUTTON = (
    "That button no longer applies (it is from an older version of FaultMaven or its case has "
    "moved on); nothing changed."
)
STALE_SHORTCUT = (
    "That shortcut is not one FaultMaven knows any more (it may be from an older version); "
    "nothing changed."
)
STALE_FORM = (
    "This form is from an older version of FaultMaven and can't be sent; nothing was saved."
)
STALE_FORM_INPUT = f"{STALE_FORM} Copy what you need, then close it."
"""Shown under the form's first input, so what was typed stays there to copy."""
FORM_TITLE = "FaultMaven"


def failure_message(text: str, *, reference: str, retry: RetryValue | None = None) -> SlackMessage:
    """ "⚠️ what failed", its reference, and a Retry button when the work can run again."""
    line = f"⚠️ {escape(text, groups=True)}"  # refusals name the group that may answer
    return with_retry(message(sections(line), text=line), reference=reference, retry=retry)


def with_retry(shown: SlackMessage, *, reference: str, retry: RetryValue | None) -> SlackMessage:
    """A reply that says a failure (the model's, in a turn) with the failure's reference under it,
    and **Retry** when the same work can run again."""
    blocks = [*shown.blocks, *context(f"ref `{escape(reference)}`")]
    if retry is not None:
        blocks += actions(
            [button("🔁 Retry", action_id=action_id(ActionId.RETRY), value=retry.dump())]
        )
    return message(blocks, text=f"{shown.text} (ref {reference})")


def retrying_message(*, by: str, reference: str) -> SlackMessage:
    """A failure message once someone clicked Retry: who asked, and no button any more."""
    line = f"🔁 Retrying at {mention(by)}'s request…"
    return message([*sections(line), *context(f"ref `{escape(reference)}`")], text=line)


def stale_form_view() -> View:
    """What replaces a submitted form the app does not know (when it has no input to mark)."""
    return View(
        type="modal",
        title=PlainTextObject(text=FORM_TITLE),
        close=PlainTextObject(text="Close"),
        blocks=[SectionBlock(text=PlainTextObject(text=STALE_FORM))],
    )
