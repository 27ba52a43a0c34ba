"""What the people did since the last turn: messages typed, files uploaded, recent history."""

from __future__ import annotations

from pydantic import Field

from domain.base import DomainModel
from domain.investigation.evidence import UploadedFile
from domain.knowledge import IngestReport
from domain.lifecycle.responders import ResponderSet
from domain.llm import ImagePart
from domain.records import ConversationMessage
from domain.tools.audit import ToolOutcome
from domain.tools.policy import ToolSpec


class InputMessage(DomainModel):
    """One message a person wrote in the thread since the last turn."""

    ts: str
    """Slack message ts."""
    author: str
    """Slack user id."""
    text: str = ""
    file_ids: list[str] = Field(default_factory=list)
    """Files shared with this message."""


class InputFile(DomainModel):
    """A file shared since the last turn, already ingested (redacted and indexed) by the caller."""

    file: UploadedFile
    report: IngestReport | None = None
    image: ImagePart | None = None
    """A screenshot for the model to read (set only when the configured model takes images)."""


class ToolRunResult(DomainModel):
    """A tool run that finished since the last turn: quoted to the model like an upload."""

    run_id: str
    citation: str
    """What the model cites (``prometheus:execute_range_query#2 (14:05–14:35Z)``)."""
    label: str
    """``server tool``."""
    arguments: str
    outcome: ToolOutcome
    sentence: str
    """One sentence: what answered, or what went wrong."""
    text: str = ""
    """The reply, capped and redacted (empty unless the tool answered)."""


class TurnInput(DomainModel):
    """Everything new for one turn; messages that arrived while a turn ran are coalesced here."""

    messages: list[InputMessage] = Field(default_factory=list)
    files: list[InputFile] = Field(default_factory=list)
    conversation: list[ConversationMessage] = Field(default_factory=list)
    """Recent thread history before these messages, oldest first."""
    responders: ResponderSet | None = None
    """Who may answer confirmations when configured (an on-call group); else the participants."""
    tools: list[ToolSpec] = Field(default_factory=list)
    """The team's read-only tools the model may ask for this turn (empty: none configured)."""
    tool_results: list[ToolRunResult] = Field(default_factory=list)
    """Tool runs that finished since the last turn, in the order they ran."""
    tool_round: int = Field(default=0, ge=0)
    """How many rounds of tool runs led to this turn since a person last wrote."""

    @property
    def actor(self) -> str | None:
        """Who drove this turn: the last author, else the last uploader."""
        if self.messages:
            return self.messages[-1].author
        if self.files:
            return self.files[-1].file.uploaded_by
        return None

    @property
    def text(self) -> str:
        """The new messages' text, in order."""
        return "\n".join(m.text for m in self.messages if m.text.strip())
