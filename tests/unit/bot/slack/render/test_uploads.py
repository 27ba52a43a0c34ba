"""An upload's findings, one line each: the message in the log's own words, then where."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.slack.render.case.uploads import GIST_CHARS, finding_line
from domain.knowledge import Citation, Finding, FindingKind, KnowledgeBaseKind

AT = datetime(2026, 11, 24, 10, 6, 21, tzinfo=UTC)
POD = "[pod/fulfillment-worker-7d9f8b-x2k4p/worker]"


def cited(line: int) -> Citation:
    return Citation(
        kb=KnowledgeBaseKind.CASE, source="fulfillment-worker.log", line_start=line, timestamp=AT
    )


def test_a_kubectl_prefixed_error_shows_its_message_not_the_pod_it_came_from() -> None:
    finding = Finding(
        kind=FindingKind.PROBLEM,
        severity="ERROR",
        count=3,
        template="[pod<*>] ERROR [order-consumer-<*>] c.a.fulfillment.OrderConsumer - Commit …",
        example=f"{POD} ERROR [order-consumer-0] c.a.fulfillment.OrderConsumer - Commit failed: "
        "org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be "
        "completed since the consumer is not part of an active group",
        first=cited(94),
        last=cited(128),
    )

    line = finding_line(finding)

    assert "Commit failed: org.apache.kafka.clients.consumer.CommitFailedException" in line
    assert "pod/" not in line
    assert len(line.split(" · ")[0]) < GIST_CHARS + 30


def test_a_changed_setting_says_its_value_before_and_after_where_it_changed() -> None:
    finding = Finding(
        kind=FindingKind.CHANGED,
        count=2,
        template="[pod<*>] \tmax.poll.records = <*>",
        example=f"{POD} max.poll.records = 5000",
        first=cited(15),
        last=cited(70),
        since=cited(70),
        changed="max.poll.records = 500 → max.poll.records = 5000",
    )

    assert finding_line(finding) == (
        "🔧 *Changed* max.poll.records = 500 → max.poll.records = 5000 · `:70` (10:06:21)"
    )
    assert finding_line(finding, full=True).endswith("`fulfillment-worker.log:70 (10:06:21Z)`")
