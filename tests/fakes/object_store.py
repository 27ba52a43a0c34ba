"""An S3-compatible server for tests: moto in its own process on 127.0.0.1, checking credentials.

moto accepts any credentials until its IAM checks are switched on. The server creates one user
with full S3 access first and then switches them on, so, as on AWS, a wrong secret is refused
(`SignatureDoesNotMatch`) and so is an unknown key (`InvalidAccessKeyId`). Each test takes its own
bucket (`S3Server.bucket()`); `S3Bucket.env()` gives the bot's settings for it.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3

REGION = "us-east-1"
START_S = 60.0
RUNNING = re.compile(r"Running on http://127\.0\.0\.1:(\d+)")
FULL_S3_ACCESS = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
}


@dataclass(frozen=True)
class S3Bucket:
    """One bucket on the server and the credentials that may use it."""

    endpoint: str
    name: str
    access_key_id: str
    secret_access_key: str = field(repr=False)

    def uri(self, prefix: str = "lancedb") -> str:
        """`s3://bucket/prefix`, as FM_LANCEDB_URI names it."""
        return f"s3://{self.name}/{prefix}"

    def env(self, prefix: str = "lancedb", **changes: str) -> dict[str, str]:
        """The bot's settings for a LanceDB under `prefix` in this bucket (`changes` win)."""
        return {
            "FM_LANCEDB_URI": self.uri(prefix),
            "FM_S3_ENDPOINT": self.endpoint,
            "FM_S3_REGION": REGION,
            "FM_S3_ACCESS_KEY_ID": self.access_key_id,
            "FM_S3_SECRET_ACCESS_KEY": self.secret_access_key,
            "FM_S3_ALLOW_HTTP": "true",
            **changes,
        }

    def object_keys(self) -> list[str]:
        """Every object key in the bucket (to show that data went there)."""
        client = _client("s3", self.endpoint, self.access_key_id, self.secret_access_key)
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=self.name)
        return [item["Key"] for page in pages for item in page.get("Contents", [])]


class S3Server:
    """`python -m moto.server` on a free port of 127.0.0.1, with one S3 user."""

    def __init__(self, process: subprocess.Popen[bytes], endpoint: str) -> None:
        self.process = process
        self.endpoint = endpoint
        iam = _client("iam", endpoint, "setup", "setup")  # accepted: checks are not on yet
        iam.create_user(UserName="faultmaven")
        key = iam.create_access_key(UserName="faultmaven")["AccessKey"]
        iam.put_user_policy(
            UserName="faultmaven", PolicyName="s3", PolicyDocument=json.dumps(FULL_S3_ACCESS)
        )
        self.access_key_id = str(key["AccessKeyId"])
        self._secret = str(key["SecretAccessKey"])
        _check_credentials_from_now_on(endpoint)

    @classmethod
    @contextlib.contextmanager
    def running(cls, folder: Path) -> Iterator[S3Server]:
        """Start the server (its request log goes to `folder`) and stop it at the end."""
        log = folder / "moto.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
                stdout=subprocess.DEVNULL,
                stderr=sink,
            )
        try:
            yield cls(process, _wait_for_port(process, log))
        finally:
            process.terminate()
            process.wait(timeout=30)

    def bucket(self) -> S3Bucket:
        """A new, empty bucket that only this server's user may use."""
        name = f"fm-{uuid.uuid4().hex[:12]}"
        _client("s3", self.endpoint, self.access_key_id, self._secret).create_bucket(Bucket=name)
        return S3Bucket(self.endpoint, name, self.access_key_id, self._secret)


def _client(service: str, endpoint: str, key_id: str, secret: str) -> Any:
    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
    )


def _wait_for_port(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if found := RUNNING.search(log.read_text(errors="replace")):
            return f"http://127.0.0.1:{found.group(1)}"
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"moto did not start: {log.read_text(errors='replace')[-2000:]}")


def _check_credentials_from_now_on(endpoint: str) -> None:
    # moto's documented switch: after this many more requests (here none), check every request.
    request = urllib.request.Request(
        f"{endpoint}/moto-api/reset-auth",
        data=b"0",
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        answer.read()
