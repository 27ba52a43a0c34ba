"""Slack mrkdwn as Slack shows it: formatting at word edges, tokens resolved, everything escaped."""

from __future__ import annotations

from datetime import date

import pytest

from tests.demo.mrkdwn import Names, mrkdwn_to_html, plain_to_html

NAMES = Names(people={"W1": "Maya Chen", "U0BOT": "FaultMaven"}, today=date(2025, 3, 12))


def html(text: str) -> str:
    return mrkdwn_to_html(text, NAMES)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*bold*", "<b>bold</b>"),
        ("_italic_", "<i>italic</i>"),
        ("~gone~", "<s>gone</s>"),
        ("a *bold* and _italic_ word", "a <b>bold</b> and <i>italic</i> word"),
        ("_*both*_", "<i><b>both</b></i>"),
    ],
)
def test_bold_italic_and_strike_become_tags(text: str, expected: str) -> None:
    assert html(text) == expected


@pytest.mark.parametrize("text", ["snake_case_name", "2*3*4", "file_a_b.log", "* not bold *"])
def test_marks_inside_words_or_beside_spaces_stay_as_typed(text: str) -> None:
    assert html(text) == text.replace("&", "&amp;")


def test_html_in_text_is_escaped_and_slack_entities_are_shown_as_characters() -> None:
    shown = html('&lt;script&gt;alert("x")&lt;/script&gt; &amp; a "quote"')

    assert "<script>" not in shown
    assert shown == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; a &quot;quote&quot;"


def test_inline_code_is_literal_and_escaped() -> None:
    assert html("run `grep *ERROR* &lt;file&gt;` now") == (
        "run <code>grep *ERROR* &lt;file&gt;</code> now"
    )


def test_a_code_block_keeps_its_lines_and_no_formatting() -> None:
    shown = html("Run:\n```kubectl get pods\n*not bold* <@W1>\n```\nthen wait")

    assert shown == (
        'Run:<pre class="code-block">kubectl get pods\n*not bold* &lt;@W1&gt;</pre>then wait'
    )


def test_a_user_mention_shows_the_persons_name() -> None:
    assert html("thanks <@W1>") == 'thanks <span class="mention">@Maya Chen</span>'


def test_a_mention_of_someone_unknown_shows_their_id() -> None:
    assert html("<@W999>") == '<span class="mention">@W999</span>'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<https://grafana.example/d/1|the dashboard>", '<a href="https://grafana.example/d/1">'),
        ("<https://example.com/?a=1&amp;b=2>", '<a href="https://example.com/?a=1&amp;b=2">'),
        ("<mailto:oncall@example.com|mail us>", '<a href="mailto:oncall@example.com">mail us</a>'),
    ],
)
def test_links_become_anchors_with_their_text(text: str, expected: str) -> None:
    assert html(text).startswith(expected)


def test_a_link_with_another_scheme_is_shown_as_text_only() -> None:
    assert html("<javascript:alert(1)|click>") == "click"


def test_channels_and_broadcasts_are_named() -> None:
    assert html("<#C1|incidents> <!here>") == (
        '<span class="mention">#incidents</span> <span class="mention">@here</span>'
    )


def test_a_date_token_is_written_in_utc_and_today_is_said_as_today() -> None:
    shown = html("Started <!date^1741788300^{date_short_pretty} {time}|2025-03-12 14:05 UTC>")

    assert shown == "Started today 14:05"


def test_a_date_token_on_another_day_shows_the_date() -> None:
    assert html("<!date^1741615500^{date_short} at {time}|x>") == "Mar 10, 2025 at 14:05"


def test_a_date_token_slack_cannot_read_shows_its_fallback() -> None:
    assert html("<!date^soon^{date}|some day &amp; time>") == "some day &amp; time"


def test_quoted_lines_become_one_blockquote() -> None:
    assert html("&gt; first\n&gt; second\nafter") == (
        "<blockquote>first<br>second</blockquote>after"
    )


def test_known_shortcodes_become_emoji_and_others_stay() -> None:
    assert html(":white_check_mark: done :party_parrot: at 14:05:12") == (
        "✅ done :party_parrot: at 14:05:12"
    )


def test_newlines_become_line_breaks() -> None:
    assert html("one\ntwo") == "one<br>two"


def test_plain_text_is_escaped_and_draws_emoji_only_when_asked() -> None:
    assert plain_to_html("<b> :tada:") == "&lt;b&gt; 🎉"
    assert plain_to_html(":tada:", emoji=False) == ":tada:"
