"""Three honest states: read-only (shown), changes state (shown labelled), withheld (named).

A tool no table knows is judged by its verbs and flags and labelled "not checked"; placeholders
written `<like-this>` are words; a step written as prose is judged like a command in code.
"""

from __future__ import annotations

import pytest

from domain.safety import (
    ActionKind,
    classify_action,
    classify_command,
    commands_in,
    safe_commands,
    sanitize_text,
    withheld_notice,
)

# Every command the incident's notices called state-changing: each of them only reads.
ONLY_READ = [
    "kafka-consumer-groups.sh --bootstrap-server kafka:9092 --describe --group fulfillment",
    "argocd app get fulfillment-worker",
    "argocd app history fulfillment-worker",
    "flux get kustomizations",
    "istioctl proxy-status",
    "kafka-topics.sh --bootstrap-server kafka:9092 --describe --topic orders",
    "kcat -L -b kafka:9092",
    "rabbitmqctl list_queues name messages",
    "nodetool status",
    "dig +short kafka.internal",
]


@pytest.mark.parametrize("command", ONLY_READ)
def test_the_commands_once_withheld_as_changing_are_read_only(command: str) -> None:
    assert classify_command(command).is_safe
    assert safe_commands([command]) == ([command], [])


@pytest.mark.parametrize(
    "command",
    [
        "fooctl get widgets",
        "fooctl app list",
        "fooctl describe queue orders",
        "fooctl status",
        "fooctl app history fulfillment-worker",
        "fooctl list_queues",
        "fooctl proxy-status",
        "fooctl --describe --group fulfillment",
        "fooctl -L -b kafka:9092",
    ],
)
def test_an_unknown_tool_with_a_reading_verb_or_flag_looks_read_only_and_says_not_checked(
    command: str,
) -> None:
    verdict = classify_command(command)
    action = classify_action(command)

    assert verdict.looks_read_only
    assert not verdict.is_safe, "a guess is never safe to run unattended"
    assert action.kind is ActionKind.READ_ONLY
    assert action.label == "not checked: looks read-only — run it if you agree"
    assert safe_commands([command]) == ([command], [])


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("fooctl app rollback fulfillment-worker 41", "fooctl app (rollback)"),
        ("fooctl app set fulfillment-worker --sync-policy none", "fooctl app (set)"),
        ("fooctl apply -f app.yaml", "fooctl (apply)"),
        ("fooctl restart worker", "fooctl (restart)"),
        ("fooctl scale worker 3", "fooctl (scale)"),
        ("fooctl --group fulfillment --execute", "fooctl (--execute)"),
    ],
)
def test_an_unknown_tool_with_a_changing_verb_is_an_action_labelled_not_checked(
    command: str, what: str
) -> None:
    action = classify_action(command)

    assert action.kind is ActionKind.CHANGES_STATE
    assert action.label == f"not checked: looks like it changes {what} — run it if you agree"


@pytest.mark.parametrize(
    "command", ["fooctl delete queue orders", "fooctl purge orders", "fooctl get-token"]
)
def test_an_unknown_tool_that_looks_destructive_or_secret_is_withheld(command: str) -> None:
    assert classify_action(command).kind is ActionKind.WITHHELD


def test_an_unknown_tool_whose_words_say_nothing_is_withheld_and_named() -> None:
    (verdict,) = safe_commands(["fooctl frobnicate widgets"])[1]

    assert withheld_notice([verdict]) == (
        "Withheld 1 suggested command: `fooctl` — FaultMaven does not know what it does."
    )


def test_steps_written_as_prose_are_put_in_code_and_say_what_they_change() -> None:
    steps = "1. argocd app set fulfillment-worker --sync-policy none\n"
    steps += "2. argocd app rollback fulfillment-worker 41\n"
    steps += "3. argocd app history fulfillment-worker"

    shown = sanitize_text(steps, actions=True)

    assert shown.removed == ()
    assert shown.text.splitlines() == [
        "1. `argocd app set fulfillment-worker --sync-policy none`"
        " (↳ changes state: it changes an Argo CD application's settings)",
        "2. `argocd app rollback fulfillment-worker 41`"
        " (↳ changes state: it rolls an Argo CD application back to an earlier revision)",
        "3. argocd app history fulfillment-worker",
    ]
    assert sanitize_text(shown.text, actions=True).text == shown.text


def test_a_changing_command_in_a_block_is_labelled_after_the_block() -> None:
    text = "```bash\nkubectl rollout undo deploy/api -n prod\nkubectl get pods -n prod\n```\n"
    text += "Then wait."

    shown = sanitize_text(text, actions=True).text

    assert shown == (
        "```bash\nkubectl rollout undo deploy/api -n prod\nkubectl get pods -n prod\n```\n"
        "↳ `kubectl` changes state: it rolls a workload back\nThen wait."
    )
    assert sanitize_text(shown, actions=True).text == shown


def test_an_unknown_tool_written_as_a_step_is_judged_not_taken_for_prose() -> None:
    assert commands_in("2. fooctl app rollback fulfillment-worker 41") == [
        "fooctl app rollback fulfillment-worker 41"
    ]
    shown = sanitize_text("2. fooctl app rollback fulfillment-worker 41").text
    assert shown == (
        "2. (command withheld: `fooctl` — looks like it changes fooctl app (rollback), not checked)"
    )


@pytest.mark.parametrize(
    "text",
    ["- pods restart frequently", "- logs show errors at 14:05", "Then traffic set to 0%"],
)
def test_prose_that_only_uses_a_verb_stays_prose(text: str) -> None:
    assert commands_in(text) == []


@pytest.mark.parametrize(
    "command",
    [
        "kubectl logs -n <ns> -l app=<app> --since=30m | grep -i error",
        "kubectl describe deploy/<name> -n <namespace>",
        "kubectl get pod <pod>.<ns> -o wide",
        "curl -s http://<host>:<port>/healthz",
    ],
)
def test_placeholder_words_are_words_not_redirections(command: str) -> None:
    assert classify_command(command).is_safe


@pytest.mark.parametrize("command", ["sort <in>out", "cat <in >out", "kubectl get pods > <file>"])
def test_real_redirections_still_write(command: str) -> None:
    assert not classify_command(command).looks_read_only


@pytest.mark.parametrize(
    "command",
    [
        "pass show prod/db",
        "gopass show prod/db",
        "conjur variable get -i prod/db/password",
        "fooctl exec api-0 -- rm -rf /",
        "fooctl run-job nightly",
    ],
)
def test_secret_stores_and_tools_that_run_other_commands_are_withheld(command: str) -> None:
    assert classify_action(command).kind is ActionKind.WITHHELD


@pytest.mark.parametrize(
    ("command", "safe"),
    [
        ("fooctl list -o json", True),
        ("fooctl list -o wide", True),
        ("fooctl list --output out.txt", False),
        ("fooctl list -o /tmp/report", False),
        ("fooctl get x --save", False),
        ("fooctl get x --then-delete", False),
        ("fooctl viz stat deploy", True),
    ],
)
def test_a_guess_reads_the_first_verb_and_sees_files_written_and_deleting_flags(
    command: str, safe: bool
) -> None:
    assert classify_command(command).looks_read_only is safe


def test_a_secret_store_named_alone_in_a_sentence_is_a_word() -> None:
    text = "Replace the `pass` statement with a return."

    assert sanitize_text(text).text == text


def test_a_command_in_a_sentence_is_put_in_code_without_the_words_after_it() -> None:
    shown = sanitize_text("To recover, argocd app rollback fw 41 and watch.", actions=True).text

    assert shown == (
        "To recover, `argocd app rollback fw 41` (↳ changes state: it rolls an Argo CD"
        " application back to an earlier revision) and watch."
    )
