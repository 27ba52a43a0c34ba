"""Settings read from the environment and `.env`, validated once at start-up.

The fields are declared in `fields`; here each value is checked against `rules`, and the values
the rest of the bot reads are derived (the database URL, the LanceDB location, the models).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import SecretStr, ValidationInfo, field_validator

from bot.settings.fields import SettingFields
from bot.settings.rules import (
    ASYNC_DATABASE_DRIVERS,
    MAX_PORT,
    MIN_STALE_AFTER_S,
    MIN_TOKEN_CHARS,
    S3_BUCKET,
    TOKEN_PREFIXES,
    USERGROUP_ID,
    s3_bucket,
)


class SettingsError(Exception):
    """The configuration cannot be used; the message names every bad variable."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  {problem}" for problem in problems)
        super().__init__(
            f"FaultMaven cannot start; fix these settings (environment or .env):\n{lines}"
        )


class Settings(SettingFields):
    """Every setting of DESIGN §4; build it with `load_settings()`, which also names strays."""

    @field_validator("slack_bot_token", "slack_app_token")
    @classmethod
    def _token_prefix(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        prefix = TOKEN_PREFIXES[str(info.field_name)]
        if value is not None and not value.get_secret_value().startswith(prefix):
            raise ValueError(f"must start with {prefix}")
        return value

    @field_validator("slack_api_url", "llm_api_base", "workflow_webhook_url", "s3_endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("not an http(s) URL")
        return value

    @field_validator("slack_api_url")
    @classmethod
    def _trailing_slash(cls, value: str) -> str:
        # slack_sdk joins method names onto the base URL, so it must end with "/".
        return value if value.endswith("/") else value + "/"

    @field_validator("lancedb_uri_override")
    @classmethod
    def _s3_bucket_name(cls, value: str | None) -> str | None:
        bucket = s3_bucket(value or "")
        if bucket is not None and not S3_BUCKET.fullmatch(bucket):
            raise ValueError("not a valid bucket name")
        return value

    @field_validator("s3_region")
    @classmethod
    def _region_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]+", value):
            raise ValueError("not a region name")
        return value

    @field_validator("database_url_override")
    @classmethod
    def _async_driver(cls, value: str | None) -> str | None:
        if value is not None and value.split("://", 1)[0] not in ASYNC_DATABASE_DRIVERS:
            raise ValueError("not an async driver")
        return value

    @field_validator(
        "llm_timeout_s",
        "max_upload_mb",
        "llm_daily_budget_usd",
        "llm_daily_budget_tokens",
        "llm_case_budget_usd",
        "llm_case_budget_tokens",
        "max_alert_investigations",
    )
    @classmethod
    def _positive(cls, value: float | None) -> float | None:
        if value is not None and not 0 < value < math.inf:  # also refuses nan
            raise ValueError("must be positive")
        return value

    @field_validator("alert_debounce_s")
    @classmethod
    def _not_negative(cls, value: float) -> float:
        if not 0 <= value < math.inf:
            raise ValueError("must be 0 or more, and finite")
        return value

    @field_validator("worker_stale_after_s")
    @classmethod
    def _stale_after_floor(cls, value: float) -> float:
        if not MIN_STALE_AFTER_S <= value < math.inf:  # also refuses nan
            raise ValueError(f"must be at least {MIN_STALE_AFTER_S:g} and finite")
        return value

    @field_validator("alert_responders")
    @classmethod
    def _usergroup_id(cls, value: str | None) -> str | None:
        # A handle (@oncall) or a name would only fail at the first click, as "nobody may".
        if value is not None and not USERGROUP_ID.fullmatch(value):
            raise ValueError("not a user group ID")
        return value

    @field_validator("alert_token")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < MIN_TOKEN_CHARS:
            raise ValueError("too short")
        return value

    @field_validator("workflow_executor", mode="before")
    @classmethod
    def _lower_executor(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("workflow_catalog_dir")
    @classmethod
    def _absolute_catalog(cls, value: Path | None) -> Path | None:
        return value.expanduser().absolute() if value is not None else None

    @field_validator("mcp_config")
    @classmethod
    def _absolute_mcp_config(cls, value: Path | None) -> Path | None:
        return value.expanduser().absolute() if value is not None else None

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("metrics_port")
    @classmethod
    def _port(cls, value: int | None) -> int | None:
        if value is not None and not 0 < value <= MAX_PORT:
            raise ValueError(f"not a port number (1 to {MAX_PORT})")
        return value

    @field_validator("otel_endpoint")
    @classmethod
    def _otlp_url(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError("not an http:// or https:// URL")
        return value

    @field_validator("data_dir")
    @classmethod
    def _absolute_dir(cls, value: Path) -> Path:
        # Anchored once at start-up so every derived path names the same place in messages.
        return value.expanduser().absolute()

    @property
    def database_url(self) -> str:
        """The database URL to use, derived from the data directory unless set."""
        return self.database_url_override or f"sqlite+aiosqlite:///{self.data_dir / 'fm.db'}"

    @property
    def lancedb_uri(self) -> str:
        """The LanceDB location to use, derived from the data directory unless set."""
        return self.lancedb_uri_override or str(self.data_dir / "lancedb")

    @property
    def embedding_export_dir(self) -> Path:
        """Where the embedding model's ONNX copy is kept, made once from its weights."""
        return self.data_dir / "models"

    @property
    def alerts_enabled(self) -> bool:
        """Whether the alert endpoint accepts notifications (a token is configured)."""
        return self.alert_token is not None and bool(self.alert_channel)

    @property
    def socket_mode(self) -> bool:
        """Whether an app-level token allows Socket Mode."""
        return self.slack_app_token is not None

    @property
    def llm_enabled(self) -> bool:
        """Whether an LLM is configured (otherwise the bot runs in no-LLM mode)."""
        return bool(self.llm_model)

    @property
    def fast_model(self) -> str | None:
        """The model for cheap calls, falling back to the main model."""
        return self.llm_fast_model or self.llm_model

    @property
    def judge_model(self) -> str | None:
        """The model that scores investigations, falling back to the main model."""
        return self.llm_judge_model or self.llm_model

    @property
    def fallback_models(self) -> tuple[str, ...]:
        """Fallback models in the order given."""
        names = (self.llm_fallback_models or "").split(",")
        return tuple(name.strip() for name in names if name.strip())

    @property
    def max_upload_bytes(self) -> int:
        """The upload limit in bytes."""
        return self.max_upload_mb * 1024 * 1024
