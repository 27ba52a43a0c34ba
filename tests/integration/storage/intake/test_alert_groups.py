"""Alert groups: one active group per identity, even under concurrent notifications."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from bot.alerts.payload import parse_alertmanager
from domain.errors import NotFoundError
from domain.workflows.signals import SignalGroup, SignalStatus
from storage import Repositories
from tests.alerts import TWELVE, TWO, crash_looping, resolved, sample
from tests.integration.storage.builders import new_case

T0 = datetime(2026, 11, 21, 14, 5, tzinfo=UTC)


def group(payload: dict[str, object]) -> SignalGroup:
    return parse_alertmanager(json.dumps(payload).encode())


async def test_the_first_notification_creates_the_group_and_repeats_are_counted(
    repos: Repositories,
) -> None:
    alerts = repos.alert_groups
    first = await alerts.touch(team_id="T1", channel_id="C9", group=group(sample(TWO)), now=T0)
    again = await alerts.touch(
        team_id="T1", channel_id="C9", group=group(sample(TWO)), now=T0 + timedelta(minutes=5)
    )

    assert first.created
    assert not again.created
    assert again.record.group_id == first.record.group_id
    assert again.record.occurrence_count == 2
    assert again.record.first_seen == T0
    assert again.record.last_seen == T0 + timedelta(minutes=5)
    assert again.new_fingerprints == []
    assert again.record.dedup().is_duplicate


async def test_alerts_joining_a_group_and_its_resolution_are_reported(repos: Repositories) -> None:
    alerts = repos.alert_groups
    await alerts.touch(team_id="T1", channel_id="C9", group=group(sample(TWO)), now=T0)

    grown = await alerts.touch(team_id="T1", channel_id="C9", group=group(sample(TWELVE)), now=T0)
    done = await alerts.touch(
        team_id="T1", channel_id="C9", group=group(resolved(sample(TWELVE))), now=T0
    )

    assert len(grown.new_fingerprints) == 10
    assert len(grown.record.fingerprints) == 12
    assert done.resolved_now
    assert done.record.status is SignalStatus.RESOLVED
    assert done.record.latest.status is SignalStatus.RESOLVED


async def test_a_resolved_group_firing_again_is_reported(repos: Repositories) -> None:
    alerts = repos.alert_groups
    for payload in (sample(TWO), resolved(sample(TWO))):
        await alerts.touch(team_id="T1", channel_id="C9", group=group(payload), now=T0)

    again = await alerts.touch(team_id="T1", channel_id="C9", group=group(sample(TWO)), now=T0)

    assert again.fired_again
    assert not again.resolved_now


@pytest.mark.parametrize("notifications", [10])
async def test_concurrent_notifications_of_one_group_make_one_group(
    repos: Repositories, notifications: int
) -> None:
    payload = group(crash_looping())

    touches = await asyncio.gather(
        *(
            repos.alert_groups.touch(team_id="T1", channel_id="C9", group=payload, now=T0)
            for _ in range(notifications)
        )
    )

    assert sum(t.created for t in touches) == 1
    assert len({t.record.group_id for t in touches}) == 1
    active = await repos.alert_groups.find_active("T1", payload.identity)
    assert active is not None
    assert active.occurrence_count == notifications


async def test_a_retired_group_makes_room_for_a_new_one(repos: Repositories) -> None:
    payload = group(crash_looping())
    old = await repos.alert_groups.touch(team_id="T1", channel_id="C9", group=payload, now=T0)

    await repos.alert_groups.retire(old.record.group_id, now=T0)
    new = await repos.alert_groups.touch(team_id="T1", channel_id="C9", group=payload, now=T0)

    assert new.created
    assert new.record.group_id != old.record.group_id
    assert new.record.occurrence_count == 1


async def test_the_same_group_in_another_workspace_is_another_group(repos: Repositories) -> None:
    payload = group(crash_looping())

    one = await repos.alert_groups.touch(team_id="T1", channel_id="C9", group=payload, now=T0)
    two = await repos.alert_groups.touch(team_id="T2", channel_id="C9", group=payload, now=T0)

    assert two.created
    assert one.record.group_id != two.record.group_id


async def test_the_thread_and_case_of_a_group_are_remembered(repos: Repositories) -> None:
    case = await repos.cases.add(new_case(channel_id="C9", thread_ts="1763734000.000100"))
    touch = await repos.alert_groups.touch(
        team_id="T1", channel_id="C9", group=group(crash_looping()), now=T0
    )
    group_id = touch.record.group_id

    await repos.alert_groups.set_thread(group_id, alert_ts="1763734000.000100")
    await repos.alert_groups.set_case(group_id, case_id=case.case_id)

    found = await repos.alert_groups.for_case(case.case_id)
    assert found is not None
    assert found.group_id == group_id
    assert found.alert_ts == "1763734000.000100"
    assert found.latest == group(crash_looping())
    assert await repos.alert_groups.for_case("case_unknown") is None


async def test_updating_an_unknown_group_is_an_error(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.alert_groups.set_thread("alg_missing", alert_ts="1.0")
