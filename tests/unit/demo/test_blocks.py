"""Block Kit blocks drawn as Slack lays them out; nothing a message carries is dropped."""

from __future__ import annotations

from tests.demo.blocks import blocks_to_html
from tests.demo.mrkdwn import Names

NAMES = Names(people={"W1": "Maya Chen"})


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def plain(text: str) -> dict[str, object]:
    return {"type": "plain_text", "text": text, "emoji": True}


def html(*blocks: dict[str, object], trailer: str = "") -> str:
    return blocks_to_html(list(blocks), NAMES, trailer=trailer)


def test_a_header_is_its_plain_text_in_large_type() -> None:
    assert html({"type": "header", "text": plain("FM-1 · :red_circle: Ongoing <x>")}) == (
        '<div class="b-header">FM-1 · 🔴 Ongoing &lt;x&gt;</div>'
    )


def test_a_section_shows_its_mrkdwn_its_fields_and_its_button() -> None:
    shown = html(
        {
            "type": "section",
            "text": mrkdwn("*Cause* for <@W1>"),
            "fields": [mrkdwn("*Severity*\nHIGH"), plain("Impact")],
            "accessory": {"type": "button", "text": plain("Open"), "action_id": "a"},
        }
    )

    assert '<div class="b-text"><b>Cause</b> for <span class="mention">@Maya Chen</span></div>' in (
        shown
    )
    assert '<div class="b-field"><b>Severity</b><br>HIGH</div>' in shown
    assert '<div class="b-accessory"><span class="btn">Open</span></div>' in shown


def test_buttons_look_like_slacks_with_their_style() -> None:
    shown = html(
        {
            "type": "actions",
            "elements": [
                {"type": "button", "text": plain("Yes"), "style": "primary", "action_id": "y"},
                {"type": "button", "text": plain("No"), "style": "danger", "action_id": "n"},
                {"type": "button", "text": plain("Later"), "action_id": "l"},
                {"type": "button", "text": plain("Docs"), "url": "https://x", "action_id": "d"},
            ],
        }
    )

    assert shown == (
        '<div class="b-actions"><span class="btn btn-primary">Yes</span>'
        '<span class="btn btn-danger">No</span><span class="btn">Later</span>'
        '<span class="btn">Docs <span class="btn-link">↗</span></span></div>'
    )


def test_a_context_block_shows_its_elements_in_small_type() -> None:
    shown = html({"type": "context", "elements": [mrkdwn("📎 `app.log:3`"), plain("·")]})

    assert shown == (
        '<div class="b-context"><span class="b-context-item">📎 <code>app.log:3</code></span>'
        '<span class="b-context-item">·</span></div>'
    )


def test_a_divider_is_a_rule() -> None:
    assert html({"type": "divider"}) == '<hr class="b-divider">'


def test_feedback_buttons_show_both_answers() -> None:
    shown = html(
        {
            "type": "context_actions",
            "elements": [
                {
                    "type": "feedback_buttons",
                    "action_id": "f",
                    "positive_button": {"text": plain("👍"), "value": "up"},
                    "negative_button": {"text": plain("👎"), "value": "down"},
                }
            ],
        }
    )

    assert shown == (
        '<div class="b-actions"><span class="btn btn-small">👍</span>'
        '<span class="btn btn-small">👎</span></div>'
    )


def test_menus_show_their_chosen_option_or_placeholder() -> None:
    chosen = {"text": plain("High"), "value": "h"}
    shown = html(
        {
            "type": "actions",
            "elements": [
                {"type": "static_select", "initial_option": chosen, "options": [chosen]},
                {"type": "users_select", "placeholder": plain("Pick someone")},
            ],
        }
    )

    assert "High <span" in shown
    assert "Pick someone <span" in shown


def test_rich_text_keeps_its_styles_lists_links_and_mentions() -> None:
    shown = html(
        {
            "type": "rich_text",
            "elements": [
                {
                    "type": "rich_text_section",
                    "elements": [
                        {"type": "text", "text": "see ", "style": {"bold": True}},
                        {"type": "link", "url": "https://x.example", "text": "<this>"},
                        {"type": "user", "user_id": "W1"},
                    ],
                },
                {
                    "type": "rich_text_list",
                    "style": "ordered",
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "text", "text": "a", "style": {"code": True}}],
                        }
                    ],
                },
            ],
        }
    )

    assert '<b>see </b><a href="https://x.example">&lt;this&gt;</a>' in shown
    assert '<span class="mention">@Maya Chen</span>' in shown
    assert "<li><code>a</code></li></ol>" in shown


def test_an_image_is_a_placeholder_so_the_page_fetches_nothing() -> None:
    shown = html({"type": "image", "image_url": "https://x/y.png", "alt_text": "error rate"})

    assert "https://x/y.png" not in shown
    assert "error rate" in shown


def test_a_block_of_an_unknown_type_is_named_not_dropped() -> None:
    assert html({"type": "table", "rows": []}) == '<div class="b-unknown">[table block]</div>'


def test_the_trailer_ends_the_last_text_or_follows_the_last_block() -> None:
    edited = '<span class="edited">(edited)</span>'

    after_text = html({"type": "section", "text": mrkdwn("done")}, trailer=edited)
    after_buttons = html(
        {"type": "actions", "elements": [{"type": "button", "text": plain("Yes")}]},
        trailer=edited,
    )

    assert after_text.endswith(f'<div class="b-text">done {edited}</div></div></div>')
    assert after_buttons.endswith(f'</div><div class="b-trailer">{edited}</div>')


def test_markdown_blocks_read_their_bold_and_headings() -> None:
    shown = html({"type": "markdown", "text": "# Report\n**bold** text"})

    assert "<b>Report</b><br><b>bold</b> text" in shown
