"""FM_S3_*: validated at start-up and turned into LanceDB's storage options in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.object_store import explain_store_error, lancedb_storage_options
from bot.settings import Settings, SettingsError, load_settings

S3 = {"FM_LANCEDB_URI": "s3://fm-vectors/prod/lancedb"}
KEYS = {"FM_S3_ACCESS_KEY_ID": "AKIAEXAMPLE", "FM_S3_SECRET_ACCESS_KEY": "s3cr3t-value"}


def settings(**env: str) -> Settings:
    return load_settings(env, env_file=None)


def problems(**env: str) -> str:
    with pytest.raises(SettingsError) as refused:
        settings(**env)
    return str(refused.value)


def test_an_s3_uri_with_an_endpoint_and_keys_gives_every_option() -> None:
    chosen = settings(
        **S3,
        **KEYS,
        FM_S3_ENDPOINT="http://minio:9000",
        FM_S3_REGION="eu-west-1",
        FM_S3_ALLOW_HTTP="true",
    )

    assert lancedb_storage_options(chosen) == {
        "aws_endpoint": "http://minio:9000",
        "aws_region": "eu-west-1",
        "aws_access_key_id": "AKIAEXAMPLE",
        "aws_secret_access_key": "s3cr3t-value",
        "allow_http": "true",
    }


def test_without_keys_or_endpoint_lancedb_uses_aws_and_its_credential_chain() -> None:
    assert lancedb_storage_options(settings(**S3)) == {"aws_region": "us-east-1"}


def test_a_local_directory_gets_no_storage_options(tmp_path: Path) -> None:
    assert lancedb_storage_options(settings(FM_DATA_DIR=str(tmp_path))) == {}


def test_the_secret_is_never_shown() -> None:
    chosen = settings(**S3, **KEYS)

    assert "s3cr3t-value" not in repr(chosen)
    assert "s3cr3t-value" not in problems(**S3, **KEYS, FM_S3_ENDPOINT="ftp://x")


def test_an_http_endpoint_needs_allow_http() -> None:
    message = problems(**S3, FM_S3_ENDPOINT="http://minio:9000")

    assert "FM_S3_ENDPOINT" in message
    assert "FM_S3_ALLOW_HTTP=true" in message
    assert settings(**S3, FM_S3_ENDPOINT="https://minio:9000").s3_endpoint == "https://minio:9000"


@pytest.mark.parametrize("endpoint", ["minio:9000", "ftp://minio", "https://"])
def test_an_endpoint_must_be_an_http_url(endpoint: str) -> None:
    message = problems(**S3, FM_S3_ENDPOINT=endpoint)

    assert "FM_S3_ENDPOINT: expected an http:// or https:// URL" in message


@pytest.mark.parametrize(
    "given", [{"FM_S3_ACCESS_KEY_ID": "AKIA"}, {"FM_S3_SECRET_ACCESS_KEY": "x"}]
)
def test_a_key_without_its_secret_or_a_secret_without_its_key_is_refused(
    given: dict[str, str],
) -> None:
    message = problems(**S3, **given)

    assert "FM_S3_ACCESS_KEY_ID, FM_S3_SECRET_ACCESS_KEY: set both, or neither" in message


@pytest.mark.parametrize(
    "variable",
    ["FM_S3_ENDPOINT", "FM_S3_REGION", "FM_S3_ACCESS_KEY_ID", "FM_S3_ALLOW_HTTP"],
)
def test_s3_settings_without_an_s3_uri_stop_start_up(variable: str, tmp_path: Path) -> None:
    value = {"FM_S3_ENDPOINT": "https://minio:9000", "FM_S3_ALLOW_HTTP": "true"}.get(variable, "x")

    message = problems(FM_DATA_DIR=str(tmp_path), **{variable: value})

    assert f"{variable}: only used with an s3:// FM_LANCEDB_URI" in message


@pytest.mark.parametrize(
    "uri", ["s3://ab/lancedb", "s3://My_Bucket/lancedb", "s3:///lancedb", "s3://-bucket/x"]
)
def test_a_bucket_name_s3_would_refuse_stops_start_up(uri: str) -> None:
    message = problems(FM_LANCEDB_URI=uri)

    assert "FM_LANCEDB_URI: expected a local directory or an object-store URI" in message
    assert "3-63 lowercase letters" in message


def test_a_region_and_allow_http_must_be_well_formed() -> None:
    message = problems(**S3, FM_S3_REGION="eu west 1", FM_S3_ALLOW_HTTP="perhaps")

    assert "FM_S3_REGION: expected a region name" in message
    assert "FM_S3_ALLOW_HTTP: expected true or false" in message


@pytest.mark.parametrize(
    ("message", "advice"),
    [
        ("<Code>NoSuchBucket</Code>", "the bucket does not exist"),
        ("<Code>SignatureDoesNotMatch</Code>", "check FM_S3_SECRET_ACCESS_KEY"),
        ("<Code>InvalidAccessKeyId</Code>", "check FM_S3_ACCESS_KEY_ID"),
        ("<Code>AccessDenied</Code>", "access denied"),
        ("<Code>PermanentRedirect</Code>", "set FM_S3_REGION"),
        ("Failed to get AWS credentials: ProviderError", "no credentials"),
        ("HttpError { kind: Connect, source: reqwest::Error", "check FM_S3_ENDPOINT"),
    ],
)
def test_object_store_errors_are_explained_in_plain_words(message: str, advice: str) -> None:
    assert advice in (explain_store_error(f"IO {{ {message} }}") or "")


def test_an_unknown_error_has_no_explanation() -> None:
    assert explain_store_error("something else entirely") is None
