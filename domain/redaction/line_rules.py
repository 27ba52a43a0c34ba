"""The one-line rules of secret redaction: each kind of secret, its needles, its pattern, its mask.

Tokens with a known shape (cloud, VCS, chat, payment and LLM providers), ``Authorization``
headers, bearer tokens, cookies, passwords in URLs and query strings, command-line passwords, XML
elements and settings, and ``key = value`` pairs whose key names a secret. Each rule is gated by
cheap lower-case needles, so clean text costs little; ``domain.redaction.passes`` runs them in
order (``RULES``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from domain.redaction.parts import (
    BARE_VALUE,
    MARK,
    QUOTED_VALUE,
    looks_random,
    no_secret,
    secret_key,
    value_group,
)


@dataclass(frozen=True)
class Rule:
    """One kind of secret: cheap lower-case needles gate the pattern; ``mask`` decides each match.

    ``mask`` returns the replacement, or None to leave the match as it was.
    """

    name: str
    needles: tuple[str, ...]
    pattern: re.Pattern[str]
    mask: Callable[[re.Match[str]], str | None]


def _whole(_: re.Match[str]) -> str:
    return MARK


def _authorization(match: re.Match[str]) -> str | None:
    if not match["scheme"] and not looks_random(match["value"]):
        return None  # "Authorization: failed for user bob"
    return value_group(match)


def _bearer(match: re.Match[str]) -> str | None:
    return value_group(match) if looks_random(match["value"]) else None


_COOKIE_ATTRIBUTES = frozenset(
    [
        "path",
        "domain",
        "expires",
        "max-age",
        "samesite",
        "secure",
        "httponly",
        "priority",
        "partitioned",
        "version",
        "comment",
    ]
)
_COOKIE_PAIR = re.compile(r"(?P<name>[^\s=;,\"']+)=(?P<value>[^;\s\"',]+)")


def _cookies(match: re.Match[str]) -> str | None:
    pairs = match["pairs"]
    masked = _COOKIE_PAIR.sub(
        lambda pair: (
            pair.group(0)
            if pair["name"].lower() in _COOKIE_ATTRIBUTES
            else f"{pair['name']}={MARK}"
        ),
        pairs,
    )
    return None if masked == pairs else match["head"] + masked


def _url_password(match: re.Match[str]) -> str | None:
    if re.match(r"\d{1,5}(?:/|$)", match["value"]):
        return None  # host:port/path@…, not user:password@host
    return value_group(match)


def _key_value(match: re.Match[str]) -> str | None:
    line = match.string
    start = _key_start(line, match.start())
    key, value = line[start : match.start("sep")], match["value"]
    if not secret_key(key):
        return None
    in_prose = ":" in match["sep"] and not _LINE_START.search(line, 0, start)
    if no_secret(key, value, in_prose=in_prose):
        return None
    return value_group(match)


def _key_start(line: str, position: int) -> int:
    """Where the key around ``position`` starts: DB_PASSWORD, spring.datasource.password, -Dx.y."""
    start = position
    while start and line[start - 1] in _KEY_CHARACTERS:
        start -= 1
    if start and line[start - 1] == "\\" and line[start] == "n":
        start += 1  # a literal \n in a JSON-escaped log line starts a line
    while start < position and not line[start].isalpha():
        start += 1  # --password, -Dkey=…
    return start


_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


_LINE_START = re.compile(r"(?:^|\\n)[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?[\"']?$")
"""Only indentation, a YAML list dash, ``export`` or a quote before the key (or a literal ``\\n``
inside a JSON-escaped log line)."""
_TOKENS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("akia", "asia"), r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    (("gh",), r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    (
        ("gl",),
        r"\bgl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_-]{20,}|\bglsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}\b",
    ),
    (
        ("xox", "xapp-", "hooks.slack.com"),
        r"\bxox[abprsecd]-(?=[A-Za-z0-9%-]*\d)[A-Za-z0-9%-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}"
        r"|https://hooks\.slack\.com/(?:services|triggers|workflows)/[A-Za-z0-9/_-]+",
    ),
    (
        ("k_live_", "k_test_", "whsec_"),
        r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9+/=]{20,}",
    ),
    (
        ("sk-",),
        r"\bsk-(?:ant-(?:api|admin)\d{2}-|proj-|svcacct-|admin-)[A-Za-z0-9_-]{20,}"
        r"|\bsk-[A-Za-z0-9]{32,}\b",
    ),
    (("aiza",), r"\bAIza[0-9A-Za-z_-]{35}"),
    (("hv",), r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}"),
    (("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    (("sg.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    (("pypi-",), r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    (("_v1_",), r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    (("shp",), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    (("hf_",), r"\bhf_[A-Za-z0-9]{34,}\b"),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
"""Tokens with a known shape, each family gated by its own needles (shared prefixes keep the
needles, each one scan of the whole text, few)."""

_CLI: tuple[tuple[tuple[str, ...], str], ...] = (
    # --password X, --db-password=X, --token X (not --password-stdin or --token-file)
    (
        ("--",),
        r"(?i)(?<![\w-])--(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key|auth-token|"
        r"access-token|client-secret|secret-key|private-key)(?:=|[ \t]+)(?!-)"
        rf"(?P<value>{QUOTED_VALUE}|[^\s\"']+)",
    ),
    # mysql -pX / -p'X' (the password glued to -p; for psql, -p is the port)
    (
        ("mysql", "mariadb"),
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?[ \t]-p"
        rf"(?P<value>{QUOTED_VALUE}|[^\s\"']+)",
    ),
    # curl -u user:password
    (("curl",), r"\bcurl\b[^\n]*?[ \t](?:-u|--user)[ \t]*[\"']?[^\s:\"']+:(?P<value>[^\s\"']+)"),
    # docker login -p X, redis-cli -a X, sshpass -p X
    (
        ("login", "redis-cli", "sshpass"),
        r"\b(?:docker[ \t]+login\b[^\n]*?[ \t]-p|redis-cli\b[^\n]*?[ \t]-a|sshpass[ \t]+-p)[ \t]+"
        r"(?P<value>[^\s\"']+)",
    ),
    # redis.conf
    (("requirepass", "masterauth"), r"(?im)^[ \t]*(?:requirepass|masterauth)[ \t]+(?P<value>\S+)"),
)

_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", '"auth"')
"""Needles of the rules keyed by a secret's name (one search serves them all)."""

RULES: tuple[Rule, ...] = (
    *(Rule("token", needles, re.compile(token), _whole) for needles, token in _TOKENS),
    Rule(
        "authorization",
        ("authorization",),
        re.compile(
            r"(?i)\bauthorization[\"']?[ \t]*[:=]?[ \t]*[\"']?[ \t]*"
            r"(?P<scheme>(?:bearer|basic|token|bot|negotiate|ntlm|ssws|api-?key|key|sso-key)"
            r"[ \t]+)?(?P<value>[A-Za-z0-9._~+/:-]{8,}=*)"
        ),
        _authorization,
    ),
    Rule(
        "bearer",
        ("bearer",),
        re.compile(r"(?i)\bbearer[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)"),
        _bearer,
    ),
    Rule(
        "cookie",
        ("cookie",),
        re.compile(r"(?i)(?P<head>\b(?:set-)?cookie[\"']?[ \t]*:[ \t]*[\"']?)(?P<pairs>.*)"),
        _cookies,
    ),
    Rule(
        "url-password",
        ("://",),
        re.compile(
            r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@?#\"']*(?:@[^\s:/@?#\"']+)?:"
            r"(?P<value>[^\s?#\"']+)@(?=[A-Za-z0-9\[])"
        ),
        _url_password,
    ),
    Rule(
        "query-secret",
        ("sig=", "signature=", "key=", "token=", "secret=", "password="),
        re.compile(
            r"(?i)[?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|"
            r"key|api_?key|access_token|id_token|token|client_secret|password|secret)="
            r"(?P<value>[^&\s#\"'<>]+)"
        ),
        value_group,
    ),
    *(Rule("command-line", needles, re.compile(cli), value_group) for needles, cli in _CLI),
    Rule(
        "xml-element",
        _SECRET_WORDS,
        re.compile(
            r"(?i)<(?P<tag>[\w.-]*(?:password|passwd|secret|token|api-?key|api_key|accesskey|"
            r"access_key|privatekey|private_key)[\w.-]*)>(?P<value>[^<\n]+)</(?P=tag)>"
        ),
        value_group,
    ),
    Rule(
        "xml-setting",
        _SECRET_WORDS,
        re.compile(
            r"(?i)\bkey=[\"'][\w.-]*(?:password|secret|token|apikey|api[_-]key|connectionstring)"
            r"[\w.-]*[\"'][ \t]+value=[\"'](?P<value>[^\"'\n]+)"
        ),
        value_group,
    ),
    Rule(
        "key-value",
        _SECRET_WORDS,
        re.compile(
            # From the word that names a secret to the value; the key's start is found backwards
            # (`_key_value`), so keys that name no secret cost the regex nothing.
            r"(?i:pass|pwd|secret|token|key|credential|auth)[A-Za-z0-9_.-]*"
            r"(?P<sep>[\"']?[ \t]*(?:=>|:=|=|:(?![/\\]{2}))[ \t]*)"
            rf"(?P<value>{QUOTED_VALUE}|{BARE_VALUE})"
        ),
        _key_value,
    ),
)
