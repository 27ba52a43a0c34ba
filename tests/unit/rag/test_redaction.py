"""Secrets are replaced before anything is stored, embedded or sent, and counted."""

from __future__ import annotations

import pytest

from rag.redaction import MARK, redact
from tests.loghub import LogSystem, systems

SECRETS = [
    ("AWS access key", "key id AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE"),
    (
        "AWS secret",
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
    ),
    ("GitHub token", "cloned with ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdef"),
    ("GitHub PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABC"),
    ("Slack bot token", "SLACK_BOT_TOKEN=xoxb-1234567890-abcdefghijkl", "xoxb-1234567890"),
    ("Slack app token", "using xapp-1-A0123-4567-abcdefabcdef", "xapp-1-A0123"),
    ("bearer token", 'curl -H "Authorization: Bearer abc123def456ghi789jkl"', "abc123def456"),
    ("URL password", "dsn postgresql://admin:s3cr3t@db.internal:5432/app", "s3cr3t"),
    ("key=value password", "DB_PASSWORD=hunter2 retries=3", "hunter2"),
    ("yaml password", "  password: correct-horse-battery", "correct-horse"),
    ("JSON secret", '{"client_secret": "abc", "user": "bob"}', '"abc"'),
    (
        "JWT",
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
        "eyJzdWIi",
    ),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_each_kind_of_secret_is_redacted(kind: str, text: str, secret: str) -> None:
    result = redact(text)

    assert secret not in result.text
    assert MARK in result.text
    assert result.count >= 1


def test_a_private_key_block_is_blanked_line_for_line() -> None:
    text = (
        "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter"
    )

    result = redact(text)

    assert result.text.split("\n")[0] == "before"
    assert result.text.split("\n")[-1] == "after"
    assert "MIIEow" not in result.text
    assert len(result.text.split("\n")) == len(text.split("\n"))
    assert result.count == 1


def test_the_count_is_one_per_secret() -> None:
    text = "a password=one\nb password=two\nc ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"

    assert redact(text).count == 3


def test_the_names_of_the_keys_stay_readable() -> None:
    assert redact("DB_PASSWORD=hunter2").text == f"DB_PASSWORD={MARK}"
    assert redact('{"password": "x1"}').text == f'{{"password": "{MARK}"}}'


@pytest.mark.parametrize(
    "text",
    [
        "Executing with tokens:",
        "Priority: 20, Token: Token { kind: ContainerToken }",
        "AbstractDelegationTokenSecretManager: Updating the current master key",
        "Failed password for invalid user admin from 10.0.0.1 port 22 ssh2",
        "Use a bearer token for authentication",
    ],
)
def test_ordinary_log_text_about_secrets_is_left_alone(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
def test_the_shared_loghub_logs_contain_nothing_to_redact(system: LogSystem) -> None:
    text = system.log_path.read_text(encoding="utf-8")

    assert redact(text).count == 0
