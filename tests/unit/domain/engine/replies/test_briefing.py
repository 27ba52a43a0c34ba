"""The evidence the model reads: findings and the lines around them first, within a budget."""

from __future__ import annotations

from domain.engine.inputs import InputFile, TurnInput
from domain.engine.prompting.briefing import brief_evidence, kept_with_findings
from domain.engine.prompting.prompts import PromptContext, PromptKind, render_prompt
from domain.knowledge import Citation, Finding, FindingKind, KnowledgeBaseKind, RetrievedChunk
from tests.fakes.clock import FakeClock
from tests.unit.domain.builders import investigating_case
from tests.unit.domain.engine.helpers import said, upload

CERT = "x509: certificate has expired or is not yet valid (ingress-gw → payments.internal:443)"


def _cite(line: int, source: str = "app.log") -> Citation:
    return Citation(kb=KnowledgeBaseKind.CASE, source=source, line_start=line)


def expired_cert(first: int = 70_001) -> Finding:
    return Finding(
        kind=FindingKind.PROBLEM,
        severity="ERROR",
        count=40,
        template="ERROR [ingress-gw] x509: certificate has expired <*>",
        example=f"ERROR [ingress-gw] {CERT}",
        first=_cite(first),
        last=_cite(99_990),
        new=True,
        since=_cite(first),
        context_start=first - 3,
        context=[
            "INFO [ingress-gw] upstream payments.internal:443 healthy",
            "INFO [ingress-gw] GET /v1/charges 200",
            "INFO [ingress-gw] reloading certificates",
            f"ERROR [ingress-gw] {CERT}",
            "WARN [ingress-gw] upstream payments.internal:443 marked unhealthy",
        ],
    )


def pool_change() -> Finding:
    return Finding(
        kind=FindingKind.CHANGED,
        count=2,
        template="max.poll.records = <*>",
        example="max.poll.records = 5000",
        first=_cite(7),
        last=_cite(49),
        since=_cite(49),
        changed="max.poll.records = 500 → max.poll.records = 5000",
        context_start=46,
        context=["ConsumerConfig values:", "\tgroup.id = fulfillment", "\tmax.poll.records = 5000"],
    )


def with_findings(*findings: Finding, name: str = "app.log") -> InputFile:
    file = upload(name)
    assert file.report is not None
    return file.model_copy(
        update={"report": file.report.model_copy(update={"findings": list(findings)})}
    )


def excerpt(text: str, line: int) -> RetrievedChunk:
    return RetrievedChunk(text=text, citation=_cite(line), score=0.5)


def test_findings_and_the_lines_around_them_come_first_whatever_the_caption() -> None:
    file = with_findings(expired_cert(), pool_change())
    caption = said("Full app log since this morning, sorry it's big")
    turn = TurnInput(messages=[caption], files=[file])

    prompt = render_prompt(
        PromptKind.INVESTIGATING,
        PromptContext(case=investigating_case(), turn=turn, excerpts=[excerpt("INFO boring", 5)]),
        clock=FakeClock(),
    )

    *_, excerpts, change_lines, cert_lines, newest = [m.content for m in prompt.messages]
    # Every finding in the newest input, as people see it.
    assert CERT in newest
    assert "ERROR ×40 [new partway through the file] first app.log:70001" in newest
    assert "max.poll.records = 500 → max.poll.records = 5000" in newest
    assert "Left out" not in newest
    # The lines around each, numbered; the top finding's last, next to the newest input, so a
    # window too small for everything drops the least decisive first.
    assert cert_lines.startswith('<data kind="log-lines" cite="app.log:69998-70002">')
    assert f"70001: ERROR [ingress-gw] {CERT}" in cert_lines
    assert "48: \tmax.poll.records = 5000" in change_lines
    assert "INFO boring" in excerpts  # retrieval still has its place, first to go


def test_what_does_not_fit_is_left_out_last_first_and_named() -> None:
    file = with_findings(expired_cert(), pool_change())
    excerpts = [excerpt("INFO " + "x" * 400, line) for line in range(1, 30)]
    brief = brief_evidence(
        investigating_case(), TurnInput(files=[file]), excerpts, budget_tokens=500
    )

    assert CERT in brief.uploads
    assert "max.poll.records = 5000" in brief.uploads
    assert brief.contexts
    assert brief.left_out, "the excerpts did not fit"
    assert brief.note().startswith("Left out for space")
    assert "the excerpt app.log:29" in brief.note()
    assert len(brief.uploads) + len(brief.excerpts) <= 500 * 4


def test_a_small_budget_keeps_the_findings_and_names_the_lines_it_could_not_quote() -> None:
    file = with_findings(expired_cert(), pool_change())

    brief = brief_evidence(investigating_case(), TurnInput(files=[file]), [], budget_tokens=150)

    assert CERT in brief.uploads
    assert "the lines around" in brief.note()


def test_lines_around_a_finding_can_be_cited() -> None:
    file = with_findings(expired_cert())

    brief = brief_evidence(investigating_case(), TurnInput(files=[file]), [])

    assert [c.citation.label() for c in brief.quoted] == ["app.log:69998-70002"]


def test_a_later_turn_still_reads_what_stood_out_in_earlier_files() -> None:
    case = investigating_case()
    file = with_findings(expired_cert())
    kept = kept_with_findings(file)
    case.uploaded_files.append(kept)

    brief = brief_evidence(case, TurnInput(messages=[said("anything else?")]), [])

    assert kept.findings[0].context == []  # the case keeps findings, not the lines around them
    assert "What stood out in files shared earlier:" in brief.earlier
    assert CERT in brief.earlier
