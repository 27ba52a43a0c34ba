"""Slack request signing (v0 HMAC-SHA256), as Slack signs requests to an app's endpoints."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_VERSION = "v0"


def signature(body: bytes | str, secret: str, timestamp: int | str) -> str:
    """The `X-Slack-Signature` value for a body sent at `timestamp`."""
    raw = body.encode() if isinstance(body, str) else body
    base = f"{SIGNATURE_VERSION}:{timestamp}:".encode() + raw
    digest = hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return f"{SIGNATURE_VERSION}={digest}"


def sign(body: bytes | str, secret: str, timestamp: int | str | None = None) -> dict[str, str]:
    """Headers exactly as Slack sends them: request timestamp and signature."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    return {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature(body, secret, ts),
    }
