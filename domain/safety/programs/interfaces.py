"""Command tables for interfaces, addresses, routes and traffic control: ip, tc and nmcli.

All three take any unambiguous abbreviation (`ip l s eth0 down` is `ip link set`): a word is
read-only only when no state-changing verb of its object starts with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.safety.rules import (
    NETWORK,
    READS,
    REVEALS_SECRETS,
    Check,
    Rule,
    Runs,
    ToolRule,
    Verdict,
    checked,
    opaque,
    opts,
    unknown_verb,
)


@dataclass(frozen=True)
class _Object:
    """An `ip` or `tc` object (`link`, `route`, `qdisc`) and its verbs."""

    reads: frozenset[str]
    changes: frozenset[str]
    runs: bool = False
    """`ip netns exec NAME command` runs a command inside a network namespace."""


_GENERIC = _Object(
    opts("show list lst get help dump"),
    opts("add set change replace delete flush restore create destroy update move attach detach"),
)
_IP_OBJECTS: tuple[tuple[str, _Object], ...] = (
    (
        "address",
        _Object(
            opts("show list lst save showdump help"),
            opts("add change chg replace delete flush restore"),
        ),
    ),
    ("addrlabel", _GENERIC),
    ("maddress", _GENERIC),
    (
        "route",
        _Object(
            opts("show list lst get save showdump help"),
            opts("add change replace prepend append delete flush restore"),
        ),
    ),
    ("rule", _Object(opts("show list lst save help"), opts("add delete flush restore"))),
    *(
        (name, _Object(opts("show list lst get help"), opts("add change chg replace delete flush")))
        for name in ("neighbor", "neighbour")
    ),
    *((name, _GENERIC) for name in ("ntable", "ntbl")),
    (
        "link",
        _Object(
            opts("show list lst xstats afstats help"),
            opts("add delete set change replace property"),
        ),
    ),
    *((name, _GENERIC) for name in opts("l2tp fou ila macsec tunnel tunl tuntap tap token")),
    *((name, _GENERIC) for name in ("tcpmetrics", "tcp_metrics")),
    ("monitor", _Object(frozenset(), frozenset())),
    ("xfrm", _GENERIC),
    ("mroute", _GENERIC),
    ("mrule", _GENERIC),
    (
        "netns",
        _Object(
            opts("list show identify pids monitor list-id help"),
            opts("add delete set attach"),
            runs=True,
        ),
    ),
    *((name, _GENERIC) for name in opts("netconf vrf sr nexthop mptcp ioam stats help")),
)
_TC_OBJECTS: tuple[tuple[str, _Object], ...] = (
    *(
        (name, _Object(opts("show list ls get help"), opts("add delete change replace link")))
        for name in ("qdisc", "class", "filter", "chain")
    ),
    *(
        (name, _Object(opts("list ls show get help"), opts("add delete change replace flush")))
        for name in ("actions", "action")
    ),
    ("monitor", _Object(frozenset(), frozenset())),
    ("exec", _Object(frozenset(), opts("bpf"))),
    ("help", _GENERIC),
)
_IP_VALUE_OPTIONS = opts("-n -netns -f -family -rc -rcvbuf -l -loops -N -cf -conf")


def _objects_check(
    tool: str,
    table: tuple[tuple[str, _Object], ...],
    value_options: frozenset[str] = _IP_VALUE_OPTIONS,
    changes_anywhere: frozenset[str] = frozenset(),
) -> Check:
    """`TOOL [options] OBJECT VERB …` where both may be abbreviated (`ip l s`, `nmcli c d`)."""

    def check(args: list[str], upstream: str | None) -> Verdict:
        if any(arg in ("-b", "-batch") for arg in args):
            return opaque(f"runs {tool} commands from a file the validator cannot inspect")
        words: list[str] = []
        skip = False
        for arg in args:
            if skip or (arg.startswith("-") and not words):
                skip = not skip and arg in value_options
            else:
                words.append(arg)
        if not words:
            return READS
        if any(word.lower() in changes_anywhere for word in words[1:]):
            return NETWORK
        found = next((obj for name, obj in table if name.startswith(words[0].lower())), None)
        if found is None:
            return unknown_verb(tool)
        return _object_verb(tool, found, words[1:], everywhere="-all" in args)

    return check


def _object_verb(tool: str, obj: _Object, words: list[str], *, everywhere: bool) -> Verdict:
    verb = words[0].lower() if words else ""
    if not obj.reads and not obj.changes:  # `ip monitor`, `tc monitor`
        return READS
    if not verb:
        return READS
    if obj.runs and "exec".startswith(verb):
        command = words[1:] if everywhere else words[2:]
        return Runs(words=tuple(command), also=NETWORK if not command else None, privileged=True)
    if any(change.startswith(verb) for change in obj.changes):
        return NETWORK
    if any(read.startswith(verb) for read in obj.reads):
        return READS
    return unknown_verb(tool)


_NMCLI_OBJECTS: tuple[tuple[str, _Object], ...] = (
    ("general", _Object(opts("status permissions logging hostname help"), opts("reload"))),
    ("networking", _Object(opts("connectivity help"), opts("on off"))),
    ("radio", _Object(opts("all wifi wwan help"), frozenset())),
    (
        "connection",
        _Object(
            opts("show monitor help"),
            opts("up down add modify edit clone delete reload load import export migrate"),
        ),
    ),
    (
        "device",
        _Object(
            opts("status show wifi lldp monitor help"),
            opts("set connect reapply modify disconnect delete up down"),
        ),
    ),
    ("agent", _Object(frozenset(), opts("secret polkit all"))),
    ("monitor", _Object(frozenset(), frozenset())),
    ("help", _GENERIC),
)
# `nmcli radio wifi off`, `nmcli device wifi connect x`.
_NMCLI_CHANGES = opts("on off connect hotspot rescan set")
_NMCLI_OBJECTS_CHECK = _objects_check(
    "nmcli",
    _NMCLI_OBJECTS,
    opts("-m --mode -f --fields -g --get-values -c --colors -e --escape -w --wait"),
    _NMCLI_CHANGES,
)


def _nmcli(args: list[str], upstream: str | None) -> Verdict | None:
    """nmcli takes abbreviations like ip; `-s` shows passwords, `general hostname x` renames."""
    if any(arg in ("-s", "--show-secrets") for arg in args):
        return REVEALS_SECRETS
    words = [arg.lower() for arg in args if not arg.startswith("-")]
    setting = len(words) > 2 and "general".startswith(words[0])
    if setting and any(name.startswith(words[1]) for name in ("hostname", "logging")):
        return NETWORK
    return _NMCLI_OBJECTS_CHECK(args, upstream)


INTERFACE_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "ip": checked(_objects_check("ip", _IP_OBJECTS)),
    "tc": checked(_objects_check("tc", _TC_OBJECTS)),
    "nmcli": checked(_nmcli),
}
