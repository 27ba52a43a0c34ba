"""Command tables for Kubernetes, containers, Helm, Terraform and git."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_rules import (
    NETWORK,
    READS,
    D,
    M,
    Rule,
    ToolRule,
    flags,
    objects,
    opts,
    pattern,
    same,
)

K8S = Rule(M, "changes Kubernetes resources")
KUBECONFIG = Rule(M, "changes the local kubeconfig")
CONTAINERS = Rule(M, "changes containers")
IMAGES = Rule(M, "changes container images")
HELM = Rule(M, "changes a Helm release")
TF_STATE = Rule(M, "changes Terraform state")
REPO = Rule(M, "changes the repository")

_K8S_OPTS = opts(
    "-n --namespace --context --kubeconfig --cluster --user -s --server --token --as"
    " --as-group -l --selector -o --output -c --container -f --filename --field-selector"
)
_KUBECTL = ToolRule(
    value_options=_K8S_OPTS,
    subcommands={
        **same(READS, "describe logs top explain events api-resources api-versions version"),
        "get": flags(
            pattern(
                r"^(?=.*\s(?:secrets?|secret/\S+)(?:\s|$))"
                r"(?=.*\s(?:-o|--output)[=\s]?(?!name\b|wide\b)\w)",
                Rule(D, "reveals secret values"),
            )
        ),
        **same(READS, "cluster-info diff wait"),
        **same(K8S, "apply edit patch replace create set label annotate taint expose autoscale"),
        **same(K8S, "run debug attach uncordon"),
        "delete": ToolRule(
            patterns=(
                pattern(
                    r"(?<!-n)(?<!--namespace)\s(?:namespaces?|ns)(?:[/,]\S*)?(?=\s|$)",
                    Rule(D, "deletes a whole Kubernetes namespace"),
                ),
                pattern(r"\s--all\b", Rule(D, "deletes every resource of a kind")),
            ),
            default=Rule(M, "deletes Kubernetes resources"),
        ),
        "scale": Rule(M, "scales a workload"),
        "cordon": Rule(M, "stops scheduling on a node"),
        "drain": Rule(M, "evicts every pod from a node"),
        "exec": Rule(M, "runs a command inside a container"),
        "cp": Rule(M, "copies files into or out of a container"),
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
                **same(READS, "view get-contexts current-context get-clusters get-users"),
                **same(KUBECONFIG, "use-context use set set-context set-cluster unset"),
                **same(KUBECONFIG, "set-credentials delete-context delete-cluster rename-context"),
            }
        ),
        "certificate": ToolRule(subcommands=same(K8S, "approve deny")),
    },
)


_CONTAINER = {
    **same(READS, "ps ls list logs inspect stats top port diff wait"),
    **same(CONTAINERS, "stop kill restart start pause unpause create update rename commit"),
    "rm": Rule(M, "deletes containers"),
    "prune": Rule(M, "deletes stopped containers"),
    "exec": Rule(M, "runs a command inside a container"),
    "run": Rule(M, "starts a new container"),
    "cp": Rule(M, "copies files into or out of a container"),
}
_COMPOSE = ToolRule(
    value_options=opts("-f --file -p --project-name --profile --env-file"),
    subcommands={
        **same(READS, "ps logs config top images ls port version events"),
        **same(CONTAINERS, "up down restart stop start rm kill pull build exec run create"),
        **same(CONTAINERS, "pause unpause scale"),
    },
)
_DOCKER = ToolRule(
    value_options=opts("-H --host --context -c --config -l --log-level"),
    subcommands={
        **_CONTAINER,
        **same(READS, "images events version info history search"),
        **same(IMAGES, "pull push build tag load import"),
        "rmi": Rule(M, "deletes images"),
        "container": ToolRule(subcommands=_CONTAINER),
        "image": objects(IMAGES, "ls list inspect history", "rm prune pull push build tag load"),
        "volume": objects(Rule(M, "changes volumes"), "ls list inspect", "rm prune create"),
        "network": objects(NETWORK, "ls list inspect", "rm prune create connect disconnect"),
        "system": objects(Rule(M, "deletes unused Docker data"), "df info events", "prune"),
        "compose": _COMPOSE,
    },
)
_TERRAFORM_APPLY = ToolRule(
    patterns=(pattern(r"\s-destroy\b", Rule(D, "destroys managed infrastructure")),),
    default=Rule(M, "changes real infrastructure"),
)
_TERRAFORM = ToolRule(
    subcommands={
        **same(READS, "plan show output validate version providers graph"),
        "destroy": Rule(D, "destroys managed infrastructure"),
        "apply": _TERRAFORM_APPLY,
        **same(TF_STATE, "import taint untaint refresh force-unlock"),
        "state": objects(TF_STATE, "list show pull", "rm mv push replace-provider"),
        "workspace": objects(TF_STATE, "list show", "select new delete"),
    }
)
# `git branch`/`git tag` list by default; with a name they create, with -d they delete.
_REFS = flags(
    pattern(r"\s(?:-[a-zA-Z]*[dDmMcCf]|--(?:delete|move|copy|force|set-upstream-to))\b", REPO),
    pattern(r"\s(?:-[a-zA-Z]*[alrvn]|--(?:list|contains|merged|no-merged|points-at))\b", READS),
    pattern(r"^\s*(?:-\S+\s+)*[^-\s]", REPO),
)
_GIT = ToolRule(
    value_options=opts("-C -c --git-dir --work-tree --namespace"),
    subcommands={
        **same(READS, "status log show diff blame grep ls-files ls-remote rev-parse describe"),
        **same(READS, "shortlog reflog cat-file"),
        "push": ToolRule(
            patterns=(
                pattern(
                    r"\s(?:--force\b|-[a-zA-Z]*f\b|\+\S)",
                    Rule(D, "force-pushes, overwriting shared history"),
                ),
            ),
            default=Rule(M, "pushes commits to a shared remote"),
        ),
        "reset": Rule(M, "moves the branch and can discard local changes"),
        **same(_REFS, "branch tag"),
        "clean": Rule(M, "deletes untracked files"),
        **same(Rule(M, "changes files in the working tree"), "checkout switch restore"),
        **same(REPO, "commit merge rebase pull cherry-pick revert am apply rm mv stash"),
    },
)

PLATFORM_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(_KUBECTL, "kubectl oc"),
    **same(_DOCKER, "docker podman"),
    "docker-compose": _COMPOSE,
    "helm": ToolRule(
        value_options=opts("-n --namespace --kube-context --kubeconfig"),
        subcommands={
            **same(READS, "list ls status history get show template version search lint env"),
            **same(HELM, "install upgrade uninstall rollback delete del un"),
        },
    ),
    "terraform": _TERRAFORM,
    "git": _GIT,
}
