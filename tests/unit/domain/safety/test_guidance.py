"""Safety properties, and filtering lists of commands and acquisition guidance."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.investigation.guidance import sanitize_guidance
from domain.safety import CommandSafety, classify_command, safe_commands
from tests.unit.domain.safety.cases import DANGEROUS, MUTATING, READ_ONLY_COMMANDS, _verdict

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


def test_an_alternative_with_an_unsafe_command_anywhere_in_a_sentence_is_dropped() -> None:
    guidance = AcquisitionGuidance(
        alternatives=[
            "If the cache is stale, kubectl rollout restart deploy/api -n prod",
            "Then run sudo systemctl restart nginx and compare",
            "If logs are missing, ask the DBA",
        ]
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.alternatives == ["If logs are missing, ask the DBA"]
    assert len(result.removed) == 2


def test_prerequisites_ui_locations_and_expected_output_are_scrubbed() -> None:
    guidance = AcquisitionGuidance(
        commands=["kubectl get pods -n prod"],
        prerequisites=["Run `sudo systemctl restart kubelet` first", "cluster read role"],
        ui_locations=["Grafana > API > Error rate", "Lens: Pods, then kubectl delete pod api-0"],
        expected_output="All Running; if not, rm -rf /var/lib/kubelet/pods and retry",
    )
    result = sanitize_guidance(guidance).guidance
    shown = [*result.prerequisites, *result.ui_locations, result.expected_output or ""]
    for text in shown:
        assert "systemctl restart" not in text
        assert "kubectl delete" not in text
        assert "rm -rf" not in text
    assert result.prerequisites[0].startswith("Run (command withheld: `systemctl` — it ")
    assert result.prerequisites[1] == "cluster read role"
    assert result.ui_locations[0] == "Grafana > API > Error rate"
    assert (result.expected_output or "").startswith("All Running; if not, (command withheld: ")
    assert len(sanitize_guidance(guidance).removed) == 3


def test_an_expected_output_too_long_once_scrubbed_is_dropped() -> None:
    expected = "x" * 180 + " `rm -rf /`"
    guidance = AcquisitionGuidance(expected_output=expected)
    result = sanitize_guidance(guidance)
    assert result.guidance.expected_output is None
    assert [v.safety for v in result.removed] == [DANGEROUS]


def test_file_locations_are_paths_never_commands() -> None:
    guidance = AcquisitionGuidance(
        file_locations=[
            "/var/lib/etcd/member",
            "rm -rf /var/lib/etcd/member",
            "journalctl -u kubelet",
        ]
    )
    result = sanitize_guidance(guidance)
    assert result.guidance.file_locations == ["/var/lib/etcd/member"]
    assert [v.command for v in result.removed] == ["rm -rf /var/lib/etcd/member"]


@pytest.mark.parametrize(
    "location", ["/var/log/nginx/error.log", "/usr/bin/kubectl", "~/.kube/config", "C:\\logs\\app"]
)
def test_paths_stay_file_locations(location: str) -> None:
    guidance = AcquisitionGuidance(file_locations=[location])
    assert sanitize_guidance(guidance).guidance.file_locations == [location]
