"""Settings: defaults, validation messages that name the variable, and unknown-variable hints."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, known_variables, load_settings
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


def load(**env: str) -> Settings:
    return load_settings(env, env_file=None)


def problems_for(**env: str) -> str:
    with pytest.raises(SettingsError) as caught:
        load(**env)
    return str(caught.value)


def test_an_empty_environment_gives_the_documented_defaults(tmp_path: Path) -> None:
    settings = load(FM_DATA_DIR=str(tmp_path))

    assert settings.slack_bot_token is None
    assert settings.slack_api_url == "https://slack.com/api/"
    assert settings.llm_timeout_s == 60
    assert settings.max_upload_mb == 25
    assert settings.max_upload_bytes == 25 * 1024 * 1024
    assert settings.log_level == "INFO"
    assert settings.embedding_model is None
    assert settings.alert_channel is None


def test_database_and_lancedb_locations_are_derived_from_the_data_directory(
    tmp_path: Path,
) -> None:
    settings = load(FM_DATA_DIR=str(tmp_path / "state"))

    assert settings.data_dir == tmp_path / "state"
    assert settings.database_url == f"sqlite+aiosqlite:///{tmp_path}/state/fm.db"
    assert settings.lancedb_uri == str(tmp_path / "state" / "lancedb")


def test_a_relative_data_directory_is_anchored_at_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    assert load().data_dir == tmp_path / "data"


def test_explicit_database_and_lancedb_locations_win_over_the_data_directory() -> None:
    settings = load(
        FM_DATA_DIR="/srv/fm",
        FM_DATABASE_URL="postgresql+asyncpg://fm:pw@db:5432/fm",
        FM_LANCEDB_URI="s3://bucket/lancedb",
    )

    assert settings.database_url == "postgresql+asyncpg://fm:pw@db:5432/fm"
    assert settings.lancedb_uri == "s3://bucket/lancedb"


def test_fast_and_judge_models_default_to_the_main_model() -> None:
    settings = load(FM_LLM_MODEL="openai/gpt-4o-mini")

    assert settings.llm_enabled
    assert settings.fast_model == "openai/gpt-4o-mini"
    assert settings.judge_model == "openai/gpt-4o-mini"


def test_fast_and_judge_models_can_be_set_separately() -> None:
    settings = load(
        FM_LLM_MODEL="openai/gpt-4o",
        FM_LLM_FAST_MODEL="openai/gpt-4o-mini",
        FM_LLM_JUDGE_MODEL="anthropic/claude-sonnet-4-5",
    )

    assert settings.fast_model == "openai/gpt-4o-mini"
    assert settings.judge_model == "anthropic/claude-sonnet-4-5"


def test_without_an_llm_model_the_bot_is_in_no_llm_mode() -> None:
    settings = load()

    assert not settings.llm_enabled
    assert settings.fast_model is None
    assert settings.judge_model is None


def test_an_app_token_means_socket_mode() -> None:
    assert load(SLACK_BOT_TOKEN="xoxb-1", SLACK_APP_TOKEN="xapp-1").socket_mode
    assert not load(SLACK_BOT_TOKEN="xoxb-1").socket_mode


def test_tokens_are_secret_in_repr() -> None:
    settings = load(SLACK_BOT_TOKEN="xoxb-very-secret", FM_LLM_API_KEY="sk-very-secret")

    assert "very-secret" not in repr(settings)
    assert settings.slack_bot_token is not None
    assert settings.slack_bot_token.get_secret_value() == "xoxb-very-secret"


def test_the_slack_api_url_gets_the_trailing_slash_slack_sdk_needs() -> None:
    assert load(FM_SLACK_API_URL="http://127.0.0.1:8080/api").slack_api_url == (
        "http://127.0.0.1:8080/api/"
    )


def test_the_log_level_is_case_insensitive() -> None:
    assert load(FM_LOG_LEVEL="debug").log_level == "DEBUG"


def test_empty_values_mean_unset() -> None:
    settings = load(FM_LLM_TIMEOUT_S="", FM_LLM_MODEL="", SLACK_BOT_TOKEN="")

    assert settings.llm_timeout_s == 60
    assert not settings.llm_enabled
    assert settings.slack_bot_token is None


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("FM_LLM_TIMEOUT_S", "-1", "positive number of seconds"),
        ("FM_LLM_TIMEOUT_S", "0", "positive number of seconds"),
        ("FM_LLM_TIMEOUT_S", "soon", "positive number of seconds"),
        ("FM_MAX_UPLOAD_MB", "0", "positive whole number"),
        ("FM_MAX_UPLOAD_MB", "2.5", "positive whole number"),
        ("FM_SLACK_API_URL", "ftp://slack.example", "http:// or https:// URL"),
        ("FM_LLM_API_BASE", "localhost:8000", "http:// or https:// URL"),
        ("FM_LOG_LEVEL", "loud", "one of DEBUG, INFO"),
        ("FM_DATABASE_URL", "sqlite:///fm.db", "async"),
        ("FM_DATABASE_URL", "postgresql://db/fm", "async"),
    ],
)
def test_a_bad_value_is_named_with_what_is_expected_and_what_was_given(
    name: str, value: str, expected: str
) -> None:
    message = problems_for(**{name: value})

    line = next(line for line in message.splitlines() if line.strip().startswith(f"{name}:"))
    assert expected in line
    assert f"(got '{value}')" in line


def test_a_synchronous_database_driver_is_refused_in_plain_words() -> None:
    message = problems_for(FM_DATABASE_URL="sqlite:///data/fm.db")

    assert "sqlite+aiosqlite://" in message
    assert "postgresql+asyncpg://" in message
    assert "blocking drivers" in message


def test_a_database_password_is_never_echoed() -> None:
    message = problems_for(FM_DATABASE_URL="postgresql://fm:hunter2@db/fm")

    assert "hunter2" not in message
    assert "postgresql://fm:***@db/fm" in message


@pytest.mark.parametrize(
    ("name", "value", "prefix"),
    [
        ("SLACK_BOT_TOKEN", "xapp-top-secret", "xoxb-"),
        ("SLACK_APP_TOKEN", "xoxb-top-secret", "xapp-"),
    ],
)
def test_a_token_with_the_wrong_prefix_is_named_but_never_echoed(
    name: str, value: str, prefix: str
) -> None:
    message = problems_for(**{name: value})

    assert f"{name}: expected" in message
    assert prefix in message
    assert "top-secret" not in message
    assert "not shown because it is secret" in message


def test_every_bad_variable_is_listed_at_once() -> None:
    message = problems_for(FM_LLM_TIMEOUT_S="-5", FM_MAX_UPLOAD_MB="lots", FM_LLM_MODL="x")

    assert "FM_LLM_TIMEOUT_S:" in message
    assert "FM_MAX_UPLOAD_MB:" in message
    assert "FM_LLM_MODL:" in message


def test_an_unknown_fm_variable_stops_start_up_with_the_closest_known_name() -> None:
    message = problems_for(FM_LLM_MODLE="openai/gpt-4o-mini")

    assert "FM_LLM_MODLE: is not a known setting; did you mean FM_LLM_MODEL?" in message


def test_an_unknown_fm_variable_without_a_close_match_gets_no_guess() -> None:
    message = problems_for(FM_COMPLETELY_DIFFERENT="1")

    assert "FM_COMPLETELY_DIFFERENT: is not a known setting" in message
    assert "did you mean" not in message


def test_the_test_suite_database_variable_is_known_and_ignored() -> None:
    load(FM_TEST_DATABASE_URL="postgresql+asyncpg://postgres@127.0.0.1:5432/test")


def test_variables_outside_the_fm_namespace_are_left_alone() -> None:
    load(PATH="/usr/bin", SLACK_CLIENT_ID="123", HOME="/root")


def test_settings_are_read_from_a_dotenv_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("FM_LLM_MODEL=ollama/llama3\nFM_MAX_UPLOAD_MB=10\n")

    settings = load_settings({}, env_file=str(env_file))

    assert settings.llm_model == "ollama/llama3"
    assert settings.max_upload_mb == 10


def test_the_environment_wins_over_the_dotenv_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("FM_MAX_UPLOAD_MB=10\n")

    assert load_settings({"FM_MAX_UPLOAD_MB": "5"}, env_file=str(env_file)).max_upload_mb == 5


def test_an_unknown_variable_in_the_dotenv_file_is_named(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("FM_DATADIR=/srv/fm\n")

    with pytest.raises(SettingsError, match="FM_DATADIR: is not a known setting; did you mean"):
        load_settings({}, env_file=str(env_file))


def test_a_missing_dotenv_file_is_fine(tmp_path: Path) -> None:
    load_settings({}, env_file=str(tmp_path / "absent.env"))


def test_without_an_explicit_mapping_the_process_environment_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("FM_LLM_MODEL", "openai/gpt-4o-mini")

    assert load_settings(env_file=None).llm_model == "openai/gpt-4o-mini"


@pytest.mark.parametrize("document", [".env.example", "README.md"])
def test_every_setting_is_documented(document: str) -> None:
    text = (REPO / document).read_text()

    missing = [name for name in known_variables() if not re.search(rf"\b{name}\b", text)]
    assert missing == []


def test_every_example_in_the_dotenv_example_is_valid(tmp_path: Path) -> None:
    example = (REPO / ".env.example").read_text()
    uncommented = re.sub(r"^# ((?:FM|SLACK)_[A-Z_]+=)", r"\1", example, flags=re.MULTILINE)
    (tmp_path / ".env").write_text(uncommented)

    settings = load_settings({}, env_file=str(tmp_path / ".env"))

    assert settings.llm_enabled
    assert settings.socket_mode


def test_an_explicit_mapping_is_not_topped_up_from_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-from-the-real-environment")

    assert load_settings({}, env_file=None).slack_bot_token is None


def test_the_process_is_kept_offline_unless_told_otherwise(monkeypatch):
    from bot.settings import OFFLINE_DEFAULTS, prepare_process_environment

    for name in OFFLINE_DEFAULTS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    prepare_process_environment()
    import os

    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert os.environ["HF_HUB_OFFLINE"] == "0"


def test_fallback_models_are_read_in_order():
    from bot.settings import load_settings

    settings = load_settings(env={"FM_LLM_FALLBACK_MODELS": " openai/a, ,ollama/b "}, env_file=None)
    assert settings.fallback_models == ("openai/a", "ollama/b")
    assert load_settings(env={}, env_file=None).fallback_models == ()


def test_alerts_and_workflows_are_off_by_default() -> None:
    settings = load_settings({}, env_file=None)

    assert settings.alert_token is None
    assert not settings.alerts_enabled
    assert settings.workflow_catalog_dir is None
    assert settings.workflow_executor == "none"


def test_an_alerts_on_call_group_is_optional() -> None:
    assert load_settings({}, env_file=None).alert_responders is None
    assert load(FM_ALERT_RESPONDERS="S0ONCALL1").alert_responders == "S0ONCALL1"


def test_alerts_need_a_token_and_a_channel() -> None:
    settings = load(FM_ALERT_TOKEN="a-long-random-alert-token", FM_ALERT_CHANNEL="C0123456789")

    assert settings.alerts_enabled
    assert settings.alert_token is not None
    assert "a-long-random" not in repr(settings)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"FM_WORKFLOW_EXECUTOR": "ansible"}, "FM_WORKFLOW_EXECUTOR: expected none or webhook"),
        (
            {"FM_WORKFLOW_WEBHOOK_URL": "ftp://automation"},
            "FM_WORKFLOW_WEBHOOK_URL: expected an http:// or https:// URL",
        ),
        (
            {"FM_ALERT_TOKEN": "short", "FM_ALERT_CHANNEL": "C1"},
            "FM_ALERT_TOKEN: expected a random token of at least 16 characters (got a value not "
            "shown because it is secret)",
        ),
        (
            {"FM_ALERT_TOKEN": "a-long-random-alert-token"},
            "FM_ALERT_CHANNEL: required when FM_ALERT_TOKEN is set",
        ),
        (
            {"FM_WORKFLOW_EXECUTOR": "webhook"},
            "FM_WORKFLOW_WEBHOOK_URL: required when FM_WORKFLOW_EXECUTOR is webhook",
        ),
        (
            {"FM_ALERT_RESPONDERS": "@oncall"},
            "FM_ALERT_RESPONDERS: expected a Slack user group ID such as S0123456789 "
            "(got '@oncall')",
        ),
    ],
)
def test_bad_alert_and_workflow_settings_name_the_variable(
    env: dict[str, str], expected: str
) -> None:
    assert expected in problems_for(**env)


def test_the_executor_name_is_case_insensitive_and_the_catalog_path_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load(
        FM_WORKFLOW_EXECUTOR="Webhook",
        FM_WORKFLOW_WEBHOOK_URL="https://automation.example.com/hook",
        FM_WORKFLOW_CATALOG_DIR="catalog",
    )

    assert settings.workflow_executor == "webhook"
    assert settings.workflow_catalog_dir == tmp_path / "catalog"
