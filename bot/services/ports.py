"""What the use-case services need from outside: shared files, the workspace, its responders."""

from __future__ import annotations

from typing import Protocol

from bot.inbox.work import SlackFileRef
from domain.case import Case
from domain.lifecycle.responders import ResponderSet


class SharedFiles(Protocol):
    """The files people share and the links to messages, as the services fetch them."""

    async def download(self, *, url: str, limit: int) -> bytes:
        """A shared file's bytes (DownloadRefusedError if it is not a file we may fetch)."""
        ...

    async def file_info(self, *, file_id: str) -> SlackFileRef | None:
        """The full description of a file a message only named; None if there is none."""
        ...

    async def permalink(self, *, channel: str, ts: str) -> str | None:
        """A link to a message, if the surface has links."""
        ...


class Workspace(Protocol):
    """The Slack workspace the bot is installed in (alerts arrive without one)."""

    async def team_id(self) -> str:
        """The workspace's id."""
        ...


class Responders(Protocol):
    """Who may answer a case's questions and decide on its workflows (None: its participants)."""

    async def for_team(self, team_id: str) -> ResponderSet | None:
        """The workspace's configured responders (a confirmers user group), or None."""
        ...

    async def for_case(self, case: Case, *, fresh: bool = False) -> ResponderSet | None:
        """The workspace's responders; else, for a case an alert opened, the alert's on-call.

        ``fresh`` asks again instead of answering from a cache (someone may have just joined).
        """
        ...


class KnowledgeStats(Protocol):
    """How big a workspace's knowledge base is (for the App Home)."""

    async def size(self, team_id: str) -> int | None:
        """Indexed passages in the workspace's and the installation's knowledge bases."""
        ...


class CaseParticipants:
    """The default: the case's participants may answer."""

    async def for_team(self, team_id: str) -> ResponderSet | None:
        """No configured group."""
        return None

    async def for_case(self, case: Case, *, fresh: bool = False) -> ResponderSet | None:
        """No configured group, and no alert's on-call to ask."""
        return None
