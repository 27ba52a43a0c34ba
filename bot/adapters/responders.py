"""Who may answer and decide, looked up in Slack: members of user groups and of alert channels.

The stronger rule first: the confirmers' user group (FM_CONFIRMERS_USERGROUP) for every case;
else, for a case an alert opened, the alert's on-call: the members of FM_ALERT_RESPONDERS, else
the members of the channel the alert was posted in (the people it paged). Members are asked once
a minute; a refusal asks again, so someone who has just joined is not refused from an old list.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from domain.case import Case
from domain.lifecycle.responders import ResponderSet, ResponderSource

logger = logging.getLogger(__name__)

RESPONDERS_TTL_S = 60.0
MEMBERS_PAGE = 200
"""conversations.members page size (Slack recommends no more than 200)."""

Fetch = Callable[[str], Awaitable[list[str]]]


class MemberLists:
    """Member lists looked up in Slack by id (a group's, a channel's), each kept for a minute."""

    def __init__(self, fetch: Fetch, *, what: str) -> None:
        self._fetch = fetch
        self._what = what
        self._cached: dict[str, tuple[float, list[str]]] = {}

    async def members(self, key: str, *, fresh: bool = False) -> list[str] | None:
        """The members; after a Slack error the last list known, else None."""
        now = time.monotonic()
        cached = self._cached.get(key)
        if cached is not None and not fresh and now - cached[0] < RESPONDERS_TTL_S:
            return cached[1]
        try:
            found = await self._fetch(key)
        except SlackApiError as error:
            logger.warning(
                "%s members unavailable",
                self._what,
                extra={"id": key, "error": error.response.get("error")},
            )
            return cached[1] if cached is not None else None
        self._cached[key] = (now, found)
        return found


class SlackResponders:
    """Responders from Slack: the confirmers' group, else for alert cases the alert's on-call."""

    def __init__(
        self, client: AsyncWebClient, *, confirmers: str | None, alert_group: str | None
    ) -> None:
        self._client = client
        self._confirmers = confirmers
        self._alert_group = alert_group
        self._groups = MemberLists(self._group_members, what="user group")
        self._channels = MemberLists(self._channel_members, what="alert channel")

    async def for_team(self, team_id: str) -> ResponderSet | None:
        """The confirmers' group, when one is configured."""
        if not self._confirmers:
            return None
        return await self._group(self._confirmers, ResponderSource.CONFIRMERS, fresh=False)

    async def for_case(self, case: Case, *, fresh: bool = False) -> ResponderSet | None:
        """The confirmers' group; else for an alert's case its on-call group, else its channel."""
        if self._confirmers:
            return await self._group(self._confirmers, ResponderSource.CONFIRMERS, fresh=fresh)
        if not case.opened_by_alert:
            return None
        if self._alert_group:
            return await self._group(self._alert_group, ResponderSource.ALERT_GROUP, fresh=fresh)
        members = await self._channels.members(case.channel_id, fresh=fresh)
        if members is None:
            return None  # not looked up (a scope missing, say): its participants decide
        return ResponderSet(
            members=frozenset(members),
            source=ResponderSource.ALERT_CHANNEL,
            channel=case.channel_id,
        )

    async def _group(self, group: str, source: ResponderSource, *, fresh: bool) -> ResponderSet:
        # A group that cannot be looked up lets nobody decide: it was meant to restrict.
        members = await self._groups.members(group, fresh=fresh) or []
        return ResponderSet(members=frozenset(members), source=source, group=group)

    async def _group_members(self, group: str) -> list[str]:
        """usergroups.users.list (scope usergroups:read)."""
        response = await self._client.usergroups_users_list(usergroup=group)
        return [str(user) for user in response.get("users") or []]

    async def _channel_members(self, channel: str) -> list[str]:
        """conversations.members, every page (scope channels:read, or groups:read if private)."""
        members: list[str] = []
        cursor: str | None = None
        while True:
            response = await self._client.conversations_members(
                channel=channel, limit=MEMBERS_PAGE, cursor=cursor
            )
            members.extend(str(user) for user in response.get("members") or [])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if cursor is None:
                return members
