"""The rules a setting's value must follow: token prefixes, database drivers, S3 names, floors.

`model` checks each field against these; `loading` reads the S3 fields and ignored variables.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

# Read by the test-suite's fixtures, not by the application, so it is allowed but unused here.
IGNORED_VARIABLES = frozenset({"FM_TEST_DATABASE_URL"})
ASYNC_DATABASE_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")
TOKEN_PREFIXES = {"slack_bot_token": "xoxb-", "slack_app_token": "xapp-"}
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LogFormat = Literal["text", "json"]
MAX_PORT = 65535
MIN_TOKEN_CHARS = 16
# S3's bucket naming rules; a wrong name otherwise fails only at the first LanceDB call.
S3_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
S3_FIELDS = (
    "s3_endpoint",
    "s3_region",
    "s3_access_key_id",
    "s3_secret_access_key",
    "s3_allow_http",
)
# Below this a replica's heartbeat (an eighth of it) would come too often to be worth a write.
MIN_STALE_AFTER_S = 2.0
USERGROUP_ID = re.compile(r"S[A-Z0-9]{2,}")


def s3_bucket(uri: str) -> str | None:
    """The bucket of an s3:// URI, or None for a local path or another store."""
    parts = urlsplit(uri)
    return parts.netloc if parts.scheme in ("s3", "s3+ddb") else None
