"""People in the core: neutral references, written as mentions only by the renderers."""

from __future__ import annotations

from bot.slack.render.message import message, sections
from domain.people import mention, named
from tests.paths import REPO_ROOT


def test_a_reference_names_the_person_or_says_someone() -> None:
    assert mention("U123") == "{@U123}"
    assert mention(None) == "someone"
    assert named(f"{mention('U1')} answered {mention('W2')}") == "@U1 answered @W2"


def test_slack_shows_the_references_as_mentions() -> None:
    rendered = message(sections(f"{mention('U1')} answered yes"))

    assert rendered.text == "<@U1> answered yes"
    assert rendered.block_dicts()[0]["text"]["text"] == "<@U1> answered yes"


def test_the_core_writes_no_slack_syntax_for_people() -> None:
    slack_mentions = [
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "domain").rglob("*.py")
        if "<@" in path.read_text() and path.name != "people.py"
    ]

    assert slack_mentions == []
