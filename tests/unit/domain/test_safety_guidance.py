"""Safety properties, and filtering lists of commands and acquisition guidance."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.evidence_requests import AcquisitionGuidance
from domain.safety import CommandSafety, classify_command, safe_commands, sanitize_guidance
from tests.unit.domain.safety_cases import DANGEROUS, MUTATING, READ_ONLY_COMMANDS, _verdict

# ---------------------------------------------------------------- properties

READ_ONLY_SAMPLES = st.sampled_from(READ_ONLY_COMMANDS)


@given(READ_ONLY_SAMPLES)
def test_appending_a_recursive_delete_to_any_read_only_command_makes_it_dangerous(
    command: str,
) -> None:
    assert _verdict(command + "; rm -rf /").safety is DANGEROUS


@given(READ_ONLY_SAMPLES, st.sampled_from([" && ", " || ", " | xargs ", "\n", " & "]))
def test_chaining_a_recursive_delete_with_any_operator_makes_it_dangerous(
    command: str, operator: str
) -> None:
    assert _verdict(command + operator + "rm -rf /srv").safety is DANGEROUS


@given(st.text(min_size=1).filter(str.strip))
def test_classify_command_never_raises_on_non_blank_text(text: str) -> None:
    verdict = classify_command(text)
    assert verdict.safety in CommandSafety
    assert verdict.reason


@given(st.text(alphabet="$()`'\"\\;|&<> \nrm-f/bashcx", min_size=1).filter(str.strip))
def test_classify_command_never_raises_on_shell_punctuation(text: str) -> None:
    assert classify_command(text).reason


# ---------------------------------------------------------------- lists of commands and guidance


def test_safe_commands_keeps_read_only_ones_in_order_and_reports_the_rest() -> None:
    kept, removed = safe_commands(
        ["tail app.log", "rm -rf /", "  ", "kubectl get pods", "systemctl restart api"]
    )
    assert kept == ["tail app.log", "kubectl get pods"]
    assert [(v.command, v.safety) for v in removed] == [
        ("rm -rf /", DANGEROUS),
        ("systemctl restart api", MUTATING),
    ]


def test_sanitize_guidance_keeps_only_read_only_commands_in_order() -> None:
    guidance = AcquisitionGuidance(
        commands=["kubectl get pods", "kubectl delete pod api-1", "kubectl logs api-1"],
        prerequisites=["cluster read role"],
        expected_output="CrashLoopBackOff",
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.commands == ["kubectl get pods", "kubectl logs api-1"]
    assert [v.command for v in result.removed] == ["kubectl delete pod api-1"]
    assert result.guidance.prerequisites == ["cluster read role"]
    assert result.guidance.expected_output == "CrashLoopBackOff"


def test_sanitize_guidance_never_mutates_its_input() -> None:
    guidance = AcquisitionGuidance(
        commands=["sudo tail /var/log/syslog", "rm -rf /var/log"],
        alternatives=["Kubernetes: kubectl delete pod api-1"],
        file_locations=["/var/log/syslog"],
    )
    before = guidance.model_dump()
    result = sanitize_guidance(guidance)
    assert guidance.model_dump() == before
    result.guidance.file_locations.append("/tmp")
    assert guidance.file_locations == ["/var/log/syslog"]


def test_a_privileged_command_adds_a_sudo_prerequisite() -> None:
    guidance = AcquisitionGuidance(commands=["sudo tail /var/log/syslog"])
    result = sanitize_guidance(guidance)
    assert result.guidance.prerequisites == ["May require sudo access"]
    assert result.removed == ()


@pytest.mark.parametrize(
    "prerequisites",
    [
        ["sudo"],
        ["Root access on web1"],
        ["May require sudo access"],
        ["VPN", "cluster read role"],
    ],
)
def test_the_sudo_prerequisite_is_not_repeated_nor_over_the_limit(prerequisites: list[str]) -> None:
    guidance = AcquisitionGuidance(commands=["sudo journalctl -u api"], prerequisites=prerequisites)
    assert sanitize_guidance(guidance).guidance.prerequisites == prerequisites


def test_a_removed_privileged_command_adds_no_sudo_prerequisite() -> None:
    guidance = AcquisitionGuidance(commands=["sudo systemctl restart api", "uptime"])
    result = sanitize_guidance(guidance)
    assert result.guidance.commands == ["uptime"]
    assert result.guidance.prerequisites == []


def test_alternatives_whose_command_is_not_read_only_are_dropped() -> None:
    guidance = AcquisitionGuidance(
        alternatives=[
            "Kubernetes: kubectl logs deploy/api --tail=100",
            "Kubernetes: kubectl rollout restart deploy/api",
            "Ask the on-call DBA to run `psql -c 'DELETE FROM jobs'`",
        ]
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.alternatives == ["Kubernetes: kubectl logs deploy/api --tail=100"]
    assert [v.safety for v in result.removed] == [MUTATING, DANGEROUS]


@pytest.mark.parametrize(
    "alternative",
    [
        "Ask a teammate with cluster access",
        "Grafana: API > Error rate panel",
        "Check the status page: https://status.example.com",
        "docker logs api --since 10m",
        "Docker: `docker logs api`",
        "",
    ],
)
def test_alternatives_in_prose_or_with_read_only_commands_are_kept(alternative: str) -> None:
    guidance = AcquisitionGuidance(alternatives=[alternative])
    assert sanitize_guidance(guidance).guidance.alternatives == [alternative]
