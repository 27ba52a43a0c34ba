"""Command tables for cloud CLIs: only operations known to read are read-only.

aws: `aws [options] SERVICE OPERATION [...]`: the operation reads when it is `describe-*`,
`list-*`, `get-*`, `head-*`, `search-*`, `lookup-*`, `batch-get-*`, `validate-*`, `simulate-*`,
`wait`, or a known read (`aws logs start-query`, `aws s3 ls`). gcloud, az and doctl: the command
path ends at its first verb, which reads when it is `list`, `describe`, `show`, `read`, `get-*`…
Option values (`--services deploy-api`) are never read as the operation. Operations that print
secrets (`secretsmanager get-secret-value`, `az keyvault secret show`) are refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.safety.rules import (
    KUBECONFIG,
    READS,
    REVEALS_SECRETS,
    D,
    M,
    Rule,
    ToolRule,
    checked,
    opaque,
    opts,
)

CLOUD = Rule(M, "changes cloud resources")
CLOUD_DELETES = Rule(D, "deletes cloud resources")
_DELETES = re.compile(r"^(?:delete|terminate|remove|purge|destroy|rm|rb)(?:-[a-z0-9-]+)?$")
CLOUD_SAVES = Rule(M, "saves a download to disk")

# ---------------------------------------------------------------- aws

_AWS_VALUES = opts(
    "--region --profile --output --query --endpoint-url --color --ca-bundle --cli-read-timeout"
    " --cli-connect-timeout --cli-binary-format"
)
_AWS_READ = re.compile(
    r"^(?:(?:describe|list|get|head|search|lookup|batch-get|validate|estimate|simulate)-\S+"
    r"|wait|help)$"
)
_AWS_READS: Mapping[str, frozenset[str]] = {
    "logs": opts("start-query filter-log-events tail test-metric-filter"),
    "s3": opts("ls"),
    "dynamodb": opts("scan query"),
    "configure": opts("get list"),
    "sts": opts("decode-authorization-message"),
    "route53": opts("test-dns-answer"),
}
_AWS_SECRETS = frozenset(
    {
        ("secretsmanager", "get-secret-value"),
        ("secretsmanager", "batch-get-secret-value"),
        ("ecr", "get-login-password"),
        ("ecr", "get-login"),
        ("ecr", "get-authorization-token"),
        ("ecr-public", "get-login-password"),
        ("ecr-public", "get-authorization-token"),
        ("sts", "get-session-token"),
        ("sts", "get-federation-token"),
        ("eks", "get-token"),
        ("codeartifact", "get-authorization-token"),
        ("ec2", "get-password-data"),
        ("lightsail", "get-instance-access-details"),
        ("cognito-identity", "get-credentials-for-identity"),
        ("cognito-identity", "get-open-id-token"),
        ("sso", "get-role-credentials"),
        ("configure", "export-credentials"),
    }
)
# Reads that only print secrets with an option: `ssm get-parameter --with-decryption`.
_AWS_DECRYPTS = re.compile(
    r"^ssm get-parameter\S* .*--with-decryption\b|^apigateway get-api-keys? .*--include-values?\b"
    r"|^configure get \S*(?:secret|token)"
)
_AWS_SAVES = frozenset(
    {("s3api", "get-object"), ("s3api", "get-object-torrent"), ("glacier", "get-job-output")}
)


def _aws(args: list[str], upstream: str | None) -> Rule:
    words = _positionals(args, _AWS_VALUES)
    if not words:
        return READS
    service, operation = words[0].lower(), (words[1].lower() if len(words) > 1 else "")
    if not operation:
        return READS if service != "configure" else CLOUD
    given = " ".join([*words[2:], *(arg for arg in args if arg.startswith("--"))])
    if (service, operation) in _AWS_SECRETS or _AWS_DECRYPTS.search(
        f"{service} {operation} {given}"
    ):
        return REVEALS_SECRETS
    if (service, operation) in _AWS_SAVES:
        return CLOUD_SAVES
    if _AWS_READ.match(operation) or operation in _AWS_READS.get(service, frozenset()):
        return READS
    return CLOUD_DELETES if _DELETES.match(operation) else CLOUD


# ---------------------------------------------------------------- gcloud, az, doctl

_GROUP = re.compile(r"[a-z][a-z0-9-]*")
_READ_VERB = re.compile(
    r"^(?:list|describe|show|read|tail|get|exists|wait|version|info|help|query|logs|search"
    r"|status|(?:list|describe|get|show|search|check)-[a-z0-9-]+)$"
)
_WRITE_VERB = re.compile(
    r"^(?:create|delete|update|set|add|remove|attach|detach|start|stop|restart|reboot|reset"
    r"|resize|scale|deploy|rollback|import|export|move|migrate|promote|failover|switchover"
    r"|clone|copy|rotate|enable|disable|undelete|ssh|scp|login|logout|activate|revoke|init"
    r"|configure|apply|patch|put|modify|run|invoke|execute|send|publish|purge|cancel|suspend"
    r"|resume|tag|untag|upgrade|downgrade|register|deregister|associate|disassociate|allocate"
    r"|release|replace|restore|backup|sync|cp|mv|rm|generate|sign|encrypt|decrypt|approve"
    r"|reject|accept|deny|kill|unlock|lock|drain|submit|trigger|renew|assign|unassign|access"
    r"|download|upload|save|print-[a-z-]+|get-credentials)(?:-[a-z0-9-]+)?$"
)
_SECRET_PATHS = re.compile(
    r"(?:^| )(?:secrets(?: [a-z-]+)* versions access|print-(?:access|identity)-token"
    r"|secret (?:show|download|backup)|get-access-token|list-keys|list-connection-strings"
    r"|show-connection-string|list-publishing-(?:credentials|profiles)|keys list"
    r"|appsettings list|credential show|kubeconfig show|docker-config)(?: |$)"
)
_GLOBAL_VALUES: Mapping[str, frozenset[str]] = {
    "gcloud": opts(
        "--project --account --configuration --format --verbosity --impersonate-service-account"
        " --billing-project --flatten --filter --limit --page-size --sort-by --trace-token"
    ),
    "az": opts("--subscription --output -o --query"),
    "doctl": opts("--context -o --output -t --access-token --api-url -c --config --format"),
}


def _grouped_cli(tool: str) -> ToolRule:
    def check(args: list[str], upstream: str | None) -> Rule:
        path = _leading_path(args, _GLOBAL_VALUES[tool])
        for index, word in enumerate(path[:6]):
            if _SECRET_PATHS.search(" ".join(path[: index + 1])):
                return REVEALS_SECRETS
            if word == "get-credentials" or (word == "save" and "kubeconfig" in path[:index]):
                return KUBECONFIG
            if index > 0 and _WRITE_VERB.match(word):  # `gcloud run …` is a group
                return CLOUD_DELETES if _DELETES.match(word) else CLOUD
            if _READ_VERB.match(word):
                return READS
            if not _GROUP.fullmatch(word):
                break
        return opaque(f"is not a known read-only {tool} command")

    return checked(check)


def _leading_path(args: list[str], values: frozenset[str]) -> list[str]:
    """The command path: positional words before the first option that is not a global one."""
    path: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            if arg.partition("=")[0] not in values and arg not in ("-q", "--quiet"):
                break
            skip = arg in values
        else:
            path.append(arg.lower())
    return path


def _positionals(args: list[str], values: frozenset[str]) -> list[str]:
    words: list[str] = []
    skip = False
    for arg in args:
        if skip or arg.startswith("-"):
            skip = not skip and arg in values
        else:
            words.append(arg)
    return words


CLOUD_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "aws": checked(_aws),
    **{tool: _grouped_cli(tool) for tool in ("gcloud", "az", "doctl")},
}
