"""Reading the settings from the environment and `.env`, and saying plainly what is wrong."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import get_args

from dotenv import dotenv_values
from pydantic import SecretStr, ValidationError

from bot.settings.environment import mask_url
from bot.settings.model import Settings, SettingsError
from bot.settings.rules import IGNORED_VARIABLES, S3_FIELDS, s3_bucket


def known_variables() -> dict[str, str]:
    """Map each setting's variable name to its field name."""
    return {str(field.validation_alias): name for name, field in Settings.model_fields.items()}


def load_settings(env: Mapping[str, str] | None = None, env_file: str | None = ".env") -> Settings:
    """Read settings from `env` (default: the process environment) over `env_file`, or raise."""
    raw = _merge_sources(os.environ if env is None else env, env_file)
    problems = _unknown_variables(raw)
    variables = known_variables()
    known = {name: value for name, value in raw.items() if name in variables}
    try:
        settings = Settings.model_validate(known)
    except ValidationError as exc:
        raise SettingsError(problems + _describe_errors(exc, known)) from None
    problems += _combination_problems(settings) + _object_store_problems(settings)
    if problems:
        raise SettingsError(problems)
    return settings


def variables(
    env: Mapping[str, str] | None = None, env_file: str | None = ".env"
) -> dict[str, str]:
    """The environment over `.env`, for `${VAR}` in files the operator wrote (MCP servers)."""
    return _merge_sources(os.environ if env is None else env, env_file)


def _combination_problems(settings: Settings) -> list[str]:
    """Settings that are valid alone but need another one set too."""
    problems = []
    if settings.alert_token is not None and not settings.alert_channel:
        problems.append(
            "FM_ALERT_CHANNEL: required when FM_ALERT_TOKEN is set (the channel where alerts open"
            " cases)"
        )
    if settings.workflow_executor == "webhook" and not settings.workflow_webhook_url:
        problems.append("FM_WORKFLOW_WEBHOOK_URL: required when FM_WORKFLOW_EXECUTOR is webhook")
    return problems


def _object_store_problems(settings: Settings) -> list[str]:
    """FM_S3_* settings that cannot work together, or that would be silently ignored."""
    if s3_bucket(settings.lancedb_uri) is None:
        # A replica writing to its own disk while its operator believes it uses the bucket.
        return [
            f"{Settings.model_fields[name].validation_alias}: only used with an s3://"
            f" FM_LANCEDB_URI (LanceDB is at {mask_url(settings.lancedb_uri)}); set"
            " FM_LANCEDB_URI=s3://bucket/prefix or remove it"
            for name in S3_FIELDS
            if name in settings.model_fields_set
        ]
    problems = []
    if (settings.s3_access_key_id is None) != (settings.s3_secret_access_key is None):
        problems.append(
            "FM_S3_ACCESS_KEY_ID, FM_S3_SECRET_ACCESS_KEY: set both, or neither to use the usual"
            " AWS credential chain (IAM role, AWS_* environment)"
        )
    endpoint = settings.s3_endpoint or ""
    if endpoint.startswith("http://") and not settings.s3_allow_http:
        problems.append(
            "FM_S3_ENDPOINT: an http:// endpoint sends data and signed requests unencrypted; set"
            " FM_S3_ALLOW_HTTP=true to allow it (a private network or tests), or use https://"
        )
    return problems


def _merge_sources(env: Mapping[str, str], env_file: str | None) -> dict[str, str]:
    # The real environment wins over .env, as in pydantic-settings; empty values mean "unset".
    from_file = dotenv_values(env_file) if env_file and Path(env_file).is_file() else {}
    merged = {name: value for name, value in from_file.items() if value is not None}
    merged.update(env)
    return {name: value for name, value in merged.items() if value != ""}


def _unknown_variables(raw: Mapping[str, str]) -> list[str]:
    known = [name for name in known_variables() if name.startswith("FM_")]
    problems = []
    for name in sorted(raw):
        if name.startswith("FM_") and name not in known and name not in IGNORED_VARIABLES:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            problems.append(f"{name}: is not a known setting{hint}")
    return problems


def _describe_errors(exc: ValidationError, raw: Mapping[str, str]) -> list[str]:
    fields = Settings.model_fields
    by_variable = {str(field.validation_alias): field for field in fields.values()}
    problems = []
    for name in sorted({str(error["loc"][0]) for error in exc.errors() if error["loc"]}):
        field = by_variable[name]
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        secret = SecretStr in (field.annotation, *get_args(field.annotation))
        shown = "a value not shown because it is secret" if secret else repr(mask_url(raw[name]))
        problems.append(f"{name}: expected {extra.get('expected')} (got {shown})")
    return problems
