"""Commands hidden anywhere in free text are withheld; ordinary prose is left as written.

Tests use commands that are unsafe whatever the tables say of unknown ones (`kubectl delete`,
`rm -rf`, `systemctl restart`…). Prose that must stay is checked to offer the validator no span at
all, so it stays whatever the validator would answer for words it does not know.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.safety import (
    CommandSafety,
    CommandVerdict,
    SanitizedText,
    sanitize_text,
    withheld_note,
)
from domain.safety.text.candidates import find_candidates
from domain.safety.text.words import known

NOTE = re.compile(r"\(command withheld: `[^`\n]+` — it (?:[^()\n]|\([^()\n]*\))*\)")
UNSAFE = ("kubectl delete", "rm -rf", "systemctl restart", "rollout restart", "FLUSHALL", "DELETE")


def shown(text: str) -> str:
    """The sanitized text with each note as <withheld> (reasons belong to the tables)."""
    return NOTE.sub("<withheld>", sanitize_text(text).text)


def assert_nothing_unsafe(text: str) -> None:
    for command in UNSAFE:
        assert command not in text


# ---------------------------------------------------------------- fenced code


def test_code_on_the_opening_fence_line_is_checked() -> None:
    text = "```kubectl delete pod api-7f9 -n prod\nkubectl get pods\n```"

    assert shown(text) == "```<withheld>\nkubectl get pods\n```"


@pytest.mark.parametrize("tag", ["bash", "sh", "console", "yaml", "text", "BASH", "promql"])
def test_a_language_tag_stays_a_tag_and_the_lines_below_are_checked(tag: str) -> None:
    text = f"```{tag}\nkubectl delete pod api-7f9 -n prod\n```"

    assert shown(text) == f"```{tag}\n<withheld>\n```"


def test_code_after_a_language_tag_on_the_opening_line_is_checked() -> None:
    assert shown("```bash kubectl delete pod api-7f9\n```") == "```bash <withheld>\n```"


def test_lines_joined_by_a_backslash_are_one_command() -> None:
    fenced = "```\nkubectl -n prod \\\n  delete pod api-7f9\nkubectl get pods\n```"
    aws = "aws ec2 \\\nterminate-instances --instance-ids i-0abc"

    assert shown(fenced) == "```\n<withheld>\nkubectl get pods\n```"
    assert shown(aws) == "<withheld>"
    assert shown(f"```\n{aws}\n```") == "```\n<withheld>\n```"


def test_a_here_document_is_read_with_its_command() -> None:
    fenced = "```\nredis-cli <<EOF\nFLUSHALL\nEOF\nredis-cli ping\n```"
    quoted = "```bash\nredis-cli -h cache <<'END'\nCONFIG SET maxmemory 0\nEND\n```"
    prose = "Clear it with:\nredis-cli <<EOF\nFLUSHDB\nEOF\nthen watch the hit rate."

    assert shown(fenced) == "```\n<withheld>\nredis-cli ping\n```"
    assert shown(quoted) == "```bash\n<withheld>\n```"
    assert shown(prose) == "Clear it with:\n<withheld>\nthen watch the hit rate."
    assert shown("Then `redis-cli <<< FLUSHALL`.") == "Then <withheld>."


def test_a_here_document_of_plain_text_is_kept() -> None:
    text = "```\ncat <<EOF\nhello\nEOF\n```"

    assert sanitize_text(text).text == text


def test_sql_blocks_are_read_as_statements() -> None:
    text = "```sql\nSELECT count(*) FROM jobs;\n```\n```sql\nDELETE FROM jobs\nWHERE id = 3;\n```"

    assert shown(text) == "```sql\nSELECT count(*) FROM jobs;\n```\n```sql\n<withheld>\n```"
    assert shown("```\nDROP TABLE jobs;\nSELECT 1;\n```") == "```\n<withheld>\nSELECT 1;\n```"


def test_tilde_fences_and_an_unclosed_fence_are_code_too() -> None:
    tilde = "~~~\nkubectl -n prod \\\n  delete pod api-7f9\n~~~"
    unclosed = "Try:\n```\nkubectl get pods\nredis-cli <<EOF\nFLUSHALL\nEOF"

    assert shown(tilde) == "~~~\n<withheld>\n~~~"
    assert shown(unclosed) == "Try:\n```\nkubectl get pods\n<withheld>"


def test_a_prompt_in_a_block_is_stripped_and_a_comment_is_not_a_command() -> None:
    text = "```bash\n# check the pods first\nkubectl get pods\n$ kubectl delete pod api-0\n```"

    assert shown(text) == "```bash\n# check the pods first\nkubectl get pods\n<withheld>\n```"


def test_output_in_a_block_offers_the_validator_nothing() -> None:
    text = (
        "```\nNAME          READY   STATUS\napi-7f9       0/1     CrashLoopBackOff\n"
        "2026-11-21T14:05:00Z ERROR pool exhausted\n```\n"
        '```json\n{"replicas": 3}\n```\n```promql\nrate(http_requests_total[5m])\n```'
    )

    assert find_candidates(text) == []


# ---------------------------------------------------------------- prose

WITHHELD_IN_PROSE = [
    ("KUBECONFIG=~/.kube/prod kubectl delete ns prod", "<withheld>"),
    ("/bin/rm -rf /var/lib/mysql", "<withheld>"),
    ("(rm -rf /var/lib/docker)", "<withheld>"),
    ("root@db1:~# rm -rf /var/lib/mysql", "root@db1:~# <withheld>"),
    ("[root@db1 ~]# rm -rf /var/lib/mysql", "[root@db1 ~]# <withheld>"),
    ("+ kubectl delete pod api-0", "+ <withheld>"),
    ("> kubectl delete ns prod", "> <withheld>"),
    ("$ sudo systemctl restart nginx", "$ <withheld>"),
    ("- kubectl delete pod api-0 -n prod", "- <withheld>"),
    ("Then run sudo systemctl restart nginx.", "Then run <withheld>."),
    ("Fix: kubectl rollout restart deploy/api", "Fix: <withheld>"),
    ("**Fix:** kubectl rollout restart deploy/api", "**Fix:** <withheld>"),
    (
        "If the cache is stale, kubectl rollout restart deploy/api -n prod",
        "If the cache is stale, <withheld>",
    ),
    (
        "Problem: 500s · Fix: rm -rf /var/cache/app · Owner: web",
        "Problem: 500s · Fix: <withheld> · ",
    ),
    ("The quickest fix is to rm -rf /var/lib/docker and restart.", "The quickest fix is to "),
    ("Run DELETE FROM jobs WHERE id = 3 to clear it.", "Run <withheld>."),
    ("cd /var/lib/mysql && rm -rf *", "<withheld>"),
]


@pytest.mark.parametrize(("text", "start"), WITHHELD_IN_PROSE)
def test_commands_in_prose_are_withheld(text: str, start: str) -> None:
    result = shown(text)

    assert result.startswith(start)
    assert "<withheld>" in result
    assert_nothing_unsafe(result)


ORDINARY_PROSE = [
    "The pod was deleted at 14:05",
    "Restart the service once the fix is deployed",
    "I'd rollback if errors persist",
    "After the helm upgrade at 14:02 the pods crashed.",
    "The kubectl output shows 3 restarts.",
    "Disk usage at /var/lib is 95%.",
    "The service /healthz endpoint returned 500.",
    "We should kill the noisy neighbour and restart the service.",
    "The last reboot was at 02:00.",
    "Error rate > 50% means it is critical.",
    "- if errors persist, roll back\n- then the pool fills up\n- service is down",
    "Root cause: pool size 10 · Fix: raise the pool to 50",
    "Note: the database failed over, and the app kept stale connections.",
    "## Summary\n> Quote: it failed.\n# Heading",
    "May require sudo access",
    "Grafana > API > Error rate",
    "git push failed because of a hook",
    "Check `api`, `max_connections`, `OOMKilled` and `/var/log/syslog`.",
    "Run the migration script again after the deploy.",
]


@pytest.mark.parametrize("text", ORDINARY_PROSE)
def test_ordinary_prose_offers_the_validator_nothing(text: str) -> None:
    assert find_candidates(text) == []
    assert sanitize_text(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Check with `kubectl get pods -n prod` first.",
        "- kubectl logs deploy/api --tail=100",
        "$ journalctl -u api --since '1 hour ago'",
        "Fix: kubectl describe pod api-0 shows the OOM kill.",
    ],
)
def test_read_only_commands_are_left_as_written(text: str) -> None:
    assert sanitize_text(text) == SanitizedText(text, ())


def test_a_note_names_the_program_but_never_repeats_the_command() -> None:
    verdict = CommandVerdict(
        "(rm -rf /x)", CommandSafety.DANGEROUS, "deletes files (in: rm -rf /x)", False
    )

    assert withheld_note(verdict) == "(command withheld: `rm` — it deletes files)"
    assert_nothing_unsafe(sanitize_text("(rm -rf /var/lib/docker)").text)


def test_every_withheld_command_is_reported_once() -> None:
    result = sanitize_text("Fix: kubectl delete ns prod\n```\nrm -rf /srv\n```")

    assert [v.command for v in result.removed] == ["kubectl delete ns prod", "rm -rf /srv"]
    assert sanitize_text(result.text).removed == ()


# ---------------------------------------------------------------- properties

LINES = [
    "The API returned 500s from 14:05.",
    "kubectl get pods -n prod",
    "kubectl delete pod api-0 -n prod",
    "Fix: sudo systemctl restart nginx",
    "rm -rf /var/lib/docker",
    "redis-cli <<EOF",
    "FLUSHALL",
    "EOF",
    "aws ec2 \\",
    "  terminate-instances --instance-ids i-0abc",
    "kubectl -n prod \\",
    "  delete pod api-7f9",
    "Then run sudo systemctl restart nginx.",
    "KUBECONFIG=~/.kube/prod kubectl delete ns prod",
    "(rm -rf /var/lib/docker)",
    "DELETE FROM jobs",
    "WHERE id = 3;",
    "$ kubectl delete ns prod",
    "Check `kubectl logs deploy/api` and `rm -rf /srv`.",
    "- restart the service if needed",
    "NAME READY STATUS",
    "```",
    "```bash",
    "```sql",
    "~~~",
]


@given(st.lists(st.sampled_from(LINES), max_size=10))
def test_no_unsafe_command_survives_and_checking_twice_changes_nothing(lines: list[str]) -> None:
    once = sanitize_text("\n".join(lines))
    twice = sanitize_text(once.text)

    assert_nothing_unsafe(once.text)
    assert twice.text == once.text
    assert twice.removed == ()


@pytest.mark.parametrize(
    "name",
    [
        "kubectl",
        "oc",
        "helm",
        "docker",
        "podman",
        "systemctl",
        "journalctl",
        "aws",
        "gcloud",
        "az",
        "terraform",
        "redis-cli",
        "psql",
        "mysql",
        "git",
        "rm",
        "dd",
        "mkfs",
        "shred",
        "wipefs",
        "iptables",
        "crontab",
    ],
)
def test_the_tools_people_run_in_incidents_are_found_in_text(name: str) -> None:
    """Text scanning knows commands from the validator's tables: these must stay in them."""
    assert known(name)
