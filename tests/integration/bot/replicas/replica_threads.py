"""Incident threads driven through two replicas: what people send, and what the model answers.

Every thread is opened by a mention and then gets one more step of its kind and a last message:

* upload: a log shared in the thread, then a question about it that must be answered with a
  `file:line` citation of that log;
* click: Yes on the problem statement the bot asked to confirm (which runs a turn), then a message;
* message: two messages.

A thread's mention and last message go to its home replica, its middle step to the other one.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.fakes.models.llm_server import Scripted
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import MENTION, find_button, text_of, with_buttons
from tests.integration.bot.replicas.replica_model import Answer, cite_labels
from tests.integration.engine.thread import json_reply

CHANNEL = "C111"
WARM_UP_CHANNEL = "C222"
PERSON = "W222"
KINDS = ("upload", "click", "message")
POSTS = {"upload": 3, "click": 3, "message": 3}
"""The bot's posts in each kind of thread: the case summary with the first answer under it (its
question at its foot); then the answer to the middle step (an upload's opens with the file's
findings; a click on Yes redraws the question and runs a turn); then the last message's answer. A
turn answered twice would post again."""
SOURCES = "Sources: `{filename}:"
FIRST_ERROR_LINE = 25
LOG_LINES = 40


@dataclass
class Thread:
    """One case: its number, kind, home replica, channel and (once opened) its thread ts."""

    number: int
    home: int
    channel: str = CHANNEL
    ts: str = ""

    @property
    def kind(self) -> str:
        """What its middle step is."""
        return KINDS[self.number % len(KINDS)]

    @property
    def filename(self) -> str:
        """The log an upload thread shares."""
        return f"c{self.number:02d}-payments.log"

    def tag(self, step: int) -> str:
        """What marks the person's message of ``step``, and the model's answer to it."""
        return f"[c{self.number:02d}/s{step}]"

    def replica(self, step: int) -> int:
        """Where the load balancer sends ``step``."""
        return 1 - self.home if step == 2 else self.home

    def model_steps(self) -> list[int]:
        """The steps answered by a model turn (every one: a click on Yes runs a turn too)."""
        return [1, 2, 3]


def log_file(number: int) -> str:
    """A payments log whose ledger timeouts start at line FIRST_ERROR_LINE."""
    lines = [
        f"2026-11-21T14:04:{i:02d}Z INFO payments request ok shard={number} latency_ms={40 + i}"
        for i in range(1, FIRST_ERROR_LINE)
    ]
    lines += [
        f"2026-11-21T14:05:{i:02d}Z ERROR payments upstream connect timeout to ledger-{number}"
        " after 5000ms"
        for i in range(FIRST_ERROR_LINE, LOG_LINES + 1)
    ]
    return "\n".join(lines) + "\n"


def model_answers(threads: list[Thread]) -> Answer:
    """The model's reply to each tagged turn."""
    by_tag = {thread.tag(step): (thread, step) for thread in threads for step in (1, 2, 3)}

    def answer(tag: str, prompt: str) -> Scripted:
        thread, step = by_tag[tag]
        if step == 1:
            statement = f"Payments shard {thread.number} returns HTTP 500 since 14:05 UTC"
            return json_reply(
                f"{tag} Let me confirm: *{statement}*. Is that accurate?",
                problem_confirmation={"problem_type": "error", "severity_guess": "HIGH"},
                proposed_problem_statement=statement,
            )
        if step == 3 and thread.kind == "upload":
            # Only what the bot quoted can be cited: it checks citations against its excerpts.
            labels = cite_labels(prompt, thread.filename)[:1]
            return json_reply(f"{tag} The ledger timeouts start at 14:05.", citations=labels)
        return json_reply(f"{tag} Noted, thanks.")

    return answer


def request_for(slack: FakeSlack, thread: Thread, step: int) -> SlackRequest:
    """What Slack sends for ``step`` of ``thread`` (the message is seeded in FakeSlack too)."""
    tag, payloads = thread.tag(step), slack.payloads
    if step == 1:
        thread.ts = next_ts()
        text = f"{MENTION} {tag} payments shard {thread.number} is throwing 500s"
        slack.add_message(thread.channel, text, user=PERSON, ts=thread.ts)
        return payloads.message(text, channel=thread.channel, user=PERSON, ts=thread.ts)
    if step == 2 and thread.kind == "click":
        (question,) = with_buttons(bot_messages(slack, thread), "fm_answer")
        yes = find_button(question, "fm_answer", "yes")
        return payloads.block_action(
            yes["action_id"], yes["value"], message=question, channel=thread.channel, user=PERSON
        )
    ts, where = next_ts(), {"channel": thread.channel, "user": PERSON, "thread_ts": thread.ts}
    if step == 2 and thread.kind == "upload":
        shared = slack.add_file(thread.filename, log_file(thread.number))
        text = f"{tag} here is the payments log"
        slack.add_message(text=text, ts=ts, files=[shared], **where)
        return payloads.file_share([shared], text, ts=ts, **where)
    text = f"{tag} when did the ledger-{thread.number} timeouts start?"
    slack.add_message(text=text, ts=ts, **where)
    return payloads.message(text, ts=ts, **where)


def bot_messages(slack: FakeSlack, thread: Thread) -> list[dict[str, object]]:
    """The bot's messages in the thread, as Slack shows them now."""
    return [m for m in slack.messages(thread.channel, thread.ts) if m.get("bot_id")]


def answered(slack: FakeSlack, thread: Thread, step: int) -> bool:
    """Whether the thread shows the answer to ``step`` (and, after the first, its question)."""
    texts = [text_of(m) for m in bot_messages(slack, thread)]
    confirmed = any("confirmed the problem" in t for t in texts)
    if step == 2 and thread.kind == "click" and not confirmed:
        return False
    if not any(thread.tag(step) in text for text in texts):
        return False
    return step != 1 or bool(with_buttons(bot_messages(slack, thread), "fm_answer"))
