"""The console surface: the same engine in a terminal, driven here by a scripted stdin."""

from __future__ import annotations

import io
from pathlib import Path

from bot.cli.console import console
from bot.settings import load_settings
from bot.wiring.runtime import Options
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.gateway import gateway_for
from tests.fakes.models.llm_server import FakeLLMServer
from tests.integration.bot.replies import STATEMENT, chat_reply, statement_reply


async def test_the_console_runs_an_investigation_typed_into_the_terminal(
    llm: FakeLLMServer, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_text("2026-11-21T14:05:01Z ERROR db timeout\n2026-11-21T14:05:02Z ERROR db timeout\n")
    stdin = io.StringIO(f"payments API returns 500s since 14:05\n2\nfile {log}\n/fm cases\nquit\n")
    out = io.StringIO()
    llm.script(
        statement_reply(),
        chat_reply("Share the application log since 14:00."),  # the Yes moves the case on
        chat_reply("The log shows DB timeouts."),
    )
    settings = load_settings(
        {"FM_DATA_DIR": str(tmp_path / "data"), "FM_LLM_MODEL": "openai/test-model"},
        env_file=None,
    )
    options = Options(knowledge=FakeKnowledge(), llm=gateway_for(llm).gateway, poll_interval_s=0.1)

    await console(settings, stdin=stdin, out=out, options=options)

    shown = out.getvalue()
    assert STATEMENT in shown
    assert "[2] ✅ Yes" in shown
    assert "@you confirmed the problem" in shown
    assert "Investigating" in shown
    assert "📄 `app.log`: read, and searchable from now on." in shown
    assert "2 lines" in shown
    assert "Share the application log since 14:00." in shown
    assert "The log shows DB timeouts." in shown
    assert "Open cases (1)" in shown
    assert "Traceback" not in shown
    assert "<!date" not in shown, "Slack's date tokens read as their plain fallback"
    assert len(llm.requests) == 3


async def test_without_a_model_the_console_still_opens_a_case_and_answers_plainly(
    tmp_path: Path,
) -> None:
    stdin = io.StringIO("disk full on db-1\n")
    out = io.StringIO()
    settings = load_settings({"FM_DATA_DIR": str(tmp_path / "data")}, env_file=None)

    await console(settings, stdin=stdin, out=out, options=Options(knowledge=FakeKnowledge()))

    shown = out.getvalue()
    assert "Being described" in shown
    assert "No language model is configured" in shown
