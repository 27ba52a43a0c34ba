"""What the people did since the last turn: messages typed, files uploaded, recent history."""

from __future__ import annotations

from pydantic import Field

from domain.base import DomainModel
from domain.investigation.evidence import UploadedFile
from domain.knowledge import IngestReport
from domain.lifecycle.responders import ResponderSet
from domain.records import ConversationMessage


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


class TurnInput(DomainModel):
    """Everything new for one turn; messages that arrived while a turn ran are coalesced here."""

    messages: list[InputMessage] = Field(default_factory=list)
    files: list[InputFile] = Field(default_factory=list)
    conversation: list[ConversationMessage] = Field(default_factory=list)
    """Recent thread history before these messages, oldest first."""
    responders: ResponderSet | None = None
    """Who may answer confirmations when configured (an on-call group); else the participants."""

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
