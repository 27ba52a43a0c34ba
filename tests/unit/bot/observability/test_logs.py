"""Log lines as JSON (FM_LOG_FORMAT=json): one object a line, with the case, team and turn ids
where known, secrets redacted and long values cut short."""

from __future__ import annotations

import json
import logging

from bot.observability.logs import (
    EXTRA_CHARS,
    ContextFilter,
    JsonFormatter,
    bind_log_context,
    log_context,
)


def formatted(message: str, *args: object, **extra: object) -> dict[str, object]:
    record = logging.LogRecord("bot.test", logging.WARNING, __file__, 1, message, args, None)
    for key, value in extra.items():
        setattr(record, key, value)
    ContextFilter().filter(record)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    parsed: dict[str, object] = json.loads(line)
    return parsed


def test_a_record_is_one_json_object_with_the_ids_of_the_turn_it_was_logged_in() -> None:
    with log_context(team_id="T111", turn_id="Ev01"):
        bind_log_context(case_id="case_1")
        entry = formatted("turn took %d ms", 120, model="openai/gpt-4o")
    outside = formatted("no turn here")

    assert entry["message"] == "turn took 120 ms"
    assert entry["level"] == "WARNING"
    assert entry["logger"] == "bot.test"
    assert (entry["case_id"], entry["team_id"], entry["turn_id"]) == ("case_1", "T111", "Ev01")
    assert entry["model"] == "openai/gpt-4o"
    assert "case_id" not in outside


def test_a_secret_in_a_message_or_an_extra_is_redacted() -> None:
    token = "xoxb-123456789012-abcdefghijklmnopqrstuvwx"
    entry = formatted(f"Authorization: Bearer {token}", header=f"token={token}")

    assert token not in json.dumps(entry)


def test_a_long_extra_value_is_cut_short() -> None:
    entry = formatted("upload read", first_line="x" * 5000, lines=5000)

    assert len(str(entry["first_line"])) == EXTRA_CHARS
    assert entry["lines"] == 5000


def test_an_exception_is_logged_with_its_traceback_in_the_same_object() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord(
            "bot.test",
            logging.ERROR,
            __file__,
            1,
            "failed",
            (),
            exc_info=__import__("sys").exc_info(),
        )
    entry = json.loads(JsonFormatter().format(record))

    assert "ValueError: boom" in entry["exception"]
