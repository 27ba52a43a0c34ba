"""Command tables for GitOps and service-mesh CLIs: Argo CD, Flux and istioctl.

Sources: the Argo CD command reference (argo-cd.readthedocs.io, user-guide/commands), the Flux
CLI reference (fluxcd.io/flux/cmd) and the istioctl reference (istio.io, reference/commands).

What they show reads (`argocd app get/history/diff`, `flux get`, `istioctl proxy-status`); what
they sync, roll back, set, suspend or install changes the cluster. Deleting an Argo CD application
cascades to everything it deployed, and `flux uninstall` removes Flux itself: those are withheld.
`argocd account generate-token` and `argocd admin initial-password` print credentials.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.rules import (
    KUBECONFIG,
    READS,
    REVEALS_SECRETS,
    D,
    M,
    Rule,
    ToolRule,
    flags,
    opts,
    pattern,
    same,
)

ROLLBACK = Rule(M, "rolls an Argo CD application back to an earlier revision")
SYNC = Rule(M, "syncs an Argo CD application, applying its manifests to the cluster")
APP_SETTINGS = Rule(M, "changes an Argo CD application's settings")
ARGOCD = Rule(M, "changes Argo CD's settings")
APP_DELETE = Rule(D, "deletes an Argo CD application and, by default, everything it deployed")
FLUX = Rule(M, "changes what Flux deploys (reconciles, suspends, resumes or creates resources)")
FLUX_DELETE = Rule(D, "deletes Flux resources, which can prune everything they deployed")
MESH = Rule(M, "changes the Istio installation or its configuration")
PROXY_LOGGING = Rule(M, "changes the logging level of an Envoy proxy")

_ARGOCD_VALUES = opts(
    "--server --auth-token --config --grpc-web-root-path -H --header --http-retry-max"
    " --kube-context --logformat --loglevel --port-forward-namespace --redis-name"
    " --repo-server-name --server-name --client-crt --client-crt-key --controller-name"
    " -o --output -N --app-namespace --revision --group --kind --name --namespace -c --container"
    " --tail --since-seconds --source-position --project -l --selector -p --parameter"
)
_ARGOCD_LISTS = ToolRule(subcommands=same(READS, "list get"), default=ARGOCD)

ARGOCD_TABLE = ToolRule(
    value_options=_ARGOCD_VALUES,
    subcommands={
        "app": ToolRule(
            subcommands={
                **same(READS, "get list history diff resources manifests logs wait"),
                "rollback": ROLLBACK,
                "sync": SYNC,
                **same(APP_SETTINGS, "set unset patch patch-resource edit add-source"),
                **same(APP_SETTINGS, "remove-source create terminate-op"),
                **same(APP_DELETE, "delete delete-resource"),
                "actions": ToolRule(subcommands={"list": READS, "run": APP_SETTINGS}),
            }
        ),
        **dict.fromkeys(
            opts("cluster proj repo repocreds cert gpg appset context projectwindows"),
            _ARGOCD_LISTS,
        ),
        "account": ToolRule(
            subcommands={
                **same(READS, "list get get-user-info can-i"),
                "generate-token": REVEALS_SECRETS,
            },
            default=ARGOCD,
        ),
        "admin": ToolRule(subcommands={"initial-password": REVEALS_SECRETS}),
        "version": READS,
        **same(KUBECONFIG, "login logout relogin"),
    },
)

_FLUX_VALUES = opts(
    "-n --namespace --context --kubeconfig --timeout --verbose --kind --level --name --since"
    " --tail --for"
)
FLUX_TABLE = ToolRule(
    value_options=_FLUX_VALUES,
    subcommands={
        **same(READS, "get logs check tree events stats version diff export trace build"),
        **same(FLUX, "reconcile suspend resume create install bootstrap push tag pull"),
        **same(FLUX_DELETE, "delete uninstall"),
    },
)

_PROXY_CONFIG = ToolRule(
    subcommands={
        **same(READS, "cluster clusters listener listeners route routes endpoint endpoints"),
        **same(READS, "bootstrap all ecds rootca-compare secret"),
        "log": flags(pattern(r"\s--(?:level|reset)\b", PROXY_LOGGING)),
    }
)
_ISTIO_READS = "proxy-status ps analyze version verify-install precheck dashboard bug-report"
ISTIOCTL_TABLE = ToolRule(
    value_options=opts("-n --namespace -i --istioNamespace --context -c --kubeconfig -o --output"),
    subcommands={
        **same(READS, _ISTIO_READS),
        **dict.fromkeys(("proxy-config", "pc"), _PROXY_CONFIG),
        **dict.fromkeys(
            ("x", "experimental"),
            ToolRule(subcommands=same(READS, "describe wait precheck check-inject")),
        ),
        "manifest": ToolRule(subcommands=same(READS, "generate diff"), default=MESH),
        **same(MESH, "install uninstall upgrade tag kube-inject"),
    },
)

DELIVERY_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "argocd": ARGOCD_TABLE,
    "flux": FLUX_TABLE,
    "istioctl": ISTIOCTL_TABLE,
}
