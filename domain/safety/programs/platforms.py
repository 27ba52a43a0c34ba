"""Command tables for containers (Docker, Podman, Compose, Swarm), Terraform, Pulumi and git."""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.safety.findings import option_values, verb_candidates
from domain.safety.rules import (
    NETWORK,
    READS,
    REVEALS_SECRETS,
    WRITES_FILE,
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

CONTAINERS = Rule(M, "changes containers")
IMAGES = Rule(M, "changes container images")
SWARM = Rule(M, "changes the swarm or its services")
TF_STATE = Rule(M, "changes Terraform state")
DESTROYS = Rule(D, "destroys managed infrastructure")
DELETES_VOLUMES = Rule(D, "deletes volumes and the data in them")
REPO = Rule(M, "changes the repository")
CONFIG = Rule(M, "changes git configuration")

_CONTAINER = {
    **same(READS, "ps ls list logs inspect stats top port diff wait"),
    **same(CONTAINERS, "stop kill restart start pause unpause create update rename commit"),
    **same(CONTAINERS, "attach export"),
    "rm": Rule(M, "deletes containers"),
    "prune": Rule(M, "deletes stopped containers"),
    "exec": opaque("runs a command inside a container"),
    "run": Rule(M, "starts a new container"),
    "cp": Rule(M, "copies files into or out of a container"),
}
_COMPOSE = ToolRule(
    value_options=opts(
        "-f --file -p --project-name --profile --env-file --project-directory --ansi --parallel"
        " --progress"
    ),
    subcommands={
        **same(READS, "ps logs config top images ls port version events stats"),
        "down": flags(
            pattern(r"\s(?:-[a-zA-Z]*v\b|--volumes\b)", DELETES_VOLUMES), default=CONTAINERS
        ),
        **same(CONTAINERS, "up restart stop start rm kill pull build exec run create"),
        **same(CONTAINERS, "pause unpause scale cp watch push"),
    },
)
_SWARM_LISTS = "ls list inspect ps logs services"
_DOCKER = ToolRule(
    value_options=opts(
        "-H --host --context -c --config -l --log-level --tlscacert --tlscert --tlskey"
    ),
    subcommands={
        **_CONTAINER,
        **same(READS, "images events version info history search"),
        **same(IMAGES, "pull push build tag load import save login logout"),
        "rmi": Rule(M, "deletes images"),
        "container": ToolRule(subcommands=_CONTAINER),
        "image": objects(IMAGES, "ls list inspect history", "rm prune pull push build tag load"),
        "volume": ToolRule(
            subcommands={
                **same(READS, "ls list inspect"),
                "create": Rule(M, "creates volumes"),
                **same(DELETES_VOLUMES, "rm prune"),
            }
        ),
        "network": objects(NETWORK, "ls list inspect", "rm prune create connect disconnect"),
        "system": ToolRule(
            subcommands={
                **same(READS, "df info events"),
                "prune": flags(
                    pattern(r"\s--volumes\b", DELETES_VOLUMES),
                    default=Rule(M, "deletes unused Docker data"),
                ),
            }
        ),
        "compose": _COMPOSE,
        **same(
            objects(SWARM, _SWARM_LISTS, "rm remove create update scale rollback deploy"),
            "service stack node secret config",
        ),
        # The join token and the unlock key let anyone join or unlock the swarm.
        "swarm": ToolRule(
            patterns=(pattern(r"\s--rotate\b", SWARM),),
            subcommands={**same(REVEALS_SECRETS, "join-token unlock-key"), "ca": READS},
            default=SWARM,
        ),
        "builder": objects(Rule(M, "changes the build cache"), "du ls", "prune build"),
        "buildx": objects(
            Rule(M, "changes the build cache"), "ls du inspect version", "prune build bake rm"
        ),
        "context": objects(
            Rule(M, "changes the Docker context"), "ls list inspect show", "use create rm update"
        ),
        **same(objects(Rule(M, "changes Docker plugins"), "ls list inspect", "rm"), "plugin"),
        "manifest": objects(IMAGES, "inspect", "create push annotate rm"),
        "pod": ToolRule(subcommands=same(READS, "ps ls list inspect logs stats top exists")),
    },
)
_TERRAFORM = ToolRule(
    subcommands={
        **same(READS, "validate version providers graph modules metadata"),
        "plan": flags(pattern(r"\s-out[=\s]", WRITES_FILE)),
        # `-json`, `-raw` and a pulled state print sensitive values in plain text.
        "show": flags(pattern(r"\s-json\b", REVEALS_SECRETS)),
        "output": flags(pattern(r"\s-(?:json|raw)\b", REVEALS_SECRETS)),
        "fmt": flags(pattern(r"\s-check\b", READS), default=Rule(M, "rewrites files")),
        "destroy": DESTROYS,
        "apply": ToolRule(
            patterns=(pattern(r"\s-destroy\b", DESTROYS),),
            default=Rule(M, "changes real infrastructure"),
        ),
        "test": Rule(M, "creates and destroys real infrastructure to run tests"),
        "init": Rule(M, "prepares the working directory and can migrate state"),
        "console": opaque("opens an interactive console"),
        **same(TF_STATE, "import taint untaint refresh force-unlock get login logout"),
        "state": ToolRule(
            subcommands={
                **same(READS, "list show"),
                "pull": REVEALS_SECRETS,
                **same(TF_STATE, "rm mv push replace-provider"),
            }
        ),
        "workspace": objects(TF_STATE, "list show", "select new delete"),
    }
)
_PULUMI = ToolRule(
    patterns=(pattern(r"\s--show-secrets\b", REVEALS_SECRETS),),
    subcommands={
        **same(READS, "preview whoami about version logs"),
        "destroy": DESTROYS,
        "stack": ToolRule(
            subcommands=same(READS, "ls output history graph tag"),
            bare=READS,
            default=Rule(M, "changes Pulumi stacks"),
        ),
        "config": ToolRule(subcommands={"get": REVEALS_SECRETS}, bare=READS),
    },
    default=Rule(M, "changes real infrastructure"),
)
# `git branch`/`git tag` list by default; with a name they create, with -d they delete.
_REFS = flags(
    pattern(r"\s(?:-[a-zA-Z]*[dDmMcCf]|--(?:delete|move|copy|force|set-upstream-to))\b", REPO),
    pattern(r"\s(?:-[a-zA-Z]*[alrvn]|--(?:list|contains|merged|no-merged|points-at))\b", READS),
    pattern(r"^\s*(?:-\S+\s+)*[^-\s]", REPO),
)
_WRITES_OUTPUT = pattern(r"\s--output[=\s]", WRITES_FILE)
# `git -c` settings that only change how output looks; any other can make git run a program.
_HARMLESS_CONFIG = re.compile(
    r"(?i)^(?:color\.[\w.]+|core\.(?:quotepath|abbrev|autocrlf|safecrlf)|log\.[\w.]+"
    r"|safe\.directory|user\.[\w.]+|advice\.[\w.]+|column\.[\w.]+|grep\.[\w.]+|blame\.[\w.]+"
    r"|status\.[\w.]+|i18n\.[\w.]+|diff\.(?:renames|algorithm|noprefix|context|relative))="
)
_GIT_VALUES = opts("-C -c --git-dir --work-tree --namespace --config-env")


def _git_options(args: list[str], upstream: str | None) -> Rule | None:
    """git's own options before the subcommand: `-c core.fsmonitor=…` runs a program."""
    verbs = verb_candidates(args, _GIT_VALUES)
    own = args[: verbs[0]] if verbs else args
    settings = option_values(own, "c", opts("--config-env"), "C")
    exec_path = any(arg.startswith("--exec-path=") for arg in own)
    if exec_path or any(not _HARMLESS_CONFIG.match(setting) for setting in settings):
        return opaque("sets a git option that can make it run another program")
    return None


_CONFIG_WRITES = re.compile(
    r"^(?:--(?:add|unset\S*|replace-all|rename-section|remove-section|edit)|-e)$"
)
_CONFIG_READS = re.compile(r"^(?:--(?:get\S*|list|show-\S+|name-only)|-l|get|list)$")


def _git_config(args: list[str], upstream: str | None) -> Rule:
    """`git config` reads with --get, --list or a key alone; with a value or --unset it writes."""
    if any(_CONFIG_WRITES.match(arg) for arg in args):
        return CONFIG
    if any(_CONFIG_READS.match(arg) for arg in args):
        return READS
    words = [arg for arg in args if not arg.startswith("-")]
    return READS if len(words) == 1 else CONFIG


_GIT = ToolRule(
    check=_git_options,
    value_options=_GIT_VALUES,
    subcommands={
        **same(READS, "status show-ref ls-files ls-remote ls-tree rev-parse rev-list describe"),
        **same(READS, "shortlog cat-file for-each-ref name-rev merge-base count-objects fsck"),
        **same(READS, "verify-commit verify-tag whatchanged diff-tree range-diff cherry help"),
        **same(READS, "check-ignore check-attr version var"),
        **same(flags(_WRITES_OUTPUT), "log show diff"),
        "blame": READS,
        "grep": flags(
            pattern(
                r"\s(?:-[a-zA-Z]*O|--open-files-in-pager)",
                opaque("opens the matches with another program"),
            )
        ),
        "config": ToolRule(check=_git_config),
        "reflog": flags(
            pattern(r"\s(?:expire|delete|drop)(?=\s|$)", Rule(M, "deletes reflog entries"))
        ),
        "remote": ToolRule(
            subcommands={
                **same(READS, "show get-url"),
                **same(REPO, "add rename remove rm set-head set-branches set-url prune update"),
            }
        ),
        "stash": ToolRule(subcommands=same(READS, "list show"), bare=REPO, default=REPO),
        **same(ToolRule(subcommands=same(READS, "list show")), "worktree notes"),
        "submodule": ToolRule(subcommands=same(READS, "status summary"), default=REPO),
        "bisect": ToolRule(subcommands=same(READS, "log visualize view"), default=REPO),
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
        **same(REPO, "commit merge rebase pull cherry-pick revert am apply rm mv fetch"),
        **same(Rule(M, "deletes unreachable objects"), "gc prune repack maintenance"),
        **same(Rule(M, "rewrites refs directly"), "update-ref update-index replace"),
    },
)

PLATFORM_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(_DOCKER, "docker podman nerdctl"),
    "docker-compose": _COMPOSE,
    **same(_TERRAFORM, "terraform tofu"),
    "pulumi": _PULUMI,
    "git": _GIT,
}
