"""Every setting declared: its variable, default, what a valid value looks like, and why.

`model.Settings` adds the checks of each value (`rules`) and the values derived from them; the
error messages, the unknown-variable check and the documentation test all read these fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.settings.rules import MIN_STALE_AFTER_S, LogFormat, LogLevel


def _setting(env: str, default: Any, expected: str, meaning: str) -> Any:
    """Declare one setting: its variable name, default, what a valid value looks like, and why."""
    return Field(
        default=default,
        validation_alias=env,
        description=meaning,
        json_schema_extra={"expected": expected},
    )


# A new setting is one `_setting(...)` field here (plus a validator in `model` if it has rules).
class SettingFields(BaseSettings):
    """Every setting of DESIGN §4, declared; `Settings` checks them and derives the rest."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", frozen=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Take values only from `load_settings()`, which reads the environment and `.env`."""
        # One reader: it must also see unknown FM_* names, and an explicit `env` must not be
        # topped up from os.environ behind the caller's back.
        return (init_settings,)

    slack_bot_token: SecretStr | None = _setting(
        "SLACK_BOT_TOKEN", None, "a bot token starting with 'xoxb-'", "Slack bot token"
    )
    slack_app_token: SecretStr | None = _setting(
        "SLACK_APP_TOKEN",
        None,
        "an app-level token starting with 'xapp-'",
        "app-level token; when set, `fm run` uses Socket Mode",
    )
    slack_signing_secret: SecretStr | None = _setting(
        "SLACK_SIGNING_SECRET", None, "the app's signing secret", "required for HTTP mode"
    )
    slack_api_url: str = _setting(
        "FM_SLACK_API_URL",
        "https://slack.com/api/",
        "an http:// or https:// URL",
        "base URL for every Slack Web API call (GovSlack, proxies, tests)",
    )
    data_dir: Path = _setting(
        "FM_DATA_DIR",
        Path("data"),
        "a directory path",
        "holds the SQLite file, the LanceDB directory and downloaded files",
    )
    database_url_override: str | None = _setting(
        "FM_DATABASE_URL",
        None,
        "an async SQLAlchemy URL starting with 'sqlite+aiosqlite://' or 'postgresql+asyncpg://';"
        " plain 'sqlite://' and 'postgresql://' use blocking drivers the bot cannot use",
        "database URL; default sqlite+aiosqlite:///$FM_DATA_DIR/fm.db",
    )
    lancedb_uri_override: str | None = _setting(
        "FM_LANCEDB_URI",
        None,
        "a local directory or an object-store URI such as s3://bucket/prefix (a bucket name has"
        " 3-63 lowercase letters, digits, dots or hyphens)",
        "LanceDB location; default $FM_DATA_DIR/lancedb",
    )
    s3_endpoint: str | None = _setting(
        "FM_S3_ENDPOINT",
        None,
        "an http:// or https:// URL",
        "S3-compatible server for an s3:// FM_LANCEDB_URI (MinIO, Ceph...); empty = AWS's own",
    )
    s3_region: str = _setting(
        "FM_S3_REGION",
        "us-east-1",
        "a region name such as us-east-1 (letters, digits, hyphens)",
        "region of the FM_LANCEDB_URI bucket",
    )
    s3_access_key_id: str | None = _setting(
        "FM_S3_ACCESS_KEY_ID",
        None,
        "an access key id",
        "access key for the bucket; empty = the usual AWS chain (IAM role, AWS_* environment)",
    )
    s3_secret_access_key: SecretStr | None = _setting(
        "FM_S3_SECRET_ACCESS_KEY",
        None,
        "the secret of FM_S3_ACCESS_KEY_ID",
        "secret access key for the bucket; set with FM_S3_ACCESS_KEY_ID",
    )
    s3_allow_http: bool = _setting(
        "FM_S3_ALLOW_HTTP",
        False,
        "true or false",
        "allow an http:// FM_S3_ENDPOINT (unencrypted: a private network or tests only)",
    )
    embedding_model: str | None = _setting(
        "FM_EMBEDDING_MODEL",
        None,
        "a sentence-transformers model directory or a cached model name",
        "embedding model; empty = the bundled all-MiniLM-L6-v2",
    )
    llm_model: str | None = _setting(
        "FM_LLM_MODEL",
        None,
        "a litellm model string such as 'openai/gpt-4o-mini'",
        "LLM for investigations; empty = no-LLM mode",
    )
    llm_fast_model: str | None = _setting(
        "FM_LLM_FAST_MODEL",
        None,
        "a litellm model string",
        "cheap model for chunk synthesis; default FM_LLM_MODEL",
    )
    llm_judge_model: str | None = _setting(
        "FM_LLM_JUDGE_MODEL",
        None,
        "a litellm model string",
        "judge model for scoring; default FM_LLM_MODEL",
    )
    llm_api_base: str | None = _setting(
        "FM_LLM_API_BASE",
        None,
        "an http:// or https:// URL",
        "OpenAI-compatible endpoint (vLLM, Ollama, Azure, proxies, tests)",
    )
    llm_api_key: SecretStr | None = _setting(
        "FM_LLM_API_KEY", None, "an API key", "API key for the LLM endpoint"
    )
    llm_timeout_s: float = _setting(
        "FM_LLM_TIMEOUT_S", 60.0, "a positive number of seconds, e.g. 60", "timeout per LLM call"
    )
    llm_fallback_models: str | None = _setting(
        "FM_LLM_FALLBACK_MODELS",
        None,
        "comma-separated litellm model strings, e.g. 'openai/gpt-4o-mini,ollama/llama3'",
        "models tried in order when the configured model fails; empty = none",
    )
    llm_daily_budget_usd: float | None = _setting(
        "FM_LLM_DAILY_BUDGET_USD",
        None,
        "a positive number of US dollars, e.g. 20",
        "the workspace's model spending per UTC day; once reached the bot answers without the"
        " model until midnight UTC; empty = no limit",
    )
    llm_daily_budget_tokens: int | None = _setting(
        "FM_LLM_DAILY_BUDGET_TOKENS",
        None,
        "a positive whole number of tokens, e.g. 2000000",
        "the same daily budget in tokens (for local models, which have no price); empty = none",
    )
    llm_case_budget_usd: float | None = _setting(
        "FM_LLM_CASE_BUDGET_USD",
        None,
        "a positive number of US dollars, e.g. 2",
        "a case's model spending cap; once reached the case goes on without the model;"
        " empty = no cap",
    )
    llm_case_budget_tokens: int | None = _setting(
        "FM_LLM_CASE_BUDGET_TOKENS",
        None,
        "a positive whole number of tokens, e.g. 300000",
        "the same cap in tokens; empty = none",
    )
    confirmers_usergroup: str | None = _setting(
        "FM_CONFIRMERS_USERGROUP",
        None,
        "a Slack user group ID such as S0123456789",
        "who may answer confirmations; empty = the case's participants",
    )
    alert_channel: str | None = _setting(
        "FM_ALERT_CHANNEL",
        None,
        "a Slack channel ID such as C0123456789",
        "channel where webhook alerts open cases",
    )
    alert_responders: str | None = _setting(
        "FM_ALERT_RESPONDERS",
        None,
        "a Slack user group ID such as S0123456789",
        "who may decide in a case an alert opened (its on-call), unless FM_CONFIRMERS_USERGROUP"
        " is set; empty = the members of the alert channel",
    )
    alert_token: SecretStr | None = _setting(
        "FM_ALERT_TOKEN",
        None,
        "a random token of at least 16 characters",
        "bearer token Alertmanager sends to POST /alerts/alertmanager; empty = alerts are refused",
    )
    alert_debounce_s: float = _setting(
        "FM_ALERT_DEBOUNCE_S",
        0.0,
        "a number of seconds, 0 or more, e.g. 120",
        "an alert that resolves within this long of firing opens no investigation (its case is"
        " closed as self-resolved); the analysis waits this long; 0 = analyse at once",
    )
    max_alert_investigations: int = _setting(
        "FM_MAX_ALERT_INVESTIGATIONS",
        4,
        "a positive whole number, e.g. 4",
        "how many alert analyses run at once (per process); the others wait in order",
    )
    workflow_catalog_dir: Path | None = _setting(
        "FM_WORKFLOW_CATALOG_DIR",
        None,
        "a directory of workflow YAML files",
        "remediation workflow catalog; empty = alerts get an analysis but no workflows",
    )
    workflow_executor: Literal["none", "webhook"] = _setting(
        "FM_WORKFLOW_EXECUTOR",
        "none",
        "none or webhook",
        "what an approved workflow does: none = post the exact steps for a person to run;"
        " webhook = POST it to FM_WORKFLOW_WEBHOOK_URL",
    )
    workflow_webhook_url: str | None = _setting(
        "FM_WORKFLOW_WEBHOOK_URL",
        None,
        "an http:// or https:// URL",
        "where the webhook executor POSTs approved workflows",
    )
    workflow_webhook_token: SecretStr | None = _setting(
        "FM_WORKFLOW_WEBHOOK_TOKEN",
        None,
        "a token",
        "bearer token sent with each webhook request; empty = none",
    )
    mcp_config: Path | None = _setting(
        "FM_MCP_CONFIG",
        None,
        "a JSON file of MCP servers in the mcpServers format",
        "the team's own tools the bot may read evidence from (Prometheus, Grafana, Kubernetes);"
        " empty = none",
    )
    max_upload_mb: int = _setting(
        "FM_MAX_UPLOAD_MB",
        25,
        "a positive whole number of megabytes, e.g. 25",
        "larger uploads are refused with a clear message",
    )
    worker_stale_after_s: float = _setting(
        "FM_WORKER_STALE_AFTER_S",
        120.0,
        f"a number of seconds, at least {MIN_STALE_AFTER_S:g}, e.g. 120",
        "how long a replica may go silent before another resumes its unfinished work; each"
        " replica renews what it holds every eighth of this",
    )
    log_level: LogLevel = _setting(
        "FM_LOG_LEVEL",
        "INFO",
        "one of DEBUG, INFO, WARNING, ERROR, CRITICAL",
        "logging level",
    )
    log_format: LogFormat = _setting(
        "FM_LOG_FORMAT",
        "text",
        "text or json",
        "json = one JSON object per log line, with the case id, team and turn id where known",
    )
    metrics_port: int | None = _setting(
        "FM_METRICS_PORT",
        None,
        "a TCP port number, e.g. 9464",
        "also serve Prometheus' /metrics alone on this port (for Socket Mode, where the bot's"
        " HTTP port need not be reachable); it is always on the HTTP port; empty = only there",
    )
    otel_endpoint: str | None = _setting(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        None,
        "an OTLP/HTTP collector URL, e.g. http://otel-collector:4318",
        "send OpenTelemetry traces there (a span per turn, with retrieval, model, tool and Slack"
        " calls); the other standard OTEL_* variables apply; empty = no tracing",
    )
