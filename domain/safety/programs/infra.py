"""Command tables for cluster services: Prometheus and Alertmanager, etcd, Vault, Consul, Nomad
and the container runtime (crictl, ctr).

Reading a secret store prints secrets into the channel: `vault read`, `vault kv get`, `vault token
lookup`, `consul acl token list`, `nomad var get`, and `etcdctl get` of Kubernetes Secrets (keys
under `/registry/secrets/`) are refused like `kubectl get secret -o yaml`.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.rules import (
    READS,
    REVEALS_SECRETS,
    D,
    M,
    Rule,
    ToolRule,
    flags,
    objects,
    opaque,
    opts,
    pattern,
    same,
)

ALERTS = Rule(M, "changes alerts or silences")
ETCD = Rule(M, "changes the etcd cluster or its data")
VAULT = Rule(M, "changes Vault")
CONSUL = Rule(M, "changes Consul")
NOMAD = Rule(M, "changes Nomad jobs or nodes")
RUNTIME = Rule(M, "changes containers or images on the node")


def _lists(*reads: str, rule: Rule | None = None) -> ToolRule:
    """A subcommand table whose named subcommands read and whose others are refused."""
    return ToolRule(subcommands=same(READS, " ".join(reads)), default=rule)


_K8S_SECRETS = "/registry/secrets/"


def _etcd_get(args: list[str], upstream: str | None) -> Rule | None:
    """`etcdctl get` prints values; under /registry/secrets/ those are Kubernetes Secrets."""
    if any(arg in ("--keys-only", "--count-only") for arg in args):
        return None
    keys = [arg for arg in args if not arg.startswith("-")]
    ranged = any(arg in ("--prefix", "--from-key") for arg in args)
    for key in keys or [""]:
        covers = ranged and (_K8S_SECRETS.startswith(key) or key.startswith(_K8S_SECRETS))
        if covers or "secret" in key.lower():
            return REVEALS_SECRETS
    return None


_ETCD_VALUES = opts(
    "--endpoints --cacert --cert --key --user --password --dial-timeout --command-timeout"
    " --keepalive-time --keepalive-timeout -w --write-out --discovery-srv --discovery-srv-name"
)

INFRA_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "promtool": ToolRule(
        subcommands={
            "query": _lists("instant", "range", "series", "labels", "analyze"),
            "check": READS,
            "test": _lists("rules"),
            "tsdb": _lists("analyze", "list", "dump", "dump-openmetrics"),
            "push": Rule(M, "pushes metrics to a Pushgateway"),
        }
    ),
    "amtool": ToolRule(
        value_options=opts("--alertmanager.url -o --output --config.file --timeout"),
        subcommands={
            "alert": ToolRule(subcommands={"query": READS}, default=ALERTS),
            "silence": ToolRule(subcommands={"query": READS}, default=ALERTS),
            **same(READS, "check-config"),
            "config": _lists("routes", "show"),
            "cluster": _lists("show"),
            "template": _lists("render"),
        },
    ),
    "etcdctl": ToolRule(
        value_options=_ETCD_VALUES,
        subcommands={
            "endpoint": _lists("status", "health", "hashkv"),
            **same(_lists("list", rule=ETCD), "member alarm"),
            "get": ToolRule(check=_etcd_get, default=READS),
            **same(READS, "version watch"),
            "lease": _lists("list", "timetolive", rule=ETCD),
            "snapshot": _lists("status", rule=ETCD),
            **same(_lists("list", "get", rule=ETCD), "user role"),
            "auth": _lists("status", rule=ETCD),
            **same(ETCD, "put compact defrag move-leader txn make-mirror elect lock"),
            "del": Rule(D, "deletes keys from etcd"),
        },
    ),
    "vault": ToolRule(
        subcommands={
            **same(READS, "status version list path-help"),
            "read": REVEALS_SECRETS,
            "kv": ToolRule(
                subcommands={
                    "get": REVEALS_SECRETS,
                    "list": READS,
                    "metadata": _lists("get", rule=VAULT),
                },
                default=VAULT,
            ),
            **same(_lists("list", rule=VAULT), "auth secrets audit namespace"),
            "policy": _lists("list", "read", rule=VAULT),
            "token": ToolRule(
                subcommands={"lookup": REVEALS_SECRETS, "capabilities": READS}, default=VAULT
            ),
            "print": REVEALS_SECRETS,
            "lease": _lists("lookup", rule=VAULT),
            "operator": ToolRule(
                subcommands={
                    "raft": _lists("list-peers", rule=VAULT),
                    **same(READS, "members key-status"),
                    "seal": Rule(D, "seals Vault, cutting every application off from its secrets"),
                },
                default=VAULT,
            ),
        },
        default=VAULT,
    ),
    "consul": ToolRule(
        subcommands={
            **same(READS, "members info version monitor rtt"),
            "catalog": _lists("services", "nodes", "datacenters"),
            "kv": ToolRule(
                subcommands={
                    **same(READS, "get export"),
                    "delete": Rule(D, "deletes keys from Consul"),
                },
                default=CONSUL,
            ),
            "operator": ToolRule(subcommands={"raft": _lists("list-peers", rule=CONSUL)}),
            "acl": ToolRule(
                subcommands={
                    "token": ToolRule(subcommands=same(REVEALS_SECRETS, "read list")),
                    **same(_lists("list", "read", rule=CONSUL), "policy role"),
                },
                default=CONSUL,
            ),
            "exec": opaque("runs a command on every node in the cluster"),
        },
        default=CONSUL,
    ),
    "nomad": ToolRule(
        subcommands={
            **same(READS, "status version agent-info logs inspect plan validate"),
            "job": _lists(
                "status",
                "inspect",
                "history",
                "plan",
                "validate",
                "allocs",
                "deployments",
                rule=NOMAD,
            ),
            "node": _lists("status", rule=NOMAD),
            "alloc": _lists("status", "logs", rule=NOMAD),
            "server": _lists("members", rule=NOMAD),
            "operator": ToolRule(subcommands={"raft": _lists("list-peers", rule=NOMAD)}),
            "var": ToolRule(subcommands={"list": READS, "get": REVEALS_SECRETS}, default=NOMAD),
            **same(_lists("list", "status", rule=NOMAD), "deployment eval namespace"),
        },
        default=NOMAD,
    ),
    "crictl": ToolRule(
        value_options=opts("-r --runtime-endpoint -i --image-endpoint -t --timeout -c --config"),
        subcommands={
            **same(READS, "ps pods images img inspect inspectp inspecti logs stats statsp"),
            **same(READS, "info version imagefsinfo metricsp"),
            "config": flags(pattern(r"\s--set\b", RUNTIME)),
            "rm": Rule(M, "deletes containers"),
            "rmp": Rule(M, "deletes pods"),
            "rmi": Rule(M, "deletes images"),
            **same(RUNTIME, "stop stopp start create runp run update exec attach pull"),
        },
    ),
    "ctr": ToolRule(
        value_options=opts("-n --namespace -a --address --timeout --connect-timeout"),
        subcommands={
            **same(
                objects(RUNTIME, "ls list info check", "rm delete remove pull push import"),
                "containers container c images image i tasks task t snapshots snapshot"
                " namespaces namespace ns content leases plugins plugin",
            ),
            "version": READS,
        },
    ),
}
