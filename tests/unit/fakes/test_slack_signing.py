"""Request signing matches Slack's published test vector and slack_sdk's verifier."""

from __future__ import annotations

import json

from slack_sdk.signature import Clock, SignatureVerifier

from tests.fakes.slack.payloads import SlackPayloads
from tests.fakes.slack.signing import sign, signature
from tests.paths import SLACK_SAMPLES

VECTOR = json.loads((SLACK_SAMPLES / "signature" / "slack_signing_test_vector.json").read_text())


class _PinnedClock(Clock):
    def now(self) -> float:
        return float(VECTOR["now_for_test"])


def test_signing_the_official_vector_gives_slacks_headers_exactly() -> None:
    headers = sign(VECTOR["body"], VECTOR["signing_secret"], int(VECTOR["timestamp"]))

    assert headers == VECTOR["headers"]
    assert headers["X-Slack-Signature"] == VECTOR["expected_signature"]


def test_bytes_and_text_bodies_sign_the_same() -> None:
    body = VECTOR["body"]
    secret, ts = VECTOR["signing_secret"], VECTOR["timestamp"]

    assert signature(body.encode(), secret, ts) == signature(body, secret, ts)


def test_slack_sdk_verifier_accepts_our_signature_and_rejects_a_tampered_body() -> None:
    verifier = SignatureVerifier(VECTOR["signing_secret"], clock=_PinnedClock())
    headers = sign(VECTOR["body"], VECTOR["signing_secret"], VECTOR["timestamp"])

    assert verifier.is_valid_request(VECTOR["body"], headers)
    assert not verifier.is_valid_request(VECTOR["body"] + "&x=1", headers)


def test_built_requests_carry_a_current_valid_signature() -> None:
    request = SlackPayloads().app_mention("<@U0FMBOT> disk full on db-1")
    headers = request.headers("shh")

    assert headers["Content-Type"] == "application/json"
    assert SignatureVerifier("shh").is_valid_request(request.body, headers)
    assert not SignatureVerifier("other-secret").is_valid_request(request.body, headers)


def test_redelivered_requests_carry_slacks_retry_headers() -> None:
    headers = SlackPayloads().message("again").headers("shh", retry_num=1)

    assert headers["X-Slack-Retry-Num"] == "1"
    assert headers["X-Slack-Retry-Reason"] == "http_timeout"
