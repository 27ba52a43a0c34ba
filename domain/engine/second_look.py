"""A second look at a confident root cause before people see it: only ever lowers its confidence.

A root cause stated at 0.7 or more is checked by one more call (the fast tier) against what the
case holds and nothing else: its evidence (summary, source, key findings), the evidence this reply
adds, and what stood out in the files shared. The model breaks the root cause into the links of
its causal chain and names the evidence that shows each; the system then checks that every label
it names is one the case holds. A link nothing held shows lowers the confidence to the rubric's
"circumstantial" band (to "speculative" when no link is shown), never raises it, and is named in
the reply ("not shown yet: …"). A failed check leaves the root cause as the model gave it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pydantic import Field

from domain.base import DomainModel
from domain.engine.context import TurnContext
from domain.engine.prompting.briefing import fence
from domain.engine.prompting.prompts import fill, load_template
from domain.engine.schemas import (
    MAX_ANSWER_CHARS,
    EngineReply,
    InvestigationResponse,
    RootCauseConclusionUpdate,
)
from domain.engine.view import SecondLookNote
from domain.investigation.conclusions import ConfidenceLevel
from domain.investigation.evidence import Evidence
from domain.llm import ChatMessage, LLMPort, LLMReplyInvalidError, LLMUnavailableError, ModelTier
from domain.prompt_files import contract_hash, load_prompt

logger = logging.getLogger(__name__)

TEMPLATE = "second_look"
CHECK_FROM = 0.7
"""A root cause stated at this confidence or more is checked before it is shown."""
SOME_UNSHOWN_CAP = 0.6
"""At most this when a link is not shown yet: circumstantial evidence, notable gaps."""
NONE_SHOWN_CAP = 0.3
"""At most this when no link is shown: speculative."""
MAX_LINKS = 6
FINDINGS_PER_FILE = 5


class LinkCheck(DomainModel):
    """One link of the root cause's causal chain, checked against the held evidence."""

    claim: str = Field(max_length=200)
    """The link, as a short phrase in plain words."""
    evidence: list[str] = Field(max_length=10)
    """Labels of the held evidence that shows this link (ev_…, E1, F2…); empty when none does."""
    shown: bool
    """True only when a listed label shows this link itself."""


class SecondLookReply(DomainModel):
    """The second look's verdict on one root cause."""

    links: list[LinkCheck] = Field(min_length=1, max_length=MAX_LINKS)
    """The links of the causal chain, cause first, symptom last."""
    supported_confidence: float = Field(ge=0.0, le=1.0)
    """The confidence the held evidence alone supports, by the rubric."""


@dataclass(frozen=True)
class Held:
    """One thing the case holds, as the check sees it: its label and what it says."""

    label: str
    text: str


@dataclass(frozen=True)
class Checked:
    """The reply to apply (maybe with its root cause lowered) and what the check did."""

    reply: EngineReply
    note: SecondLookNote | None = None


def to_check(ctx: TurnContext, reply: EngineReply) -> RootCauseConclusionUpdate | None:
    """The root cause this reply states confidently and the case does not hold as it is."""
    if not isinstance(reply, InvestigationResponse):
        return None
    stated = reply.state_updates.root_cause_conclusion
    if stated is None or stated.confidence_score < CHECK_FROM:
        return None
    held = ctx.case.root_cause_conclusion
    if held and held.root_cause == stated.root_cause:
        # Restated as the case holds it, no more confident than it stands: already checked.
        return None if stated.confidence_score <= held.confidence_score else stated
    return stated


async def second_look(llm: LLMPort, ctx: TurnContext, reply: EngineReply) -> Checked:
    """Check a confident root cause against what the case holds; never fails the turn."""
    stated = to_check(ctx, reply) if llm.enabled else None
    if stated is None:
        return Checked(reply)
    assert isinstance(reply, InvestigationResponse)  # to_check found a root cause in it
    held = held_evidence(ctx, reply)
    try:
        verdict = await llm.structured(
            tier=ModelTier.FAST,
            messages=messages(stated, held),
            schema=SecondLookReply,
            template=TEMPLATE,
            template_hash=contract_hash_of(),
            case_id=ctx.case.case_id,
        )
    except (LLMUnavailableError, LLMReplyInvalidError) as error:
        logger.warning(
            "second look failed; the root cause stands as the model gave it",
            extra={"case_id": ctx.case.case_id, "error": type(error).__name__},
        )
        before = stated.confidence_score
        return Checked(reply, SecondLookNote(before=before, after=before, failed=True))
    return lowered(ctx, reply, stated, unshown(verdict, {h.label for h in held}), verdict)


def unshown(verdict: SecondLookReply, labels: set[str]) -> list[str]:
    """Links not shown yet: the model says so, or every label it names is one the case lacks."""
    return [
        link.claim
        for link in verdict.links
        if not (link.shown and labels.intersection(link.evidence))
    ]


def lowered_confidence(stated: float, verdict: SecondLookReply, missing: Sequence[str]) -> float:
    """The confidence after the check: lower when a link is not shown yet, never higher."""
    if not missing:
        return stated
    cap = NONE_SHOWN_CAP if len(missing) == len(verdict.links) else SOME_UNSHOWN_CAP
    return round(min(stated, cap, verdict.supported_confidence), 2)


def lowered(
    ctx: TurnContext,
    reply: InvestigationResponse,
    stated: RootCauseConclusionUpdate,
    missing: list[str],
    verdict: SecondLookReply,
) -> Checked:
    """The reply with its root cause lowered and the links named, when any is not shown yet."""
    before = stated.confidence_score
    after = lowered_confidence(before, verdict, missing)
    note = SecondLookNote(before=before, after=after, unshown=missing)
    if after == before:
        return Checked(reply, note)
    logger.info(
        "second look lowered a root cause",
        extra={"case_id": ctx.case.case_id, "before": before, "after": after},
    )
    gaps = [f"not shown yet: {claim}" for claim in missing]
    conclusion = stated.model_copy(
        update={
            "confidence_score": after,
            "missing_evidence": list(dict.fromkeys([*stated.missing_evidence, *gaps])),
        }
    )
    updates = reply.state_updates.model_copy(update={"root_cause_conclusion": conclusion})
    text = with_line(reply.agent_response, second_look_line(before, after, missing))
    return Checked(
        reply.model_copy(update={"agent_response": text, "state_updates": updates}), note
    )


def second_look_line(before: float, after: float, missing: Sequence[str]) -> str:
    """One short line for the reply: what is not shown yet, and the confidence it leaves."""
    level = ConfidenceLevel.from_score(after).value
    return (
        f"_Second look:_ not shown yet: {'; '.join(missing)}. "
        f"So I hold it at {after:.0%} ({level}) instead of {before:.0%}."
    )


def with_line(text: str, line: str) -> str:
    """``text`` and ``line`` below it, within what a thread message may say."""
    room = MAX_ANSWER_CHARS - len(line) - 2
    if room < 1:
        return line[:MAX_ANSWER_CHARS]
    body = text if len(text) <= room else text[: room - 1].rstrip() + "…"
    return f"{body}\n\n{line}"


# ------------------------------------------------------------------ what the check reads


def held_evidence(ctx: TurnContext, reply: InvestigationResponse) -> list[Held]:
    """What the case holds: its evidence, the evidence this reply adds, and files' findings."""
    files = {f.file_id: f.filename for f in ctx.case.uploaded_files}
    held = [
        Held(e.evidence_id, _evidence_text(e.summary, files.get(_file_of(e)), e.key_findings))
        for e in ctx.case.evidence
    ]
    for item in reply.state_updates.evidence_to_add:
        source = files.get(item.source_ref or "")
        held.append(Held(item.ref, _evidence_text(item.summary, source, item.key_findings)))
    number = 0
    for file in ctx.case.uploaded_files:
        for finding in file.findings[:FINDINGS_PER_FILE]:
            number += 1
            held.append(Held(f"F{number}", f"in {file.filename}: {finding.summary()}"))
    return held


def _file_of(evidence: Evidence) -> str:
    """The id of the file the evidence came from ('' for a message or a turn)."""
    kind, _, ref = evidence.content_ref.partition(":")
    return ref if kind == "file" else ""


def _evidence_text(summary: str, source: str | None, findings: Sequence[str]) -> str:
    parts = [summary]
    if source:
        parts.append(f"(from {source})")
    if findings:
        parts.append("key findings: " + "; ".join(findings))
    return " ".join(parts)


def messages(stated: RootCauseConclusionUpdate, held: Sequence[Held]) -> tuple[ChatMessage, ...]:
    """The check's prompt: the rules, then the root cause and the held evidence, quoted."""
    labels = {h.label for h in held}
    cites = [
        f"{ref} ({'held' if ref in labels else 'not held by the case'})"
        for ref in stated.evidence_basis
    ]
    claim = "\n".join(
        [
            f"Root cause (stated confidence {stated.confidence_score:.2f}): {stated.root_cause}",
            f"Mechanism: {stated.mechanism}",
            f"It cites: {', '.join(cites) or 'nothing'}",
        ]
    )
    body = "\n".join(f"{h.label}: {h.text}" for h in held) or "(the case holds no evidence yet)"
    user = "\n\n".join(
        [
            fence(claim, kind="root-cause", cite="root cause"),
            "Evidence the case holds:",
            fence(body, kind="case-evidence", cite="case"),
        ]
    )
    return (
        ChatMessage(role="system", content=system_prompt()),
        ChatMessage(role="user", content=user),
    )


def _rubric() -> str:
    """The rubric's bands from the turn prompts' rubric file, without its advice to the turn."""
    lines = load_template("confidence_rubric").splitlines()
    return "\n".join(line for line in lines if line.startswith("- "))


@cache
def system_prompt() -> str:
    """The check's instructions (the same for every case)."""
    values = {"max_links": str(MAX_LINKS), "confidence_rubric": _rubric()}
    return fill(load_template(TEMPLATE), values)


@cache
def contract_hash_of() -> str:
    """The second look's prompt contract: its template, the rubric and the reply schema."""
    files = [
        load_prompt("domain.engine.templates", name) for name in (TEMPLATE, "confidence_rubric")
    ]
    return contract_hash(files, SecondLookReply)
