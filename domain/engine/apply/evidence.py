"""Applying evidence: new evidence with system-inferred fields, requests, and the classification."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from domain.engine.context import TurnContext
from domain.engine.schemas import MAX_REQUESTS_PER_TURN, EvidenceRequestToAdd, EvidenceToAdd
from domain.investigation.evidence import (
    Evidence,
    EvidenceCategory,
    EvidenceClassification,
    EvidenceForm,
    EvidenceSourceType,
    UploadedFile,
    infer_evidence_category,
)
from domain.investigation.evidence_requests import (
    EvidenceRequest,
    apply_classification,
    mark_obsolete,
    open_requests,
)
from domain.investigation.progress import InvestigationProgress

_SUFFIX_SOURCES: dict[str, EvidenceSourceType] = {
    **dict.fromkeys((".log", ".out", ".err", ".txt"), EvidenceSourceType.LOG_FILE),
    **dict.fromkeys(
        (".yaml", ".yml", ".json", ".conf", ".cfg", ".ini", ".toml", ".env", ".properties"),
        EvidenceSourceType.CONFIG_FILE,
    ),
    **dict.fromkeys((".csv", ".prom", ".tsv"), EvidenceSourceType.METRICS_DATA),
    ".sql": EvidenceSourceType.DATABASE_QUERY,
    **dict.fromkeys(
        (".py", ".java", ".go", ".js", ".ts", ".rb", ".rs", ".diff", ".patch"),
        EvidenceSourceType.CODE_REVIEW,
    ),
    ".har": EvidenceSourceType.API_RESPONSE,
}
_PURPOSE = {
    EvidenceCategory.SYMPTOM_EVIDENCE: "problem verification (symptom, scope, timeline, changes)",
    EvidenceCategory.RESOLUTION_EVIDENCE: "solution verification",
    EvidenceCategory.OTHER: "context",
}


def detect_source_type(file: UploadedFile) -> EvidenceSourceType:
    """Where evidence from this file came from, judged by its type and name."""
    if file.content_type.startswith("image/"):
        return EvidenceSourceType.SCREENSHOT
    return _SUFFIX_SOURCES.get(
        PurePosixPath(file.filename.lower()).suffix, EvidenceSourceType.OTHER
    )


def message_source_type(text: str) -> EvidenceSourceType:
    """Pasted output (a code block) is command output; other typed text is a person's report."""
    return EvidenceSourceType.COMMAND_OUTPUT if "```" in text else EvidenceSourceType.USER_REPORT


def new_evidence(
    ctx: TurnContext,
    *,
    summary: str,
    source_ref: str | None,
    progress: InvestigationProgress,
    tests_hypothesis_id: str | None = None,
) -> Evidence:
    """Evidence with every system field set: id, category, source, time, collector, turn."""
    category = infer_evidence_category(tests_hypothesis_id=tests_hypothesis_id, progress=progress)
    content_ref, form, source_type = _source(ctx, source_ref)
    purpose = f"tests {tests_hypothesis_id}" if tests_hypothesis_id else _PURPOSE.get(category, "")
    evidence = Evidence(
        category=category,
        primary_purpose=purpose,
        summary=summary[:500],
        content_ref=content_ref,
        source_type=source_type,
        form=form,
        tests_hypothesis_id=tests_hypothesis_id,
        collected_at=ctx.now,
        collected_by=ctx.actor,
        collected_at_turn=ctx.case.current_turn,
    )
    ctx.case.evidence.append(evidence)
    return evidence


def add_evidence(
    ctx: TurnContext, items: Sequence[EvidenceToAdd], *, progress: InvestigationProgress
) -> list[Evidence]:
    """Add the model's evidence; categories come from the progress before this turn's milestones."""
    added: list[Evidence] = []
    for item in items:
        hypothesis_id = ctx.hypothesis_id(item.tests_hypothesis_id)
        if item.tests_hypothesis_id and hypothesis_id is None:
            ctx.ignore(f"evidence tests unknown hypothesis {item.tests_hypothesis_id}")
        evidence = new_evidence(
            ctx,
            summary=ctx.log.safety.text(item.summary),
            source_ref=item.source_ref,
            progress=progress,
            tests_hypothesis_id=hypothesis_id,
        )
        evidence.analysis = ctx.log.safety.optional_text(item.analysis, shown=False)
        evidence.stance = item.stance if hypothesis_id else None
        evidence.key_findings = ctx.log.safety.texts(item.key_findings, shown=False)
        ctx.log.evidence_refs[item.ref] = evidence.evidence_id
        added.append(evidence)
    return added


def _source(ctx: TurnContext, ref: str | None) -> tuple[str, EvidenceForm, EvidenceSourceType]:
    files = {f.file.file_id: f.file for f in ctx.turn.files}
    files.update({f.file_id: f for f in ctx.case.uploaded_files})
    messages = {m.ts: m for m in ctx.turn.messages}
    if ref is not None and ref not in files and ref not in messages:
        ctx.ignore(f"evidence source {ref} is not an input of this turn")
        ref = None
    if ref is None:
        ref = _default_ref(ctx)
    if ref in files:
        return f"file:{ref}", EvidenceForm.DOCUMENT, detect_source_type(files[ref])
    if ref in messages:
        return f"msg:{ref}", EvidenceForm.USER_INPUT, message_source_type(messages[ref].text)
    return f"turn:{ctx.case.current_turn}", EvidenceForm.USER_INPUT, EvidenceSourceType.OTHER


def _default_ref(ctx: TurnContext) -> str | None:
    if len(ctx.turn.files) == 1 and not ctx.turn.text:
        return ctx.turn.files[0].file.file_id
    if ctx.turn.messages:
        return ctx.turn.messages[-1].ts
    return None


def add_requests(ctx: TurnContext, items: Sequence[EvidenceRequestToAdd]) -> list[EvidenceRequest]:
    """New evidence requests with safe guidance; an open request is never asked twice."""
    open_labels = {r.label.casefold() for r in open_requests(ctx.case.evidence_requests)}
    added: list[EvidenceRequest] = []
    for item in items[:MAX_REQUESTS_PER_TURN]:
        if item.label.casefold() in open_labels:
            ctx.ignore(f"evidence request '{item.label}' repeats an open request")
            continue
        mark = ctx.log.safety.mark()
        request = EvidenceRequest(
            label=ctx.log.safety.text(item.label)[:100],
            description=ctx.log.safety.text(item.description)[:500],
            category=item.category,
            guidance=ctx.log.safety.guidance(item.guidance),
            criticality=item.criticality,
            created_at_turn=ctx.case.current_turn,
        )
        request.withheld_commands = ctx.log.safety.withheld_since(mark)
        ctx.case.evidence_requests.append(request)
        open_labels.add(item.label.casefold())
        added.append(request)
    return added


def obsolete_requests(ctx: TurnContext, ids: Sequence[str]) -> None:
    """Requests the investigation moved past."""
    known = [i for i in ids if ctx.case.find_request(i) is not None]
    for unknown in sorted(set(ids) - set(known)):
        ctx.ignore(f"unknown evidence request {unknown} marked obsolete")
    mark_obsolete(ctx.case.evidence_requests, known, turn=ctx.case.current_turn)


def classify(
    ctx: TurnContext, classification: EvidenceClassification | None, evidence: Sequence[Evidence]
) -> None:
    """Update requests from the newest input's classification; note it on the new evidence."""
    if classification is None:
        return
    form = EvidenceForm.DOCUMENT if ctx.turn.files else EvidenceForm.USER_INPUT
    classification = classification.model_copy(update={"form": form})
    unknown = apply_classification(
        ctx.case.evidence_requests,
        classification,
        turn=ctx.case.current_turn,
        blocked_reason=ctx.turn.text or None,
    )
    for request_id in unknown:
        ctx.ignore(f"classification matched unknown evidence request {request_id}")
    matched = [r for r in dict.fromkeys(classification.matched_request_ids) if r not in unknown]
    for item in evidence:
        item.classification = classification
        item.addresses_requests = list(matched)
        item.fulfills_request_id = matched[0] if len(matched) == 1 else None
