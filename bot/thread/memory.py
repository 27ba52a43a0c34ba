"""What the thread remembers of each message it posted, one typed shape per kind of message.

A message is remembered so it can be drawn again: a question answered shows the decision, a
request no longer open loses its button, the summary says what changed. What is kept is the
data it was drawn from (the model's reply, the files' findings, the tool results, the past case),
never its Block Kit, so a change to how things are drawn applies to messages already posted.

`parse` and `dump` are the one place these are read from and written to the stored JSON. Rows
written before the shapes were typed (plain dictionaries, the opening findings as Block Kit) are
read too, so an upgrade loses nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from domain.engine.inputs import ToolRunResult
from domain.engine.view import TurnReply
from domain.knowledge import IngestReport
from domain.past_cases import PastCaseMatch
from domain.workflows.catalog import Workflow
from domain.workflows.observed import ObservedData
from domain.workflows.planner import RcaOutcome
from domain.workflows.remediation import ExecutionResult, RemediationStrategy


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- what an answer opens with


class FileRead(_Shape):
    """A shared file was read: its findings open the answer."""

    lead: Literal["file_read"] = "file_read"
    report: IngestReport

    @classmethod
    def of(cls, report: IngestReport) -> FileRead:
        """What to keep of the report: what the reader sees, not the lines quoted to the model."""
        findings = [f.model_copy(update={"context": []}) for f in report.findings]
        kept = report.model_copy(update={"findings": findings, "top_messages": []})
        return cls(report=kept)


class FileRefused(_Shape):
    """A shared file was not read, and why."""

    lead: Literal["file_refused"] = "file_refused"
    filename: str
    reason: str


class ImageRead(_Shape):
    """A screenshot was read by the model."""

    lead: Literal["image_read"] = "image_read"
    filename: str


class NoVision(_Shape):
    """The configured model does not take images (said once per case)."""

    lead: Literal["no_vision"] = "no_vision"


class ToolResults(_Shape):
    """The tool runs the answer reads, one line each."""

    lead: Literal["tool_results"] = "tool_results"
    results: list[ToolRunResult]
    """Each run without its reply's text (the evidence is kept with the case)."""
    kept_bytes: list[int]
    """How much of each reply was kept as evidence."""

    @classmethod
    def of(cls, results: list[ToolRunResult]) -> ToolResults:
        """The lines to show, without the replies themselves."""
        return cls(
            results=[r.model_copy(update={"text": ""}) for r in results],
            kept_bytes=[len(r.text.encode()) for r in results],
        )


class SeenBeforeLead(_Shape):
    """The finished case this one looks like, and a link to its thread."""

    lead: Literal["seen_before"] = "seen_before"
    match: PastCaseMatch
    link: str | None = None


class EarlierBlocks(_Shape):
    """An opening kept before the shapes were typed: its Block Kit, drawn as it was."""

    lead: Literal["blocks"] = "blocks"
    blocks: list[dict[str, Any]]


Lead = Annotated[
    FileRead | FileRefused | ImageRead | NoVision | ToolResults | SeenBeforeLead | EarlierBlocks,
    Field(discriminator="lead"),
]
"""One part of what an answer opens with."""


# ---------------------------------------------------------------- what a message is kept with


class WrittenDown(_Shape):
    """A turn's reply, written down before it is shown (a restart in between shows it)."""

    shape: Literal["written_down"] = "written_down"
    reply: TurnReply


class ShownReply(_Shape):
    """A reply as it was shown: what it opened with, and whether its questions are at its foot.

    Kept with the reply's message and with each of its questions and cards, so a click on any
    of them redraws the whole message.
    """

    shape: Literal["shown"] = "shown"
    reply: TurnReply
    lead: list[Lead] = Field(default_factory=list)
    questions: bool = False
    notes: dict[str, str] = Field(default_factory=dict)
    """How each question was decided, by confirmation id ("✅ alice resolved it")."""
    key: str = ""
    """The work key the reply is kept under (its Details button finds it there); "" for a reply
    not kept under one."""

    def decided(self, notes: dict[str, str]) -> ShownReply:
        """The same reply with more questions decided."""
        return self.model_copy(update={"notes": {**self.notes, **notes}})


class AtTheTop(_Shape):
    """A question or card asked in the thread's first message, which is redrawn as a whole."""

    shape: Literal["top"] = "top"


class RanAndAsked(_Shape):
    """What the executor did with an approved workflow, and the card asking whether it worked
    (drawn as the case has that request now: answered, it loses its button)."""

    shape: Literal["ran"] = "ran"
    result: ExecutionResult
    workflow: Workflow
    request_id: str


class Analysed(_Shape):
    """An alert's analysis and the workflows it offers, in one message: drawn again as each is
    decided (the analysis as it was, each workflow as it stands then)."""

    shape: Literal["analysed"] = "analysed"
    outcome: RcaOutcome
    severity: str
    """The alert's own severity, as the analysis compares it."""
    catalog: bool
    observed: list[ObservedData] = []
    lead: list[Lead] = []
    strategies: list[str] = []
    """The strategies offered under it, in order (their ids)."""


class Offer(_Shape):
    """A workflow offered under an alert's analysis, as it stood when last drawn."""

    strategy: RemediationStrategy
    workflow: Workflow


class Summary(_Shape):
    """The living case summary: a fingerprint of what it shows (an edit that changes nothing
    is skipped), and the case's first answer when it shares the summary's message, or an
    alert's analysis with the workflows it offers (as they stood when last drawn)."""

    shape: Literal["summary"] = "summary"
    digest: str
    opening: ShownReply | None = None
    analysis: Analysed | None = None
    offers: list[Offer] = []


class ToolsRead(_Shape):
    """The tool runs a turn read, replies included, kept while its answer says the model failed:
    Retry gives the model the same."""

    shape: Literal["tools_read"] = "tools_read"
    results: list[ToolRunResult]
    round: int
    """Which round of tool runs the turn was."""


Kept = WrittenDown | ShownReply | Summary | AtTheTop | RanAndAsked | Analysed | ToolsRead
"""Any shape a posted message is kept with."""

PostedBody = Annotated[Kept, Field(discriminator="shape")]
"""What a posted message is kept with, as stored."""

_BODY: TypeAdapter[Kept] = TypeAdapter(PostedBody)


def dump(body: Kept) -> dict[str, Any]:
    """The shape as stored JSON."""
    return body.model_dump(mode="json")


def parse(raw: dict[str, Any] | None) -> Kept | None:
    """A stored body as its shape (None when nothing was kept)."""
    if not raw:
        return None
    if "shape" in raw:
        return _BODY.validate_python(raw)
    return _earlier(raw)


def _earlier(raw: dict[str, Any]) -> WrittenDown | ShownReply | Summary | AtTheTop:
    """A body written before the shapes were typed."""
    if raw.get("top"):
        return AtTheTop()
    if "digest" in raw:
        opening = raw.get("opening")
        return Summary(digest=raw["digest"], opening=_earlier_shown(opening) if opening else None)
    if "reply" in raw:
        return _earlier_shown(raw)
    return WrittenDown(reply=TurnReply.model_validate(raw))


def _earlier_shown(raw: dict[str, Any]) -> ShownReply:
    blocks = list(raw.get("lead") or [])
    return ShownReply(
        reply=TurnReply.model_validate(raw["reply"]),
        lead=[EarlierBlocks(blocks=blocks)] if blocks else [],
        questions=bool(raw.get("questions")),
        notes=dict(raw.get("notes") or {}),
    )
