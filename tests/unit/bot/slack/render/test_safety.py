"""What Slack shows of model text holds no unsafe command, from the model's reply to Block Kit."""

from __future__ import annotations

import json

import pytest

from bot.slack.render.case.reply import reply_message
from bot.slack.render.markdown import to_mrkdwn
from bot.slack.render.message import SlackMessage
from bot.slack.render.remediation import analysis_record, rca_message
from tests.fakes.models.llm import ScriptedLLM
from tests.unit.domain.builders import investigating_case
from tests.unit.domain.engine.helpers import Rig, investigating, said
from tests.unit.domain.workflows.test_planner import incident, planner
from tests.unit.domain.workflows.test_planner_safety import UNSAFE_FINDINGS, UNSAFE_REPLY

UNSAFE = ("kubectl delete", "rm -rf", "systemctl restart", "rollout restart")


def assert_nothing_unsafe(message: SlackMessage) -> None:
    shown = json.dumps([message.text, message.block_dicts()], ensure_ascii=False)
    for command in UNSAFE:
        assert command not in shown


@pytest.mark.parametrize("tag", ["bash", "SH", "console", "yaml", "promql", "text"])
def test_a_fence_loses_its_language_tag(tag: str) -> None:
    assert to_mrkdwn(f"```{tag}\nkubectl get pods\n```") == "```\nkubectl get pods\n```"


@pytest.mark.parametrize(
    "text", ["```kubectl\nget pods\n```", "```(command withheld: it x)\nkubectl get pods\n```"]
)
def test_code_on_the_opening_fence_line_stays_code(text: str) -> None:
    assert to_mrkdwn(text) == text


def test_a_tilde_fence_becomes_a_slack_code_block() -> None:
    assert to_mrkdwn("~~~yaml\nreplicas: 3\n~~~") == "```\nreplicas: 3\n```"


async def test_an_alert_analysis_shows_no_unsafe_command() -> None:
    outcome = await planner(ScriptedLLM([UNSAFE_FINDINGS, UNSAFE_REPLY])).analyse(
        incident(), case_id="case_1"
    )

    message = rca_message(outcome, signal_severity="high", catalog=True)

    assert_nothing_unsafe(message)
    assert "(command withheld: `kubectl` " in json.dumps(message.block_dicts())
    for command in UNSAFE:
        assert command not in analysis_record(outcome, [])


async def test_a_turn_reply_shows_changes_labelled_and_its_request_cards_only_reads() -> None:
    rig = Rig()
    request = {
        "label": "Kubelet state",
        "description": "Whether the kubelet lost its pods",
        "category": "configuration",
        "guidance": {
            "commands": ["journalctl -u kubelet --since '1 hour ago'"],
            "file_locations": ["/var/lib/kubelet/config.yaml", "rm -rf /var/lib/etcd/member"],
            "ui_locations": ["Lens > Nodes, then kubectl delete node worker-3"],
            "alternatives": ["If the cache is stale, kubectl rollout restart deploy/api -n prod"],
            "prerequisites": ["Run `sudo systemctl restart kubelet` first"],
            "expected_output": "Running pods; if none, rm -rf /var/lib/kubelet/pods",
        },
    }
    text = (
        "```kubectl delete pod api-7f9 -n prod\nkubectl get pods\n```\n"
        "Then run sudo systemctl restart nginx.\n(rm -rf /var/lib/docker)"
    )

    result = await rig.turn(
        investigating_case(), said("what next?"), investigating(text, evidence_requests=[request])
    )

    message = reply_message(result.reply, case_id="case_1")
    shown = json.dumps([message.text, message.block_dicts()], ensure_ascii=False)
    # Destructive: never shown. Changes state: shown in the answer, saying what it changes, for
    # a person to run (as a mitigation would be); the request card keeps only reads.
    assert "rm -rf" not in shown
    assert "changes state: it deletes pods" in shown
    assert "changes state: it starts, stops or restarts a service" in shown
    (card,) = result.reply.evidence_requests
    assert_nothing_unsafe(reply_message(result.reply.model_copy(update={"text": ""}), case_id="c"))
    assert card.file_locations == ["/var/lib/kubelet/config.yaml"]
    assert card.commands == ["journalctl -u kubelet --since '1 hour ago'"]
    assert "kubectl get pods" in result.reply.text
