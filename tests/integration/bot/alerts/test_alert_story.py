"""`make demo`'s alert story, read as the paged on-call reads it: its budget.

Alertmanager's crash-looping alert, the analysis offering two workflows in one message, the
on-call's approval, their numbers, "stable", one click to resolve with the documents written.
One new message per person's action (the alert's arrival posts the alert, and the case summary
with the analysis under it); about 700 characters per action, the arrival counted; no message
over 2,500; no long block shown twice; no edit that changes nothing; no live button once
resolved.
"""

from __future__ import annotations

from pathlib import Path

from tests.demo.scenario import record_incident
from tests.demo.summary import MAX_CHARS_PER_ACTION, count
from tests.demo.visible import visible_length
from tests.integration.bot.budget import live_buttons, repeated_blocks
from tests.integration.bot.harness import text_of


async def test_the_alert_story_keeps_to_its_budget(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path, "alert")
    assert transcript.error is None, transcript.error
    actions = [(a.step.name, a.real) for a in transcript.actions]
    numbers = count(
        transcript.thread, actions, ephemerals=transcript.ephemerals, edits=transcript.edits
    )
    posts = {a.action: a.posts for a in numbers.per_action}
    bots = [m for m in transcript.thread if m.get("bot_id")]

    assert posts == {"alert_fires": 2, "approve": 1, "numbers": 1, "stable": 1, "resolve": 1}
    assert numbers.actions_over == []
    assert not numbers.too_long, numbers.longest
    assert numbers.characters_per_action <= MAX_CHARS_PER_ACTION, numbers.characters_per_action
    assert numbers.noop_edits == 0
    assert repeated_blocks(bots) == [], "a long block shown twice"
    assert live_buttons(bots) == [], "a button that would still act on the resolved case"
    summary = next(m for m in bots if "Root-cause analysis" in text_of(m))
    assert "✅ Resolved" in text_of(summary), "the analysis is drawn under the case summary"
    assert "Approved by" in text_of(summary), "the workflows are decided under the analysis"
    assert visible_length(summary) < 2000, visible_length(summary)
