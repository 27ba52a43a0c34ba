"""Text for Slack: escaping, and splitting long text without cutting sentences."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.slack.render.markdown import to_mrkdwn
from bot.slack.render.text import escape, shorten, split_text

SENTENCES = st.lists(
    st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=120).map(
        lambda s: s.strip().replace("  ", " ") or "x"
    ),
    min_size=1,
    max_size=80,
)


@given(SENTENCES, st.integers(min_value=200, max_value=3000))
def test_pieces_fit_and_keep_every_sentence_whole(sentences: list[str], limit: int) -> None:
    text = " ".join(f"{s}." for s in sentences)

    pieces = split_text(text, limit)

    assert all(len(p) <= limit for p in pieces)
    assert " ".join(pieces).split() == text.split()
    assert all(p.endswith(".") for p in pieces)


def test_a_code_block_cut_in_two_is_closed_and_reopened() -> None:
    text = (
        "Run this:\n```\n" + "\n".join(f"kubectl get pods -n ns{i}" for i in range(300)) + "\n```"
    )

    pieces = split_text(text, 1000)

    assert len(pieces) > 1
    assert all(p.count("```") % 2 == 0 for p in pieces)
    assert all(len(p) <= 1000 for p in pieces)


def test_only_a_sentence_longer_than_the_limit_is_cut_between_words() -> None:
    pieces = split_text("word " * 100, 60)

    assert all(len(p) <= 60 for p in pieces)
    assert all(not p.startswith("ord") for p in pieces)


def test_escaping_keeps_mentions_channels_and_links_but_not_broadcasts() -> None:
    text = "<@U123> see <#C456|ops> and <https://example.com|docs>; <!here> a<b & c>d"
    assert escape(text) == (
        "<@U123> see <#C456|ops> and <https://example.com|docs>; &lt;!here&gt; a&lt;b &amp; c&gt;d"
    )


def test_markdown_from_the_model_becomes_mrkdwn() -> None:
    assert to_mrkdwn("## Cause\n**pool** is [full](https://x.io/a)") == (
        "*Cause*\n*pool* is <https://x.io/a|full>"
    )


def test_labels_are_shortened_at_a_word_with_an_ellipsis() -> None:
    assert shorten("Payments error logs from the last hour", 20) == "Payments error logs…"
    assert shorten("short", 20) == "short"
