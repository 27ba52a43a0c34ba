"""Command tables for HTTP clients, cloud CLIs, interfaces, routes, firewalls and captures."""

from __future__ import annotations

from collections.abc import Mapping

from domain.safety_rules import (
    NETWORK,
    READS,
    UNKNOWN,
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

_CURL_SENDS = (
    r"\s(?:-[a-zA-Z]*X\s*|--request[=\s])(?!GET\b|HEAD\b|OPTIONS\b)[A-Za-z]"
    r"|\s(?:-(?!X)[a-zA-Z]*[dFT]|--data\S*|--form\S*|--upload-file|--json)(?=[\s=]|$)"
)
_CURL_SAVES = (
    r"\s-(?!X)[a-zA-Z]*o\s*(?!/dev/null\b)\S|\s--output[=\s](?!/dev/null\b)"
    r"|\s-(?!X)[a-zA-Z]*O(?=\s|$)|\s--remote-name"
)

SENDS = Rule(M, "sends a request that changes data on the server")
SAVES = Rule(M, "saves a download to disk")
FIREWALL = Rule(M, "changes firewall rules")
FIREWALL_FLUSH = Rule(D, "flushes every firewall rule")

_CLOUD = flags(
    pattern(
        r"\s(?:delete|terminate|stop|start|restart|reboot|upgrade|rollback|apply|patch|put|create|update|modify|remove|attach|detach"
        r"|run|invoke|deregister|register|revoke|authorize|disable|enable|reset|restore|set|tag"
        r"|untag|import|cancel|associate|disassociate|replace|release|allocate|send|publish"
        r"|purge|rm|mv|cp|sync|mb|rb|resize|scale|deploy|ssh|scp)(?:-[\w-]+)?(?=\s|$)",
        Rule(M, "changes cloud resources"),
    ),
    pattern(r"\s(?:describe|list|get|ls|tail|filter|lookup|search|show|query|scan)\b", READS),
    default=UNKNOWN,
)
_IP_OBJECT = objects(NETWORK, "show list ls lst get", "set add del delete change replace flush")

NETWORK_COMMANDS: Mapping[str, Rule | ToolRule] = {
    **same(_CLOUD, "aws gcloud az doctl"),
    "tc": flags(pattern(r"\s(?:add|del|delete|change|replace|link)\b", NETWORK)),
    "ethtool": flags(pattern(r"\s(?:-[sKGACLW]|--(?:change|offload|features|set-\S+))\b", NETWORK)),
    "nmcli": flags(
        pattern(
            r"\s(?:up|down|delete|del|modify|add|reload|disconnect|connect|set|off|on|import)\b",
            NETWORK,
        )
    ),
    "tcpdump": flags(pattern(r"\s-[a-zA-Z]*w\b", Rule(M, "writes a capture file"))),
    "curl": flags(pattern(_CURL_SENDS, SENDS), pattern(_CURL_SAVES, SAVES)),
    "wget": flags(
        pattern(r"\s--(?:post-data|post-file|body-data|body-file)\b", SENDS),
        pattern(r"\s--method[=\s](?:POST|PUT|DELETE|PATCH)\b", SENDS),
        pattern(r"\s(?:-[a-zA-Z]*O\s*(?:-|/dev/null)(?=\s|$)|--spider\b)", READS),
        pattern(r"\s--output-document[=\s](?:-|/dev/null)(?=\s|$)", READS),
        default=SAVES,
    ),
    "http": flags(pattern(r"\s(?:POST|PUT|DELETE|PATCH)\s", SENDS)),
    **same(
        flags(
            pattern(r"\s(?:-F|--flush)(?=\s|$)", FIREWALL_FLUSH),
            pattern(
                r"\s(?:-[ADIRNXPZE]|--(?:append|delete|insert|replace|policy|zero))\b", FIREWALL
            ),
        ),
        "iptables ip6tables",
    ),
    "nft": objects(FIREWALL, "list", "add delete insert replace create destroy reset"),
    "ufw": ToolRule(subcommands=same(READS, "status show"), default=FIREWALL),
    "iptables-restore": FIREWALL,
    "ip": ToolRule(
        value_options=opts("-n -netns -b -batch -f -family"),
        subcommands=same(_IP_OBJECT, "link l addr address a route r neigh n rule ru"),
    ),
    "ifconfig": flags(pattern(r"^\s*(?:-\S+\s+)*[^-\s]\S*\s+\S", NETWORK)),
    "route": flags(pattern(r"\s(?:add|del|delete|change|flush)\b", NETWORK)),
}
