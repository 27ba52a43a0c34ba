"""`fm doctor --deep` asks each configured model for a tiny structured reply, over real HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli.doctor import Verdict, run_doctor
from bot.cli.doctor_models import check_models
from bot.cli.doctor_probes import Probes
from bot.settings import Settings, load_settings
from tests.fakes.models.anthropic_server import FakeAnthropic
from tests.fakes.models.json_mode_server import FakeJsonModeServer
from tests.fakes.models.llm_server import FakeLLMServer, ScriptedModelServer, reply, status

OK = reply({"status": "ok"})


def settings_for(server: ScriptedModelServer, tmp_path: Path, **env: str) -> Settings:
    values = {
        "FM_DATA_DIR": str(tmp_path),
        "FM_LLM_MODEL": server.model,
        "FM_LLM_API_BASE": server.api_base,
        "FM_LLM_API_KEY": "sk-test-not-a-real-key",
        **env,
    }
    return load_settings(values, env_file=None)


async def doctor_lines(settings: Settings) -> list[tuple[str, Verdict, str]]:
    checks = await asyncio.to_thread(check_models, settings)
    return [(c.name, c.verdict, c.detail) for c in checks]


@pytest.mark.parametrize(
    ("provider", "mode"),
    [
        (FakeLLMServer, "strict schema"),
        (FakeAnthropic, "tool call"),
        (FakeJsonModeServer, "prompted JSON (JSON mode)"),
    ],
)
async def test_each_model_is_asked_once_and_its_mode_and_latency_printed(
    provider: type[ScriptedModelServer], mode: str, tmp_path: Path
) -> None:
    async with provider() as server:
        server.script(OK)
        ((name, verdict, detail),) = await doctor_lines(settings_for(server, tmp_path))

    assert (name, verdict) == ("llm main+fast+judge", Verdict.OK)
    assert detail.startswith(f"{server.model}: answers in {mode} mode (")
    assert detail.endswith(" ms).")


async def test_a_judge_model_the_provider_does_not_know_fails_naming_its_setting(
    tmp_path: Path,
) -> None:
    async with FakeLLMServer(models={"test-model"}) as server:
        server.script(OK, OK)
        env = {"FM_LLM_JUDGE_MODEL": "openai/judge-model"}
        lines = await doctor_lines(settings_for(server, tmp_path, **env))

    (main, judge) = lines
    assert main[:2] == ("llm main+fast", Verdict.OK)
    assert judge[:2] == ("llm judge", Verdict.FAIL)
    assert "does not know the model openai/judge-model (404)" in judge[2]
    assert "check FM_LLM_JUDGE_MODEL, then run `fm doctor --deep`" in judge[2]


async def test_a_rejected_key_says_which_setting_to_fix(tmp_path: Path) -> None:
    async with FakeLLMServer() as server:
        server.script(status(401, message="Incorrect API key provided"))
        ((_, verdict, detail),) = await doctor_lines(settings_for(server, tmp_path))

    assert verdict is Verdict.FAIL
    assert "rejected the API key" in detail
    assert "the provider said: Incorrect API key provided" in detail
    assert "FM_LLM_API_KEY" in detail
    assert len(server.requests) == 1, "no retries in the doctor"


async def test_a_server_that_is_not_there_is_unreachable(tmp_path: Path) -> None:
    async with FakeLLMServer() as server:
        gone = settings_for(server, tmp_path, FM_LLM_API_BASE="http://127.0.0.1:9/v1")
        ((_, verdict, detail),) = await doctor_lines(gone)

    assert verdict is Verdict.FAIL
    assert "could not connect to http://127.0.0.1:9/v1" in detail
    assert "FM_LLM_API_BASE" in detail


def test_without_a_model_nothing_is_asked(tmp_path: Path) -> None:
    assert check_models(load_settings({"FM_DATA_DIR": str(tmp_path)}, env_file=None)) == []


async def test_fm_doctor_deep_prints_the_model_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with FakeLLMServer() as server:
        server.script(OK)
        probes = Probes(
            select_one=lambda url: None,
            lancedb_tables=lambda uri, options: [],
            embedding_dimension=lambda path: 384,
        )
        settings = settings_for(server, tmp_path)
        await asyncio.to_thread(run_doctor, settings, deep=True, probes=probes)

    printed = capsys.readouterr().out
    assert "llm main+fast+judge  openai/test-model: answers in strict schema mode" in printed
