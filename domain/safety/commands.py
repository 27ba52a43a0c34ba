"""Every command the validator knows by name, and the wrappers that run another command.

A command missing from these tables is judged by its verbs and flags, and labelled "not checked"
(``domain.safety.guess``), or, when they say nothing, never read-only (``rules.UNKNOWN``).
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety.programs.cloud import CLOUD_COMMANDS
from domain.safety.programs.databases import DATABASE_COMMANDS
from domain.safety.programs.delivery import DELIVERY_COMMANDS
from domain.safety.programs.files import FILE_COMMANDS
from domain.safety.programs.hosts import HOST_COMMANDS
from domain.safety.programs.http import HTTP_COMMANDS
from domain.safety.programs.infra import INFRA_COMMANDS
from domain.safety.programs.interfaces import INTERFACE_COMMANDS
from domain.safety.programs.kubernetes import KUBERNETES_COMMANDS
from domain.safety.programs.messaging import MESSAGING_COMMANDS
from domain.safety.programs.network import NETWORK_COMMANDS
from domain.safety.programs.platforms import PLATFORM_COMMANDS
from domain.safety.rules import (
    PRIVILEGED_SHELL,
    READS,
    REMOTE_SHELL,
    WRITES_FILE,
    M,
    Rule,
    ToolRule,
    Wrapper,
    flags,
    opaque,
    opts,
    pattern,
)

COMMANDS: Mapping[str, Rule | ToolRule] = {
    **FILE_COMMANDS,
    **NETWORK_COMMANDS,
    **INTERFACE_COMMANDS,
    **HTTP_COMMANDS,
    **CLOUD_COMMANDS,
    **HOST_COMMANDS,
    **KUBERNETES_COMMANDS,
    **PLATFORM_COMMANDS,
    **INFRA_COMMANDS,
    **DATABASE_COMMANDS,
    **DELIVERY_COMMANDS,
    **MESSAGING_COMMANDS,
}

_SUDO_OPTS = (
    "-u --user -g --group -p --prompt -C --close-from -U --other-user -r --role -D --chdir"
    " -R --chroot -T --command-timeout -t --type"
)
_SSH_OPTS = "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B"
_SSH_RUNS = (
    r"(?i)\s-o\s*[\"']?(?:ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand"
    r"|RemoteCommand|Match)\b"
)
_TRACER = (
    pattern(
        r"\s(?:-[a-zA-Z]*p\b|--attach\b)",
        Rule(M, "attaches a tracer to a running process, which can slow or stall it"),
    ),
    pattern(r"\s(?:-[a-zA-Z]*o\b|--output\b)", WRITES_FILE),
)
_ROOT_SHELL_FLAGS = pattern(r"\s(?:-[a-zA-Z]*[si]\b|--shell\b|--login\b)", PRIVILEGED_SHELL)
# `sudo -l` lists what sudo allows; `sudo -l CMD` checks CMD, which is classified all the same.
_SHELL_ALONE = flags(default=PRIVILEGED_SHELL)

WRAPPERS: Mapping[str, Wrapper] = {
    "sudo": Wrapper(
        opts(_SUDO_OPTS),
        privileged=True,
        patterns=(pattern(r"\s(?:-[a-zA-Z]*e\b|--edit\b)", Rule(M, "edits files as root")),),
        alone=flags(_ROOT_SHELL_FLAGS),
    ),
    "doas": Wrapper(opts("-u -C"), privileged=True, alone=flags(_ROOT_SHELL_FLAGS)),
    "pkexec": Wrapper(opts("--user"), privileged=True, alone=_SHELL_ALONE),
    "chroot": Wrapper(opts("--userspec --groups"), skip=1, privileged=True, alone=_SHELL_ALONE),
    "nsenter": Wrapper(
        opts("-t --target -S --setuid -G --setgid"), privileged=True, alone=_SHELL_ALONE
    ),
    "unshare": Wrapper(opts("--map-user --map-group --setgroups"), alone=_SHELL_ALONE),
    "env": Wrapper(opts("-u --unset -C --chdir")),
    "nice": Wrapper(opts("-n --adjustment")),
    "ionice": Wrapper(opts("-c --class -n --classdata")),
    "timeout": Wrapper(opts("-s --signal -k --kill-after"), skip=1),
    "watch": Wrapper(opts("-n --interval"), text=True),
    "xargs": Wrapper(
        opts("-I -n -P -L -d -E -s -a --max-args --max-procs --delimiter --arg-file"),
        keeps_stdin=False,
    ),
    "parallel": Wrapper(
        opts(
            "-j --jobs -S --sshlogin --colsep -N -n -L -a --arg-file -d --delimiter -I --replace"
            " --tmpdir --workdir --halt --timeout --delay --retries --env"
        ),
        text=True,
        keeps_stdin=False,
        patterns=(pattern(r"\s--(?:joblog|results)\b", WRITES_FILE),),
    ),
    "time": Wrapper(
        opts("-f --format -o --output"), patterns=(pattern(r"\s(?:-o|--output)\b", WRITES_FILE),)
    ),
    "stdbuf": Wrapper(opts("-i -o -e")),
    **dict.fromkeys(
        ("strace", "ltrace"),
        Wrapper(opts("-p -o -e -s -u -a -b -E -I -O -P -S -X"), patterns=_TRACER),
    ),
    **dict.fromkeys(("taskset", "chrt", "flock", "faketime"), Wrapper(skip=1)),
    "systemd-run": Wrapper(opts("-p --property -u --unit -M --machine -H --host"), privileged=True),
    "systemd-cat": Wrapper(opts("-t --identifier -p --priority --stderr-priority")),
    "ssh": Wrapper(
        opts(_SSH_OPTS),
        skip=1,
        text=True,
        patterns=(pattern(_SSH_RUNS, opaque("runs a local or remote command set in its options")),),
        # `ssh -N -L 5432:db:5432 bastion` only forwards ports.
        alone=flags(pattern(r"\s-[a-zA-Z]*N\b", READS), default=REMOTE_SHELL),
    ),
    "sshpass": Wrapper(opts("-p -f -d -P")),
    "numactl": Wrapper(
        opts("-N --cpunodebind -m --membind -C --physcpubind -i --interleave -p --preferred")
    ),
    "command": Wrapper(patterns=(pattern(r"\s-[a-zA-Z]*[vV]\b", READS),)),
    **dict.fromkeys(
        opts("setsid nohup unbuffer exec builtin busybox toybox proxychains proxychains4"),
        Wrapper(),
    ),
    **dict.fromkeys(opts("torsocks catchsegv ! { } if then else elif while until do"), Wrapper()),
}
