"""Command tables for message brokers and Cassandra: Kafka's tools, kcat, RabbitMQ, nodetool.

Sources: Kafka's operations guide (kafka.apache.org/documentation, "Basic Kafka Operations"), the
kcat README (github.com/edenhill/kcat), the rabbitmqctl(8) and rabbitmq-diagnostics(8) man pages,
and the nodetool reference (cassandra.apache.org, managing/tools/nodetool).

Kafka's tools are scripts (`bin/kafka-topics.sh`), known by name in any directory; they act by
their flags: `--describe` and `--list` read, `--alter`, `--create` and `--execute` change, and
`--delete` deletes. `--reset-offsets` without `--execute` only prints the plan. kcat reads with
`-L`, `-C` and `-Q` and produces with `-P`. rabbitmqctl's `list_*` read, as do nodetool's
`get*`, `status*` and `describe*`.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.rules import (
    READS,
    REVEALS_SECRETS,
    RUNS_INLINE,
    D,
    M,
    Rule,
    ToolRule,
    checked,
    flags,
    opaque,
    opts,
    pattern,
    same,
)

KAFKA = Rule(M, "changes Kafka topics, configs or partitions")
OFFSETS = Rule(M, "moves a consumer group's offsets, so it re-reads or skips messages")
KAFKA_DELETE = Rule(D, "deletes Kafka topics, records or consumer groups")
PRODUCES = Rule(M, "writes messages to a Kafka topic")
COMMITS = Rule(M, "commits offsets for a consumer group while it reads")
RABBIT = Rule(M, "changes RabbitMQ (its nodes, queues, users or policies)")
RABBIT_STOPS = Rule(M, "stops RabbitMQ or its application on a node")
RABBIT_WIPE = Rule(D, "deletes queues, their messages, or a node's data")
CASSANDRA = Rule(M, "changes the Cassandra node or its data on disk")
CASSANDRA_REMOVES = Rule(D, "removes a node or data from the Cassandra cluster")

_DELETES = pattern(r"\s--(?:delete|delete-offsets)\b", KAFKA_DELETE)
_CHANGES = pattern(r"\s--(?:alter|create|execute|cancel|add|remove|add-config)\b", KAFKA)
_READS = flags(_DELETES, _CHANGES)

KAFKA_TOOLS: Mapping[str, Rule | ToolRule] = {
    "kafka-topics": _READS,
    "kafka-configs": _READS,
    "kafka-acls": _READS,
    "kafka-log-dirs": _READS,
    "kafka-broker-api-versions": READS,
    "kafka-metadata-quorum": _READS,
    "kafka-features": flags(pattern(r"\s(?:upgrade|downgrade|disable)\b", KAFKA)),
    "kafka-get-offsets": READS,
    "kafka-dump-log": READS,
    "kafka-consumer-groups": flags(
        _DELETES,
        pattern(r"\s--reset-offsets\b.*\s--execute\b|\s--execute\b.*\s--reset-offsets\b", OFFSETS),
    ),
    "kafka-reassign-partitions": flags(
        pattern(r"\s--(?:execute|cancel)\b", KAFKA), pattern(r"\s--verify\b", KAFKA)
    ),
    "kafka-leader-election": Rule(M, "moves partition leadership between Kafka brokers"),
    "kafka-delete-records": KAFKA_DELETE,
    "kafka-console-producer": PRODUCES,
    "kafka-verifiable-producer": PRODUCES,
    "kafka-producer-perf-test": PRODUCES,
    "kafka-console-consumer": flags(pattern(r"\s--group\b", COMMITS)),
}
SHIPPED_SCRIPTS = frozenset(KAFKA_TOOLS)
"""Tools shipped as shell scripts, known by name wherever they are installed."""

_KCAT = flags(
    pattern(r"\s-[a-zA-Z]*P", PRODUCES),
    pattern(r"\s-[a-zA-Z]*G\b", COMMITS),
    pattern(r"\s-[a-zA-Z]*[LCQ]", READS),
    default=opaque("does not say whether it reads (-L, -C, -Q) or writes (-P)"),
)

_RABBIT_READS = opts(
    "status cluster_status ping list_queues list_exchanges list_bindings list_connections"
    " list_channels list_consumers list_users list_vhosts list_permissions list_policies"
    " list_parameters report_queues node_health_check await_startup version help"
)
_RABBIT_VALUES = opts("-n --node -p --vhost -t --timeout -l --longnames")
_RABBIT_SECRETS = opts("environment report authenticate_user export_definitions")


def _rabbitmqctl(args: list[str], upstream: str | None) -> Rule:
    """rabbitmqctl: `list_*` and status read; purging, deleting and resetting destroy."""
    verb = _verb(args, _RABBIT_VALUES)
    if not verb or verb in _RABBIT_READS or verb.startswith("list_"):
        return READS
    if verb in _RABBIT_SECRETS:
        return REVEALS_SECRETS
    if verb == "eval":
        return RUNS_INLINE
    if verb in ("purge_queue", "delete_queue", "delete_vhost", "reset", "force_reset"):
        return RABBIT_WIPE
    if verb in ("stop", "stop_app", "shutdown"):
        return RABBIT_STOPS
    return RABBIT


def _rabbitmq_diagnostics(args: list[str], upstream: str | None) -> Rule:
    """rabbitmq-diagnostics only reports, except what prints configuration or runs code."""
    verb = _verb(args, _RABBIT_VALUES)
    if verb in ("environment", "os_env", "report"):
        return REVEALS_SECRETS
    return RUNS_INLINE if verb == "eval" else READS


_NODETOOL_VALUES = opts("-h --host -p --port -u --username -pw --password -pwf --password-file")
_NODETOOL_READS = opts(
    "info ring tpstats compactionstats compactionhistory netstats describecluster describering"
    " gossipinfo tablestats cfstats tablehistograms cfhistograms proxyhistograms version"
    " listsnapshots gcstats toppartitions profileload clientstats failuredetector"
    " viewbuildstatus help"
)
_NODETOOL_REMOVES = opts("removenode assassinate decommission clearsnapshot truncatehints")


def _nodetool(args: list[str], upstream: str | None) -> Rule:
    """nodetool: reports read; repairs, flushes, drains and compactions change the node."""
    verb = _verb(args, _NODETOOL_VALUES)
    if not verb or verb in _NODETOOL_READS:
        return READS
    if verb.startswith(("get", "status", "describe", "list")):
        return READS
    return CASSANDRA_REMOVES if verb in _NODETOOL_REMOVES else CASSANDRA


def _verb(args: list[str], values: frozenset[str]) -> str:
    """The first word that is neither an option nor an option's value."""
    for index, arg in enumerate(args):
        if not arg.startswith("-") and not (index and args[index - 1] in values):
            return arg.lower()
    return ""


MESSAGING_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **KAFKA_TOOLS,
    **same(_KCAT, "kcat kafkacat"),
    "rabbitmqctl": checked(_rabbitmqctl),
    "rabbitmq-diagnostics": checked(_rabbitmq_diagnostics),
    "rabbitmq-queues": ToolRule(
        subcommands=same(READS, "check_if_node_is_quorum_critical quorum_status"),
        default=RABBIT,
    ),
    "nodetool": checked(_nodetool),
}
