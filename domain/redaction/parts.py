"""The vocabulary of secret redaction: markers, what a secret's key looks like, which values are
no secret, and how a matched value is masked (``domain.redaction`` is the public face)."""

from __future__ import annotations

import re

MARK = "[REDACTED]"
KEY_MARK = "[REDACTED PRIVATE KEY]"
QUOTED_VALUE = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
BARE_VALUE = r"(?:[^\s,;&\"'}{)(\]<>\\]|\\(?!n))+"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GLUED = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "credential",
    "credentials",
)
"""Name parts that make a key secret even glued to a prefix: dbPassword, PGPASSWORD, jwtSecret."""
_KEY_QUALIFIERS = _words(
    "api access secret private license app account master signing encryption session storage "
    "subscription shared client deploy service"
)
"""Words that make a following ``key`` part a secret: api_key, AccountKey, DD_APP_KEY."""
_NOT_THE_SECRET = _words(
    "id ids name names namespace ns path paths file files dir url uri urls endpoint endpoints "
    "source process version versions hasher hash hashed algorithm alg length len min max ttl "
    "expiry expires expiration expire exp expired count type kind ref refs at time timeout "
    "policy provider method mode header field format rotation rotated rotate created updated "
    "lifetime age size limit prefix hint env var label enabled required reset changed store "
    "manager status scope scopes issuer audience stdin location locations template arn"
)
"""A key ending in one of these only *mentions* a secret: token_ttl, secret_name, api_key_id."""
_NO_SECRET_VALUES = _words(
    "true false null none nil yes no on off missing invalid expired required incorrect empty "
    "unset redacted hidden masked provided wrong mismatch"
)
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_REFERENCE = re.compile(
    r"""^(?:\$(?:[{(A-Za-z_]|$)|\{\{|%\(|<[^<>]*>$|\*+$|x{3,}$|\.{3}$|"""
    r"""(?:/|~/|\./|\.\./|[A-Za-z]:\\)|[a-z][a-z0-9+.-]*://|[a-z0-9]([-a-z0-9]*[a-z0-9])?/"""
    r"""[a-z0-9]([-a-z0-9.]*[a-z0-9])?$)"""
)
"""Values that are no secret: ${VAR}, {{ .Values.x }}, <your-password>, ***, paths, URLs (their
passwords have a rule of their own), namespace/name references."""


def secret_key(key: str) -> bool:
    """Whether a key such as ``DB_PASSWORD``, ``dbPassword`` or ``x-api-key`` names a secret."""
    parts = [part.lower() for part in _PARTS.findall(key)]
    if not parts:
        return False
    if len(parts) == 1 and parts[0] == "auth" and key.lower() == "auth":
        return True  # a docker config's "auth": base64 of user:password
    for index, part in enumerate(parts):
        named = (
            part.endswith(_GLUED)
            or (part == "pass" and (index > 0 or len(parts) == 1))
            or part == "pwd"
            or (part == "key" and index > 0 and parts[index - 1] in _KEY_QUALIFIERS)
        )
        if named:
            last = parts[-1]
            return index == len(parts) - 1 or last not in _NOT_THE_SECRET
    return False


def no_secret(key: str, value: str, *, in_prose: bool = False) -> bool:
    """Values that are left alone although their key names a secret.

    ``in_prose``: the key is followed by a colon in the middle of a line, where a log message
    goes on in words ("Token: Token { kind: … }", "password: expired").
    """
    bare = value.strip("\"'").strip()
    if not bare or bare.startswith("[REDACTED") or bare.lower() in _NO_SECRET_VALUES:
        return True
    if bare.isdigit() and len(bare) <= 5:
        return True  # token_count=1290, "Token: 42 refreshed"
    if _REFERENCE.match(bare):
        return True
    if key.lower() in ("pwd", "oldpwd") and bare.startswith(("/", "~")):
        return True
    quoted = value[:1] in "\"'"
    return in_prose and not quoted and bare.isalpha() and len(bare) <= 7


def value_group(match: re.Match[str]) -> str:
    """Keep everything but the ``value`` group."""
    start, end = match.start("value") - match.start(), match.end("value") - match.start()
    whole = match.group(0)
    value = match["value"]
    quote = value[0] if value[:1] in ("'", '"') and value[-1:] == value[:1] else ""
    return f"{whole[:start]}{quote}{MARK}{quote}{whole[end:]}"


_RANDOM_MIXED = re.compile(r"(?=.*\d)(?=.*[a-z])(?=.*[A-Z])")
_HEX = re.compile(r"[0-9a-fA-F]{16,}")


def looks_random(value: str) -> bool:
    """Mixed case with digits, or long hex: how generated credentials look (not identifiers)."""
    return bool(_RANDOM_MIXED.match(value) or _HEX.fullmatch(value.rstrip("=")))
