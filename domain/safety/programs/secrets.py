"""Secrets on disk: files whose contents must never be printed into a shared channel.

A command that prints or sends a file (cat, grep, less, base64…) must not be pointed at password
hashes, private keys or stored credentials, even through a glob (`/etc/sh?dow`). A command that
only looks at names and metadata (ls, stat) may, and so may a client handed a key to use
(`ssh -i key`, `curl --key key`, `etcdctl --key=key`): it uses the key without printing it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.safety.rules import D, Pattern, Rule, opts, pattern

PASSWORD_HASHES = Rule(D, "reads password hashes")
ACCOUNT_LIST = Rule(D, "reads the system account list")
PRIVATE_KEYS = Rule(D, "reads private keys")
CREDENTIALS = Rule(D, "reads stored credentials")

SECRET_FILES: tuple[Pattern, ...] = (
    pattern(r"/etc/+(?:\./+)*g?shadow\b", PASSWORD_HASHES),
    pattern(r"/etc/+(?:\./+)*passwd\b", ACCOUNT_LIST),
    pattern(
        r"(?i)\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|(?:^|[\s/~'\"=:])\.ssh(?:/|\b)"
        r"|(?<![\w.-])[\w.-]{0,80}key[\w.-]{0,80}\.pem\b|(?:^|[\s/=:'\"])[\w-]+\.key\b"
        r"|/etc/ssl/private\b",
        PRIVATE_KEYS,
    ),
    pattern(
        r"(?:\.aws/credentials|\.netrc|\.pgpass|\.git-credentials|\.docker/config\.json"
        r"|\.kube/config|\.vault-token|application_default_credentials\.json"
        r"|serviceaccount/token)\b"
        r"|/etc/kubernetes/(?:admin|super-admin|kubelet|controller-manager|scheduler)\.conf\b",
        CREDENTIALS,
    ),
)
# Looking up one account (`grep nginx /etc/passwd`) is what the account list is for.
_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack"})
# Commands that show a file's name or metadata, never its contents.
METADATA_ONLY = opts(
    "ls dir vdir stat file du wc test [ [[ realpath readlink basename dirname lsattr"
    " getfacl namei tree mountpoint lsof fuser"
)
_SSH_CLIENTS = frozenset({"ssh", "scp", "sftp", "autossh", "mosh"})
_KEY_OPTION = re.compile(
    r"^--?(?:key|cert|cacert|ca-cert|tlskey|tlscert|tlscacert|client-key|client-cert"
    r"|client-certificate|ssl-key|ssl-cert|ssl-ca|private-key|key-file|cert-file|keyfile|certfile"
    r"|identity-file|kubeconfig|CAfile)(?P<value>=.*)?$",
    re.S,
)
_SSH_KEY_OPTION = re.compile(
    r"^(?:-[iF]|-o\s*(?i:IdentityFile)[=\s]|(?i:IdentityFile)[=\s])(?P<value>.+)?$", re.S
)
_KEY_SETTING = re.compile(
    r"\bssl(?:key|cert|rootcert|crl)=\S*"
    r"|^(?:KUBECONFIG|GOOGLE_APPLICATION_CREDENTIALS|\w*_(?:CERT|KEY|CACERT)(?:_FILE)?)=.*",
    re.S,
)
# Secret files a glob could name, for `/etc/sh?dow`, `~/.s*/id*`, `/root/.aws/cred*`.
_HOMES = ("~", "$HOME", "${HOME}", "/root", "/home/user")
_SAMPLES: tuple[tuple[str, Rule], ...] = (
    ("/etc/shadow", PASSWORD_HASHES),
    ("/etc/gshadow", PASSWORD_HASHES),
    ("/etc/passwd", ACCOUNT_LIST),
    ("/etc/ssl/private/server.key", PRIVATE_KEYS),
    ("/etc/kubernetes/admin.conf", CREDENTIALS),
    *((f"{home}/.ssh/id_{kind}", PRIVATE_KEYS) for home in _HOMES for kind in ("rsa", "ed25519")),
    *(
        (f"{home}/{name}", CREDENTIALS)
        for home in _HOMES
        for name in (".aws/credentials", ".kube/config", ".pgpass", ".netrc", ".git-credentials")
    ),
)
_GLOB_CHARS = re.compile(r"[*?\[{]")
_MAX_GLOB = 300


def secret_files(name: str, words: Sequence[str], inputs: Sequence[str]) -> Rule | None:
    """The secret files a command with this name would read, given its words and input files."""
    if name in METADATA_ONLY:
        return None
    patterns = SECRET_FILES[:1] + SECRET_FILES[2:] if name in _SEARCHERS else SECRET_FILES
    texts = [*_without_keys(name, words), *inputs]
    joined = " ".join(texts)
    hit = next((rule for regex, rule in patterns if regex.search(joined)), None)
    if hit is not None:
        return hit
    allowed = {rule for _, rule in patterns}
    return next((rule for text in texts if (rule := _globbed(text, allowed)) is not None), None)


def _without_keys(name: str, words: Sequence[str]) -> list[str]:
    """The words without keys handed to a client (`ssh -i key`, `--key=key`, `sslkey=key`)."""
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        option = _KEY_OPTION.match(word) or (
            _SSH_KEY_OPTION.match(word) if name in _SSH_CLIENTS else None
        )
        if option is not None:
            skip_next = option.group("value") is None
            continue
        kept.append(_KEY_SETTING.sub("", word))
    return kept


def _globbed(word: str, allowed: set[Rule]) -> Rule | None:
    """The secret a glob in word could expand to, if any."""
    regex = _glob(word) if len(word) <= _MAX_GLOB and _GLOB_CHARS.search(word) else None
    if regex is None:
        return None
    return next((r for sample, r in _SAMPLES if r in allowed and regex.fullmatch(sample)), None)


def _glob(word: str) -> re.Pattern[str] | None:
    """A shell glob as a regex: `*`, `?`, `[...]` and `{a,b}` (wider than bash, never narrower)."""
    parts: list[str] = []
    index = 0
    while index < len(word):
        part, index = _glob_part(word, index)
        parts.append(part)
    try:
        return re.compile("".join(parts))
    except re.error:
        return None


def _glob_part(word: str, index: int) -> tuple[str, int]:
    char = word[index]
    if char in "*?":
        return ("[^/]*" if char == "*" else "[^/]"), index + 1
    close = word.find("]" if char == "[" else "}", index + 2)
    if char == "[" and close != -1:
        body = re.sub(r"([\\\[\]&~|])", r"\\\1", word[index + 1 : close])
        return "[" + ("^" + body[1:] if body[:1] == "!" else body) + "]", close + 1
    if char == "{" and close != -1 and "," in word[index:close]:
        options = word[index + 1 : close].split(",")
        return "(?:" + "|".join(re.escape(option) for option in options) + ")", close + 1
    return re.escape(char), index + 1
