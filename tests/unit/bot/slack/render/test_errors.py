"""The one failure format: what failed in one line, its reference, Retry when it can run again."""

from __future__ import annotations

from bot.slack.ids import ActionId, RetryValue, load_value
from bot.slack.render.errors import (
    SOMETHING_WENT_WRONG,
    failure_message,
    retrying_message,
    stale_form_view,
)
from bot.slack.render.limits import problems
from bot.slack.render.message import SlackMessage
from tests.unit.bot.slack.render.snapshots import assert_snapshot

RETRY = RetryValue(work_key="Ev0123ABCD", reference="1a2b3c4d")


def snapshot(name: str, message: SlackMessage) -> None:
    assert problems(message) == []
    assert_snapshot(name, {"text": message.text, "blocks": message.block_dicts()})


def kinds(message: SlackMessage) -> list[str]:
    return [block["type"] for block in message.block_dicts()]


def test_a_retryable_failure_is_one_line_its_reference_and_a_retry_button() -> None:
    rendered = failure_message(SOMETHING_WENT_WRONG, reference="1a2b3c4d", retry=RETRY)

    line, ref, buttons = rendered.block_dicts()
    assert kinds(rendered) == ["section", "context", "actions"]
    assert line["text"]["text"] == f"⚠️ {SOMETHING_WENT_WRONG}"
    assert ref["elements"][0]["text"] == "ref `1a2b3c4d`"
    (retry,) = buttons["elements"]
    assert retry["action_id"] == ActionId.RETRY.value
    assert retry["text"]["text"].endswith("Retry")
    assert load_value(RetryValue, retry["value"]) == RETRY
    assert rendered.text == f"⚠️ {SOMETHING_WENT_WRONG} (ref 1a2b3c4d)"
    snapshot("failure_retry", rendered)


def test_a_failure_that_cannot_run_again_has_no_button() -> None:
    rendered = failure_message("This case is finished.", reference="1a2b3c4d")

    assert kinds(rendered) == ["section", "context"]


def test_what_failed_is_escaped_but_mentions_stay() -> None:
    rendered = failure_message("<!channel> <@U123> <!subteam^S0SRE> could not", reference="r")

    assert (
        rendered.block_dicts()[0]["text"]["text"]
        == "⚠️ &lt;!channel&gt; <@U123> <!subteam^S0SRE> could not"
    )


def test_a_retried_failure_says_who_asked_and_has_no_button() -> None:
    rendered = retrying_message(by="U0RETRY", reference="1a2b3c4d")

    assert kinds(rendered) == ["section", "context"]
    assert rendered.text == "🔁 Retrying at <@U0RETRY>'s request…"
    snapshot("failure_retrying", rendered)


def test_an_unknown_form_is_replaced_by_a_modal_that_only_closes() -> None:
    view = stale_form_view().to_dict()

    assert view["type"] == "modal"
    assert "submit" not in view
    assert "nothing was saved" in view["blocks"][0]["text"]["text"]
