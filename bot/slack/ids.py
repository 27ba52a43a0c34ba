"""Every id the app shares with Slack: actions, callbacks, commands, events, and button values.

Button `value`s and modal `private_metadata` are small pydantic models serialised as JSON, so a
click carries typed data back and nothing is parsed out of free text.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from domain.lifecycle.confirmations import Decision
from domain.lifecycle.special_states import WayOut
from domain.outcomes import Rating


class ActionId(StrEnum):
    """Block action ids. A button's id is ``<ActionId>`` or ``<ActionId>:<suffix>``.

    The suffix keeps ids unique within one message (Slack requires it), e.g. one "Can't get this"
    button per evidence request card.
    """

    ANSWER = "fm_answer"
    """Yes / No / Not sure on a confirmation prompt (value: AnswerValue)."""
    CANT_GET = "fm_cant_get"
    """"Can't get this" on an evidence request card (value: RequestValue)."""
    CLOSE_CASE = "fm_close_case"
    """Close on the case header: asks for a confirmation (value: CaseValue)."""
    REPORT = "fm_report"
    """Report on the case header of a finished case (value: CaseValue)."""
    SCORE = "fm_score"
    """Score on the case header of a finished case (value: CaseValue)."""
    APPROVE = "fm_approve"
    """Approve on a remediation strategy (value: StrategyValue)."""
    REJECT = "fm_reject"
    """Reject on a remediation strategy (value: StrategyValue)."""
    FEEDBACK = "fm_feedback"
    """👍 / 👎 under a stated root cause (each button's value: FeedbackValue)."""
    RETRY = "fm_retry"
    """Retry on the message saying a piece of work failed (value: RetryValue)."""
    CORRECT = "fm_correct"
    """No on a problem statement: opens a form to correct it (value: AnswerValue, decision no)."""
    RUN_TOOL = "fm_run_tool"
    """"▶ Run it" on a tool run the model asked for (value: ToolRunValue)."""
    SKIP_TOOL = "fm_skip_tool"
    """"Skip" on a tool run the model asked for (value: ToolRunValue)."""
    USE_RUNBOOK = "fm_use_runbook"
    """"📚 Use its runbook" on a past case the new one looks like (value: RunbookValue)."""
    CASE_STATUS = "fm_case_status"
    """A case's button in `/fm status`'s list of a channel's open cases (value: CaseValue)."""
    APPLIED = "fm_applied"
    """"I've applied it" on a mitigation's card (value: SolutionValue)."""
    NOT_NOW = "fm_not_now"
    """"Not now" on a mitigation's card: it stays offered (value: SolutionValue)."""
    UNDO = "fm_undo"
    """Undo on a recorded step, "applied" or "it worked" (value: StepValue)."""
    DETAILS = "fm_details"
    """"Details" under an answer: opens a modal with the whole reply (value: DetailsValue)."""
    STUCK = "fm_stuck"
    """A way out of a stuck case: best guess, escalate, another kind of explanation, close
    (value: StuckValue)."""


class CallbackId(StrEnum):
    """Shortcut and modal callback ids (the shortcuts' are declared in manifest.yml)."""

    INVESTIGATE = "fm_investigate"
    SCORE_INVESTIGATION = "fm_score_investigation"
    THREAD_STATUS = "fm_thread_status"
    KB_ADD = "fm_kb_add"
    CORRECT_STATEMENT = "fm_correct_statement"


class Command(StrEnum):
    """Slash commands (declared in manifest.yml)."""

    FM = "/fm"


class Subcommand(StrEnum):
    """What follows `/fm`."""

    HELP = "help"
    CASES = "cases"
    STATUS = "status"
    SCORE = "score"
    SCORES = "scores"
    CLOSE = "close"
    KB = "kb"
    CALIBRATION = "calibration"


class EventType(StrEnum):
    """Events the app listens to (manifest.yml subscribes to the matching bot events)."""

    MESSAGE = "message"
    APP_HOME_OPENED = "app_home_opened"


class KbInput(StrEnum):
    """Block and action ids of the `kb add` modal's inputs."""

    TITLE = "fm_kb_title"
    BODY = "fm_kb_body"


class CorrectionInput(StrEnum):
    """Block and action id of the problem statement correction form's one input."""

    STATEMENT = "fm_statement"


def action_id(action: ActionId, suffix: str = "") -> str:
    """The Block Kit action id for a button."""
    return f"{action.value}:{suffix}" if suffix else action.value


def parse_action_id(raw: str) -> ActionId | None:
    """The ActionId a Block Kit action id belongs to (None if it is not ours)."""
    try:
        return ActionId(raw.partition(":")[0])
    except ValueError:
        return None


class Value(BaseModel):
    """Base of button values and modal metadata: compact JSON, strict about fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def dump(self) -> str:
        """The JSON put into Slack."""
        return self.model_dump_json(exclude_none=True)


class AnswerValue(Value):
    """A confirmation button: which case, which question, which answer."""

    case_id: str
    confirmation_id: str
    decision: Decision


class RequestValue(Value):
    """An evidence request card's button."""

    case_id: str
    request_id: str


class ToolRunValue(Value):
    """A tool run card's button."""

    case_id: str
    run_id: str


class SolutionValue(Value):
    """A mitigation card's button."""

    case_id: str
    solution_id: str


class StepValue(Value):
    """Undo on a recorded solution step: which case, which recorded answer."""

    case_id: str
    confirmation_id: str


class RunbookValue(Value):
    """ "Use its runbook": the case it is offered in, and the past case whose runbook it is."""

    case_id: str
    past_case_id: str


class CaseValue(Value):
    """A case header button."""

    case_id: str


class DetailsValue(Value):
    """An answer's Details button: its case, and the work key its reply is kept under."""

    case_id: str
    key: str


class StuckValue(Value):
    """A way out of a stuck case: which case, which way."""

    case_id: str
    way: WayOut


class StrategyValue(Value):
    """A remediation strategy's Approve / Reject button."""

    case_id: str
    strategy_id: str


class FeedbackValue(Value):
    """A 👍 or 👎 under a root cause: which case, which conclusion, its confidence as shown."""

    case_id: str
    conclusion_id: str
    rating: Rating
    confidence: float = Field(ge=0.0, le=1.0)


class RetryValue(Value):
    """A failure message's Retry: the failed inbox item (its dedup key) and the reference shown;
    ``turn`` when the item finished but its turn's model call failed (the answer said so).

    A turn a click started is no inbox item of its own: ``said`` is the ts of what the click
    said (kept with the case), and ``work_key`` the turn's key; Retry asks again for it.
    """

    work_key: str
    reference: str
    turn: bool | None = None
    said: str | None = None


class KbAddMetadata(Value):
    """Where the `/fm kb add` modal was opened, so the result can be said there."""

    channel_id: str | None = None


class CorrectionMetadata(Value):
    """The correction form's origin: the question answered No, and the message it was in."""

    case_id: str
    confirmation_id: str
    channel_id: str
    thread_ts: str | None = None
    message_ts: str | None = None

    def answer(self) -> AnswerValue:
        """The No the form's submission gives."""
        return AnswerValue(
            case_id=self.case_id, confirmation_id=self.confirmation_id, decision=Decision.NO
        )


ValueT = TypeVar("ValueT", bound=Value)


class InvalidValueError(ValueError):
    """A button value or metadata that is not ours (or was tampered with)."""


def load_value(model: type[ValueT], raw: str | None) -> ValueT:
    """Parse a button value / private_metadata into its model, or InvalidValueError."""
    try:
        return model.model_validate(json.loads(raw or "{}"))
    except (ValueError, ValidationError) as error:
        raise InvalidValueError(f"not a {model.__name__}") from error
