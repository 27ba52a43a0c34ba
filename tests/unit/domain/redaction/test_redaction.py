"""Secrets are replaced before anything is stored, embedded or sent, and counted."""

from __future__ import annotations

import pytest

from domain.redaction import MARK, redact, redact_text, secret_key
from domain.redaction.parts import KEY_MARK
from tests.loghub import LogSystem, systems
from tests.unit.domain.redaction.lookalike_samples import NOT_SECRETS
from tests.unit.domain.redaction.secret_samples import SECRETS as SHAPES

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


@pytest.mark.parametrize(("what", "text", "secrets"), SHAPES, ids=[s[0] for s in SHAPES])
def test_secrets_in_every_shape_are_redacted(what: str, text: str, secrets: list[str]) -> None:
    result = redact(text)

    assert [secret for secret in secrets if secret in result.text] == []
    assert result.count >= 1
    assert result.text.count("\n") == text.count("\n")


@pytest.mark.parametrize(("what", "text"), NOT_SECRETS, ids=[s[0] for s in NOT_SECRETS])
def test_text_that_only_looks_like_a_secret_is_left_alone(what: str, text: str) -> None:
    """Timestamps, ids, names, paths, TTLs and endpoints an investigation needs."""
    assert redact(text) == redact(text).__class__(text, 0)


@pytest.mark.parametrize(("what", "text", "secrets"), SHAPES, ids=[s[0] for s in SHAPES])
def test_redacting_twice_finds_nothing_more(what: str, text: str, secrets: list[str]) -> None:
    once = redact(text).text

    assert redact(once).count == 0


def test_each_secret_of_a_json_credential_document_is_counted() -> None:
    text = (
        '{"AccessKeyId": "ASIAQWERTYUIOPASDFGH", "SecretAccessKey": "Zq9vR2xK7mP4tY8wB1nC5j", '
        '"SessionToken": "IQoJb3JpZ2luX2VjEJr", "Expiration": "2024-05-01T12:00:00Z"}'
    )

    result = redact(text)

    assert result.count == 3
    assert '"Expiration": "2024-05-01T12:00:00Z"' in result.text


def test_a_key_cut_short_takes_only_its_own_lines() -> None:
    """A BEGIN without END must not blank the log up to the next key's END."""
    text = "\n".join(
        [
            "10:00 loaded -----BEGIN RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEAq",
            "10:01 ERROR db timeout",
            "10:02 WARN retrying",
            "-----BEGIN EC PRIVATE KEY-----",
            "MHcCAQEEIAbCdEf",
            "-----END EC PRIVATE KEY-----",
            "10:03 INFO recovered",
        ]
    )

    lines = redact(text).text.split("\n")

    assert lines[0] == f"10:00 loaded {KEY_MARK}"
    assert lines[1] == KEY_MARK
    assert lines[2:4] == ["10:01 ERROR db timeout", "10:02 WARN retrying"]
    assert lines[4:7] == [KEY_MARK] * 3
    assert lines[7] == "10:03 INFO recovered"


def test_many_keys_cut_short_are_read_in_one_pass() -> None:
    """Each BEGIN without END once scanned to the end of the file: 8,000 lines took 35 s."""
    text = "\n".join(["-----BEGIN PRIVATE KEY----- (truncated)", "10:00 INFO next"] * 20_000)

    result = redact(text)

    assert result.count == 20_000
    assert result.text.split("\n")[1::2] == ["10:00 INFO next"] * 20_000


def test_values_that_point_at_a_secret_are_not_secrets() -> None:
    text = "\n".join(
        [
            "password: ${DB_PASSWORD}",
            'token: "{{ .Values.apiToken }}"',
            "DB_PASSWORD=<your-password>",
            "secret: prod/payments-db",
            "password: true",
        ]
    )

    assert redact(text).count == 0


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("DB_PASSWORD", True),
        ("dbPassword", True),
        ("PGPASSWORD", True),
        ("spring.datasource.hikari.password", True),
        ("x-api-key", True),
        ("AccountKey", True),
        ("DD_APP_KEY", True),
        ("RABBITMQ_DEFAULT_PASS", True),
        ("auth", True),
        ("keyStorePassword", True),
        ("token_ttl", False),
        ("secret_name", False),
        ("password_file", False),
        ("api_key_id", False),
        ("AccessKeyId", False),
        ("prompt_tokens", False),
        ("bypass", False),
        ("auth_method", False),
        ("key", False),
        ("tls.key", False),
    ],
)
def test_which_keys_name_a_secret(key: str, secret: bool) -> None:
    assert secret_key(key) is secret


def test_a_message_is_cleaned_and_empty_text_stays_empty() -> None:
    assert redact_text("") == ""
    assert redact_text("db is down, DB_PASSWORD=hunter22 works locally") == (
        f"db is down, DB_PASSWORD={MARK} works locally"
    )
