"""`fm mcp tools` and the doctor's MCP lines, against the fake MCP server run for real."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.doctor import Verdict
from bot.cli.doctor_mcp import check_mcp
from bot.cli.mcp import McpReport
from bot.mcp import ServerStatus
from bot.settings import Settings, load_settings
from tests.paths import REPO_ROOT


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FM_DATA_DIR", str(tmp_path / "data"))


def write_config(folder: Path, **extra: object) -> Path:
    fake = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "env": {"FAKE_GREETING": "${FAKE_GREETING_VALUE}"},
        "includeTools": ["echo", "run_check", "delete_series"],
    }
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"fake": fake, **extra}}))
    return path


def test_fm_mcp_tools_prints_the_catalogue_the_model_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_MCP_CONFIG", str(write_config(tmp_path)))
    monkeypatch.setenv("FAKE_GREETING_VALUE", "hello")

    code = main(["mcp", "tools"])

    out, err = capsys.readouterr()
    assert code == 0
    assert "fake__echo  (fake › echo; asks a person first)" in out
    assert "  arguments: command (string, required), timeout_s (integer)" in out
    assert "delete_series" not in out
    assert "tool 'delete_series' is refused, it is annotated destructiveHint: true" in err


def test_fm_mcp_tools_json_is_the_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_MCP_CONFIG", str(write_config(tmp_path)))
    monkeypatch.setenv("FAKE_GREETING_VALUE", "hello")

    assert main(["mcp", "tools", "--json"]) == 0

    catalogue = json.loads(capsys.readouterr().out)
    assert [entry["name"] for entry in catalogue] == ["fake__echo", "fake__run_check"]
    assert catalogue[0]["input_schema"]["required"] == ["text"]
    assert catalogue[0]["trusted"] is False


def test_fm_mcp_tools_names_a_variable_that_is_not_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_MCP_CONFIG", str(write_config(tmp_path)))
    monkeypatch.delenv("FAKE_GREETING_VALUE", raising=False)

    assert main(["mcp", "tools"]) == 0

    out, err = capsys.readouterr()
    assert out == "No tool is allowed.\n"
    assert "env.FAKE_GREETING refers to ${FAKE_GREETING_VALUE}, which is not set" in err


def test_fm_mcp_tools_without_a_configuration_says_how_to_add_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["mcp", "tools"]) == 0

    assert "FM_MCP_CONFIG is not set" in capsys.readouterr().err


def test_fm_mcp_tools_with_a_broken_file_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "mcp.json"
    broken.write_text('{"mcpServers": {')
    monkeypatch.setenv("FM_MCP_CONFIG", str(broken))

    assert main(["mcp", "tools"]) == 1

    assert f"{broken} is not valid JSON (line 1" in capsys.readouterr().err


def settings_with(config: Path) -> Settings:
    return load_settings({"FM_MCP_CONFIG": str(config)}, env_file=None)


def test_the_doctor_lists_each_server_its_tools_and_which_are_allowed(tmp_path: Path) -> None:
    config = write_config(tmp_path, gone={"command": "no-such-mcp-server", "includeTools": ["q"]})
    settings = settings_with(config)

    def inspect(settings: Settings) -> McpReport:
        from bot.cli.mcp import inspect_servers

        return inspect_servers(settings, {"FAKE_GREETING_VALUE": "hi"})

    checks = {check.name: check for check in check_mcp(settings, inspect)}

    fake, gone = checks["mcp fake"], checks["mcp gone"]
    assert fake.verdict is Verdict.WARN
    assert fake.detail.startswith("14 tool(s) reachable; allowed: echo, run_check. ")
    assert "tool 'delete_series' is refused" in fake.detail
    assert gone.verdict is Verdict.FAIL
    assert gone.detail == "server 'gone' cannot start: 'no-such-mcp-server' was not found."


def test_the_doctor_says_nothing_about_mcp_when_it_is_not_configured() -> None:
    assert check_mcp(load_settings({}, env_file=None)) == []


def test_a_healthy_server_is_ok_and_a_broken_file_fails(tmp_path: Path) -> None:
    healthy = ServerStatus("prom", "stdio", True, "running", ("q", "r"), ("q",), ())
    settings = settings_with(tmp_path / "mcp.json")

    [ok] = check_mcp(settings, lambda s: McpReport(True, statuses=[healthy]))
    [failed] = check_mcp(settings, lambda s: McpReport(True, error="mcp.json is not valid JSON"))

    assert (ok.verdict, ok.detail) == (Verdict.OK, "2 tool(s) reachable; allowed: q.")
    assert failed.verdict is Verdict.FAIL
    assert failed.detail == "mcp.json is not valid JSON; fix FM_MCP_CONFIG or the file."
