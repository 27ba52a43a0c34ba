"""Every command the validator knows by name, and the wrappers that run another command."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_databases import DATABASE_COMMANDS
from domain.safety_files import FILE_COMMANDS
from domain.safety_hosts import HOST_COMMANDS
from domain.safety_network import NETWORK_COMMANDS
from domain.safety_platforms import PLATFORM_COMMANDS
from domain.safety_rules import Rule, ToolRule, Wrapper, opts

COMMANDS: Mapping[str, Rule | ToolRule] = {
    **FILE_COMMANDS,
    **NETWORK_COMMANDS,
    **HOST_COMMANDS,
    **PLATFORM_COMMANDS,
    **DATABASE_COMMANDS,
}

_SUDO_OPTS = "-u --user -g --group -p --prompt -C --close-from -U --other-user -r --role -D -R -T"
_SSH_OPTS = "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B"
WRAPPERS: Mapping[str, Wrapper] = {
    "sudo": Wrapper(opts(_SUDO_OPTS), privileged=True),
    "doas": Wrapper(opts("-u -C"), privileged=True),
    "pkexec": Wrapper(opts("--user"), privileged=True),
    "env": Wrapper(opts("-u --unset -C --chdir")),
    "nice": Wrapper(opts("-n --adjustment")),
    "ionice": Wrapper(opts("-c --class -n --classdata")),
    "timeout": Wrapper(opts("-s --signal -k --kill-after"), skip=1),
    "watch": Wrapper(opts("-n --interval"), text=True),
    "xargs": Wrapper(
        opts("-I -n -P -L -d -E -s -a --max-args --max-procs --delimiter --arg-file"),
        keeps_stdin=False,
    ),
    "time": Wrapper(opts("-f --format -o --output")),
    "stdbuf": Wrapper(opts("-i -o -e")),
    "strace": Wrapper(opts("-p -o -e -s -u")),
    "ltrace": Wrapper(opts("-p -o -e -s -u")),
    **dict.fromkeys(("taskset", "chrt", "chroot", "flock"), Wrapper(skip=1)),
    "systemd-run": Wrapper(opts("-p --property -u --unit -M --machine -H --host"), privileged=True),
    "ssh": Wrapper(opts(_SSH_OPTS), skip=1, text=True),
    **dict.fromkeys(
        opts("nohup unbuffer exec command builtin busybox ! { } if then else elif"), Wrapper()
    ),
    **dict.fromkeys(opts("while until do"), Wrapper()),
}
