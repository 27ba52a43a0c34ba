"""Small adapters the composition root plugs into ports: case access, KB size, responders."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from domain.errors import NotFoundError
from domain.ports import CaseRepository
from rag.service import KnowledgeService
from rag.store.filters import InvalidScopeError, check_id, quote
from rag.store.tables import TableName
from rag.tools import INSTALLATION_TEAM

logger = logging.getLogger(__name__)

RESPONDERS_TTL_S = 60.0


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


class UsergroupResponders:
    """Responders from a Slack user group (an on-call group), cached for a minute."""

    def __init__(self, client: AsyncWebClient, usergroup_id: str) -> None:
        self._client = client
        self._usergroup_id = usergroup_id
        self._cached: tuple[float, list[str]] | None = None

    async def for_team(self, team_id: str) -> list[str] | None:
        """The group's members (usergroups.users.list, scope usergroups:read)."""
        now = time.monotonic()
        if self._cached is not None and now - self._cached[0] < RESPONDERS_TTL_S:
            return self._cached[1]
        try:
            response = await self._client.usergroups_users_list(usergroup=self._usergroup_id)
        except SlackApiError as error:
            logger.warning("user group unavailable", extra={"error": error.response.get("error")})
            return self._cached[1] if self._cached else []
        users = [str(u) for u in response.get("users") or []]
        self._cached = (now, users)
        return users
