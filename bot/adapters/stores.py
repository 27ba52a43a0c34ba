"""Small adapters the composition root plugs into ports: clock, case access, KB size, workspace."""

from __future__ import annotations

from datetime import UTC, datetime

from slack_sdk.web.async_client import AsyncWebClient

from domain.errors import NotFoundError
from domain.ports import CaseRepository
from rag.service import KnowledgeService
from rag.store.filters import InvalidScopeError, check_id, quote
from rag.store.tables import TableName
from rag.tools import INSTALLATION_TEAM


class SystemClock:
    """The real time, in UTC."""

    def now(self) -> datetime:
        """Now."""
        return datetime.now(UTC)


class UnknownStats:
    """KnowledgeStats when the knowledge base is not ours to count (a fake, in tests)."""

    async def size(self, team_id: str) -> int | None:
        """Unknown."""
        return None


class RepositoryCaseAccess:
    """rag's CaseAccess over the case repository: a case belongs to exactly one workspace."""

    def __init__(self, cases: CaseRepository) -> None:
        self._cases = cases

    async def case_in_team(self, *, team_id: str, case_id: str) -> bool:
        """True when ``case_id`` is a case of ``team_id``."""
        try:
            case = await self._cases.get(case_id)
        except NotFoundError:
            return False
        return case.team_id == team_id


class KnowledgeStoreStats:
    """KnowledgeStats over the LanceDB knowledge table."""

    def __init__(self, service: KnowledgeService) -> None:
        self._service = service

    async def size(self, team_id: str) -> int | None:
        """Passages of the workspace's and the installation's knowledge bases."""
        try:
            teams = ", ".join(quote(t) for t in (check_id(team_id, "workspace"), INSTALLATION_TEAM))
        except InvalidScopeError:
            return None
        return await self._service.store.count(TableName.KNOWLEDGE, f"team_id IN ({teams})")


class SlackWorkspace:
    """Workspace for alerts: the bot token's own workspace (auth.test, asked once)."""

    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client
        self._team_id: str | None = None

    async def team_id(self) -> str:
        """The workspace id (SlackApiError while Slack cannot be reached: retried later)."""
        if self._team_id is None:
            response = await self._client.auth_test()
            self._team_id = str(response["team_id"])
        return self._team_id
