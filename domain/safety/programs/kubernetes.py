"""Command tables for Kubernetes: kubectl and oc, Helm, kubectx and kubens.

Secrets stay out of the channel: `kubectl get` of Secrets with their data (`-o yaml`,
`--template`, `--raw …/secrets`), `kubectl config view --raw`, `oc whoami -t` and Helm's rendered
values and manifests are refused. `kubectl proxy` and `port-forward` change nothing in the cluster
and are read-only while they listen on the loopback address only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.safety.findings import option_values
from domain.safety.rules import (
    KUBECONFIG,
    READS,
    REVEALS_SECRETS,
    D,
    M,
    Pattern,
    Rule,
    ToolRule,
    checked,
    flags,
    opaque,
    opts,
    pattern,
    same,
)
from domain.safety.shell import PLACEHOLDER

K8S = Rule(M, "changes Kubernetes resources")
HELM = Rule(M, "changes a Helm release")
EXPOSES = Rule(M, "listens on a non-loopback address, exposing the cluster to the network")

_K8S_OPTS = opts(
    "-n --namespace --context --kubeconfig --cluster --user -s --server --token --as --as-group"
    " --as-uid --cache-dir --certificate-authority --client-certificate --client-key"
    " --request-timeout --tls-server-name --password --username -v --v --vmodule --log-dir"
    " --log-file --log-file-max-size --log-flush-frequency --log-backtrace-at --stderrthreshold"
    " --profile --profile-output -l --selector -o --output -c --container -f --filename"
    " --field-selector --template --sort-by --chunk-size -L --label-columns --since"
    " --since-time --tail --timeout --max-log-requests -k --kustomize --raw"
)
_SECRET_KIND = re.compile(r"^secrets?(?:\.v1)?(?:\.|$)")
_SHOWS_NAMES = frozenset({"name", "wide"})
_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d+){3}|::1|\[::1\])$")


def _get(args: list[str], upstream: str | None) -> Rule | None:
    """`kubectl get` reveals secrets when it prints a Secret's data, not only its name."""
    if any("/secrets" in path for path in option_values(args, "", opts("--raw"))):
        return REVEALS_SECRETS
    outputs = [o.lstrip("=") for o in option_values(args, "o", opts("--output"), "nlcfLsk")]
    templates = option_values(args, "", opts("--template"))
    if not templates and all(o.partition("=")[0].lower() in _SHOWS_NAMES for o in outputs):
        return None
    kinds = [part.split("/")[0].lower() for word in _words(args) for part in word.split(",")]
    from_files = option_values(args, "fk", opts("--filename --kustomize"), "nlocLs")
    unknown = any("$" in kind or PLACEHOLDER in kind for kind in kinds)
    if from_files or unknown or any(_SECRET_KIND.match(kind) for kind in kinds):
        return REVEALS_SECRETS
    return None


def _words(args: list[str]) -> list[str]:
    words, skip = [], False
    for arg in args:
        if skip or arg.startswith("-"):
            skip = not skip and arg in _K8S_OPTS
        else:
            words.append(arg)
    return words


_DELETES: tuple[Pattern, ...] = (
    pattern(
        r"(?<!-n)(?<!--namespace)\s(?:namespaces?|ns)(?:[/,]\S*)?(?=\s|$)",
        Rule(D, "deletes the namespace and everything in it"),
    ),
    pattern(r"\s--all\b", Rule(D, "deletes every resource of a kind")),
    pattern(
        r"\s(?:pvc|pv|persistentvolumes?|persistentvolumeclaims?)(?:[/,.]\S*)?(?=\s|$)",
        Rule(D, "deletes a volume claim or volume, and the data on it can go with it"),
    ),
)
_POD_KINDS = frozenset({"pod", "pods", "po"})
DELETES_PODS = Rule(M, "deletes pods; a controller re-creates its own, a bare pod is gone")


def _delete(args: list[str], upstream: str | None) -> Rule:
    """Deleting pods restarts them under their controller; deleting anything else destroys it."""
    joined = " " + " ".join(args)
    hit = next((rule for regex, rule in _DELETES if regex.search(joined)), None)
    if hit is not None:
        return hit
    from_files = option_values(args, "fk", opts("--filename --kustomize"), "nlocLs")
    words = _words(args)
    if words and not from_files and _only_pods(words):
        return DELETES_PODS
    return Rule(D, "deletes Kubernetes resources")


def _only_pods(words: list[str]) -> bool:
    """`pod NAME…` (every name a pod) or `pod/NAME…` for every word."""
    first = words[0].lower()
    if first in _POD_KINDS:
        return True
    return all("/" in word and word.split("/")[0].lower() in _POD_KINDS for word in words)


def _listens(*options: str) -> ToolRule:
    """`kubectl proxy`, `port-forward`: read-only while they listen on loopback only."""
    wide = opts("--accept-hosts --disable-filter")

    def check(args: list[str], upstream: str | None) -> Rule | None:
        given = option_values(args, "", opts(" ".join(options)))
        addresses = [address for value in given for address in value.split(",")]
        open_filter = any(arg.partition("=")[0] in wide for arg in args)
        return EXPOSES if open_filter or not all(map(_LOOPBACK.match, addresses)) else None

    return ToolRule(check=check, default=READS)


_KUBECTL: Mapping[str, Rule | ToolRule] = {
    **same(READS, "describe logs top explain events api-resources api-versions version"),
    **same(READS, "cluster-info diff wait completion kustomize options"),
    "get": ToolRule(check=_get, default=READS),
    **same(K8S, "apply edit patch replace create set label annotate taint expose autoscale"),
    **same(K8S, "run debug attach uncordon certificate"),
    "delete": checked(_delete),
    "scale": Rule(M, "scales a workload"),
    "cordon": Rule(M, "stops scheduling on a node"),
    "drain": Rule(M, "evicts every pod from a node"),
    "exec": opaque("runs a command inside a container"),
    "cp": Rule(M, "copies files into or out of a container"),
    "proxy": _listens("--address"),
    "port-forward": _listens("--address"),
    "plugin": ToolRule(subcommands={"list": READS}),
    "rollout": ToolRule(
        subcommands={
            **same(READS, "status history"),
            "restart": Rule(M, "restarts a workload's pods"),
            "undo": Rule(M, "rolls a workload back"),
            **same(K8S, "pause resume"),
        }
    ),
    "auth": ToolRule(subcommands={**same(READS, "can-i whoami"), "reconcile": K8S}),
    "config": ToolRule(
        subcommands={
            "view": flags(pattern(r"\s--(?:raw|flatten)\b", REVEALS_SECRETS)),
            **same(READS, "get-contexts current-context get-clusters get-users"),
            **same(KUBECONFIG, "use-context use set set-context set-cluster unset"),
            **same(KUBECONFIG, "set-credentials delete-context delete-cluster delete-user"),
            "rename-context": KUBECONFIG,
        }
    ),
}
_OC: Mapping[str, Rule | ToolRule] = {
    **_KUBECTL,
    **same(READS, "status projects"),
    "whoami": flags(pattern(r"\s(?:-t|--show-token)\b", REVEALS_SECRETS)),
    "project": flags(pattern(r"^\s*(?:-\S+\s+)*[^-\s]", KUBECONFIG)),
    **same(KUBECONFIG, "login logout"),
    "rsh": opaque("opens a shell inside a container"),
    "rsync": Rule(M, "copies files into or out of a container"),
    **same(K8S, "new-app new-project new-build start-build cancel-build import-image tag"),
    **same(K8S, "process idle image policy secrets"),
    "extract": REVEALS_SECRETS,
    "adm": ToolRule(
        subcommands={
            **same(READS, "top node-logs"),
            "drain": Rule(M, "evicts every pod from a node"),
            **same(Rule(M, "stops scheduling on a node"), "cordon uncordon taint"),
            "policy": Rule(M, "changes who may do what in the cluster"),
        }
    ),
}
_HELM_OPTS = opts(
    "-n --namespace --kube-context --kubeconfig --kube-token --kube-apiserver --kube-as-user"
    " --kube-as-group --kube-ca-file --kube-tls-server-name --registry-config"
    " --repository-cache --repository-config --burst-limit --qps"
)
_HELM = ToolRule(
    value_options=_HELM_OPTS,
    subcommands={
        **same(READS, "list ls status history show template version search lint env verify"),
        **same(READS, "diff completion"),
        # A release's values and manifests hold its passwords and Secret objects.
        "get": ToolRule(
            subcommands={
                **same(READS, "notes metadata"),
                **same(REVEALS_SECRETS, "values manifest all hooks"),
            }
        ),
        **same(HELM, "install upgrade rollback"),
        **same(
            Rule(D, "uninstalls a Helm release, deleting its resources"), "uninstall delete del un"
        ),
        "test": Rule(M, "runs the release's test pods in the cluster"),
        **same(
            ToolRule(subcommands={"list": READS, "ls": READS}, bare=READS),
            "repo plugin dependency dep registry",
        ),
    },
)
_SWITCHER = flags(pattern(r"\s(?:-c|--current|-h|--help)\b", READS), pattern(r"\s\S", KUBECONFIG))

KUBERNETES_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "kubectl": ToolRule(value_options=_K8S_OPTS, subcommands=_KUBECTL),
    "oc": ToolRule(value_options=_K8S_OPTS, subcommands=_OC),
    "helm": _HELM,
    **same(_SWITCHER, "kubectx kubens"),
    **same(READS, "stern kubetail"),
}
