"""Command tables for firewalls, captures, sockets, raw connections, TLS and WireGuard.

Interfaces, routes and traffic control (`ip`, `tc`, `nmcli`) are in
``domain.safety.programs.interfaces``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.safety.findings import echoed_lines
from domain.safety.rules import (
    NETWORK,
    READS,
    REVEALS_SECRETS,
    WRITES_FILE,
    D,
    M,
    Rule,
    ToolRule,
    checked,
    flags,
    objects,
    opaque,
    opts,
    pattern,
    same,
    unknown_verb,
    worst,
)

FIREWALL = Rule(M, "changes firewall rules")
FIREWALL_FLUSH = Rule(D, "flushes every firewall rule")
CAPTURE = Rule(M, "writes a capture file or runs a command on it")
SENDS_INPUT = opaque("sends its input to a network service, which cannot be checked")
HANDS_OVER = Rule(D, "hands a shell or program to whoever connects")
LISTENS = Rule(M, "listens for network connections")
CONNECTS = opaque("opens an interactive network connection")

# ---------------------------------------------------------------- firewalls

_IPTABLES_LONG = {
    "--flush": "F",
    "--append": "A",
    "--delete": "D",
    "--insert": "I",
    "--replace": "R",
    "--new-chain": "N",
    "--delete-chain": "X",
    "--policy": "P",
    "--zero": "Z",
    "--rename-chain": "E",
    "--list": "L",
    "--list-rules": "S",
    "--check": "C",
}


def _iptables(args: list[str], upstream: str | None) -> Rule:
    """iptables commands are upper-case options: list and check read, everything else changes."""
    commands: set[str] = set()
    for arg in args:
        if arg.startswith("--"):
            commands.add(_IPTABLES_LONG.get(arg.partition("=")[0], ""))
        elif arg.startswith("-"):
            commands.update(letter for letter in arg[1:] if letter.isupper())
    if "F" in commands:
        return FIREWALL_FLUSH
    if commands & set("ADIRNXPZE"):
        return FIREWALL
    if commands & set("LSC") or any(arg in ("-h", "--help", "--version", "-V") for arg in args):
        return READS
    return FIREWALL


_NFT_READS = opts("list describe monitor help")
_NFT_CHANGES = opts("add delete insert replace create destroy reset rename flush import export")


def _nft(args: list[str], upstream: str | None) -> Rule:
    if any(arg in ("-f", "--file", "-i", "--interactive") for arg in args):
        checks_only = any(arg in ("-c", "--check") for arg in args)
        return READS if checks_only else opaque("changes firewall rules from a file or prompt")
    words = " ".join(arg for arg in args if not arg.startswith("-")).replace(";", " ; ")
    return worst(_nft_command(part.split()) for part in words.split(" ; ") if part.strip())


def _nft_command(words: list[str]) -> Rule:
    verb = words[0].lower()
    if verb == "flush" and len(words) > 1 and words[1].lower() == "ruleset":
        return FIREWALL_FLUSH
    if verb in _NFT_CHANGES:
        return FIREWALL
    return READS if verb in _NFT_READS else unknown_verb("nft")


_FIREWALLD_READS = re.compile(
    r"^(?:--state|--list-\S+|--get-\S+|--query-\S+|--info-\S+|--zone(?:=\S+)?|--permanent"
    r"|--policy(?:=\S+)?|-q|--quiet|--version|-h|--help)$"
)


def _firewall_cmd(args: list[str], upstream: str | None) -> Rule:
    if "--panic-on" in args:
        return Rule(D, "drops all network traffic to and from the machine")
    options = [arg for arg in args if arg.startswith("-")]
    return READS if all(_FIREWALLD_READS.match(arg) for arg in options) else FIREWALL


# ---------------------------------------------------------------- raw connections

_PROBES = opts("ruok stat srvr mntr conf cons envi wchs isro stats version info ping")


def _netcat(args: list[str], upstream: str | None) -> Rule:
    """nc: a port check reads; a shell handed out, a listener or piped input does not."""
    cluster = "".join(arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--"))
    long_exec = any(arg.startswith(("--exec", "--sh-exec", "--lua-exec")) for arg in args)
    if "e" in cluster or "c" in cluster or long_exec:
        return HANDS_OVER
    if "l" in cluster or "--listen" in args:
        return LISTENS
    if "z" in cluster:
        return READS
    lines = echoed_lines(upstream)
    if lines is not None and all(line.split()[0].lower() in _PROBES for line in lines if line):
        return READS
    return SENDS_INPUT if upstream is not None else CONNECTS


def _socat(args: list[str], upstream: str | None) -> Rule:
    if any(re.match(r"(?i)(?:exec|system):", arg) for arg in args):
        return HANDS_OVER
    return Rule(M, "relays data between connections")


def _quiet_input(upstream: str | None) -> bool:
    """What `echo | openssl s_client` and `... < /dev/null` feed: nothing that matters."""
    lines = echoed_lines(upstream)
    quiet = lines is not None and all(line.upper() in ("Q", "QUIT") for line in lines)
    return upstream is None or quiet or re.search(r"<\s*/dev/null\s*$", upstream) is not None


def _tls_client(args: list[str], upstream: str | None) -> Rule | None:
    return None if _quiet_input(upstream) else SENDS_INPUT


_PRINTS_KEY = flags(pattern(r"\s-(?:pubout|noout)\b", READS), default=REVEALS_SECRETS)
_OPENSSL = ToolRule(
    patterns=(
        pattern(r"\s-(?:engine|provider-path)\b", opaque("loads code through an OpenSSL engine")),
        pattern(
            r"\s-(?:out|keyout|sess_out|writerand|msgfile|keylogfile|respout|reqout)\b",
            WRITES_FILE,
        ),
    ),
    subcommands={
        **same(
            READS,
            "x509 verify crl req version ciphers dgst sha1 sha256 sha384 sha512 md5 asn1parse list"
            " errstr crl2pkcs7 ocsp speed rand base64 prime pkcs7 storeutl s_time help",
        ),
        "s_client": ToolRule(check=_tls_client, default=READS),
        **same(_PRINTS_KEY, "pkey rsa ec dsa"),
        "pkcs12": flags(pattern(r"\s-nokeys\b", READS), default=REVEALS_SECRETS),
        "s_server": LISTENS,
    },
)


def _wireguard(args: list[str], upstream: str | None) -> Rule:
    if (args and args[0] == "showconf") or any(
        "private-key" in a or "preshared" in a for a in args
    ):
        return REVEALS_SECRETS
    return READS if not args or args[0] in ("show", "pubkey") else NETWORK


NETWORK_COMMANDS: Mapping[str, Rule | ToolRule] = {
    "ethtool": flags(
        pattern(
            r"\s(?!-[acgiklPSTdemnuxwDhVI](?:\s|$)|--(?:show-\S+|statistics|phy-statistics|driver"
            r"|register-dump|eeprom-dump|module-info|dump-module-eeprom|get-dump|json|help"
            r"|version|debug|include-statistics|all-groups)(?:\s|$))-",
            NETWORK,
        )
    ),
    **same(
        flags(pattern(r"\s(?:-[a-zA-Z]*[wz]\b|--(?:write|postrotate-command)\b)", CAPTURE)),
        "tcpdump tshark dumpcap",
    ),
    "ss": flags(
        pattern(r"\s(?:-[a-zA-Z]*K|--kill)\b", Rule(M, "closes network connections")),
        pattern(r"\s(?:-[a-zA-Z]*D|--diag)\b", WRITES_FILE),
    ),
    "conntrack": flags(
        pattern(r"\s(?:-[LSCEG]|--(?:dump|stats|count|event|get))\b", READS),
        default=NETWORK,
    ),
    "ipvsadm": flags(pattern(r"\s(?:-[a-zA-Z]*[LlS]|--(?:list|save))\b", READS), default=NETWORK),
    "arp": flags(pattern(r"\s(?:-[a-zA-Z]*[dsf]|--(?:delete|set|file))\b", NETWORK)),
    "arping": flags(pattern(r"\s-[a-zA-Z]*[UA]\b", NETWORK)),
    **same(
        checked(_iptables),
        "iptables ip6tables iptables-nft iptables-legacy ip6tables-nft ip6tables-legacy"
        " ebtables arptables",
    ),
    **same(
        READS,
        "iptables-save ip6tables-save iptables-nft-save iptables-legacy-save ip6tables-nft-save"
        " ip6tables-legacy-save",
    ),
    **same(FIREWALL, "iptables-restore ip6tables-restore iptables-nft-restore"),
    "nft": checked(_nft),
    "firewall-cmd": checked(_firewall_cmd),
    "ufw": ToolRule(subcommands=same(READS, "status show"), default=FIREWALL),
    **same(checked(_netcat), "nc ncat netcat"),
    "socat": checked(_socat),
    "openssl": _OPENSSL,
    "wg": checked(_wireguard),
    "resolvectl": objects(
        Rule(M, "changes DNS settings"),
        "status query statistics monitor show-cache show-server-state service openpgp tlsa",
        "flush-caches reset-statistics reset-server-features dns domain default-route llmnr"
        " mdns dnssec dnsovertls nta revert log-level",
    ),
    "networkctl": objects(NETWORK, "list status lldp label", "up down reload reconfigure renew"),
    "ifconfig": flags(pattern(r"^\s*(?:-\S+\s+)*[^-\s]\S*\s+\S", NETWORK)),
    "route": flags(pattern(r"\s(?:add|del|delete|change|flush)\b", NETWORK)),
}
