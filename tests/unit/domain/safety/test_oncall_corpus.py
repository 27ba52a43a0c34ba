"""Real on-call commands from the tools' own documentation, each judged as what it does.

The corpus (``tests/data/commands/oncall_commands.yaml``) names its source per tool. A command
labelled `read` must be read-only by the tables (not merely guessed); one labelled `changes` must
be known to change something (shown as an action, or withheld when it destroys), never passed off
as read-only nor left unknown; one labelled `withheld` must never be shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from domain.safety import ActionKind, classify_action, classify_command, reads_as_command

CORPUS = Path(__file__).parents[3] / "data" / "commands" / "oncall_commands.yaml"
TOOLS = (
    "kubectl helm argocd flux istioctl kafka kcat rabbitmqctl redis-cli psql mysql nodetool etcdctl"
    " consul vault aws gcloud az systemctl journalctl dig curl promtool amtool"
)


def _groups() -> list[dict[str, Any]]:
    data = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    groups: list[dict[str, Any]] = data["groups"]
    return groups


def _cases(label: str) -> list[Any]:
    return [
        pytest.param(command, id=f"{group['tool']}: {command}")
        for group in _groups()
        for command in group.get(label, [])
    ]


def test_the_corpus_is_large_cites_its_sources_and_covers_every_tool() -> None:
    groups = _groups()
    commands = [
        c for g in groups for label in ("read", "changes", "withheld") for c in g.get(label, [])
    ]
    assert len(commands) >= 150
    assert len(set(commands)) == len(commands)
    assert all(g["source"].startswith("https://") or g["source"].endswith(")") for g in groups)
    names = " ".join(g["tool"] for g in groups)
    assert [tool for tool in TOOLS.split() if tool not in names] == []


@pytest.mark.parametrize("command", [*_cases("read"), *_cases("changes"), *_cases("withheld")])
def test_every_documented_command_reads_as_a_command_not_prose(command: str) -> None:
    assert reads_as_command(command)
    assert reads_as_command(f"1. {command}")


@pytest.mark.parametrize("command", _cases("read"))
def test_documented_read_commands_are_read_only_by_the_tables(command: str) -> None:
    verdict = classify_command(command)

    assert verdict.is_safe, verdict.reason
    assert classify_action(command).kind is ActionKind.READ_ONLY


@pytest.mark.parametrize("command", _cases("changes"))
def test_documented_changing_commands_are_known_to_change_something(command: str) -> None:
    verdict = classify_command(command)

    assert not verdict.looks_read_only, verdict.reason
    assert not verdict.opaque, verdict.reason
    assert not verdict.guessed, verdict.reason


@pytest.mark.parametrize("command", _cases("withheld"))
def test_commands_that_print_secrets_or_destroy_are_withheld(command: str) -> None:
    assert classify_action(command).kind is ActionKind.WITHHELD
