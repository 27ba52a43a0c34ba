"""An alert's analysis in its thread: the RCA, strategies with Approve / Reject, decisions, runs."""

from __future__ import annotations

import json
from collections.abc import Sequence

from slack_sdk.models.blocks import Block

from bot.slack.ids import ActionId, StrategyValue, action_id
from bot.slack.render.case.reply import request_card
from bot.slack.render.markdown import to_mrkdwn
from bot.slack.render.message import (
    SlackMessage,
    actions,
    bullets,
    button,
    confirm_dialog,
    context,
    message,
    sections,
)
from bot.slack.render.text import code, code_block, escape, percent, shorten
from domain.engine.view import RequestCard
from domain.workflows.catalog import ParameterValue, Workflow
from domain.workflows.observed import ObservedData
from domain.workflows.parameters import filled_steps
from domain.workflows.planner import OutcomeKind, RcaOutcome
from domain.workflows.remediation import (
    ExecutionResult,
    ExecutionStatus,
    RemediationStrategy,
    StrategyStatus,
)

RISK_ICONS = {"low": "🟢", "medium": "🟠", "high": "🔴"}
MAX_PROBLEMS = 3
MAX_EXCERPT = 500
NO_CATALOG = "No workflow catalog is configured (FM_WORKFLOW_CATALOG_DIR), so none is offered."
FOOTERS = {
    OutcomeKind.STRATEGIES: "Nothing runs until someone working on this case approves a workflow.",
    OutcomeKind.NO_WORKFLOWS: "No workflow in the catalog matches {query} with filters {filters}.",
    OutcomeKind.NO_LLM: (
        "No language model is configured, so there is no root-cause analysis and no workflow to "
        "approve."
    ),
}


def rca_message(
    outcome: RcaOutcome,
    *,
    signal_severity: str,
    catalog: bool,
    observed: Sequence[ObservedData] = (),
) -> SlackMessage:
    """The analysis (or why there is none), and what happens next; first what the tools read."""
    blocks: list[Block] = [b for o in observed for b in context(observed_line(o))]
    analysis = _analysis(outcome, signal_severity)
    if analysis:
        blocks += sections(analysis)
    if outcome.note:
        blocks += sections(f"⚠️ {escape(outcome.note)}")
    blocks += _outcome_blocks(outcome, catalog=catalog)
    return message(blocks or sections(FOOTERS[OutcomeKind.NO_LLM]), text=_fallback(outcome))


def observed_line(observed: ObservedData) -> str:
    """One line: what a trusted tool read of the alert before the analysis."""
    expression = code(shorten(observed.expression, 120))
    return (
        f"📈 Read first: {escape(observed.label)} of {expression}: "
        f"{escape(observed.summary)} · {code(observed.citation)}"
    )


def _fallback(outcome: RcaOutcome) -> str:
    """The notification text: the analysis in one line, or why there is none."""
    source = outcome.reply or outcome.findings
    if source is None:
        return outcome.note or FOOTERS[OutcomeKind.NO_LLM]
    summary = f"Root-cause analysis ({source.rca_severity.value}): {source.analysis_summary}"
    return shorten(summary, 300)


def _analysis(outcome: RcaOutcome, signal_severity: str) -> str:
    source = outcome.reply or outcome.findings
    if source is None:
        return ""
    severity = source.rca_severity.value.upper()
    differs = (
        f" (the alert said {signal_severity})" if signal_severity != source.rca_severity else ""
    )
    lines = [
        f"*🔎 Root-cause analysis* · severity *{severity}*{differs}",
        f"*Summary:* {to_mrkdwn(source.analysis_summary)}",
        f"*Root cause:* {to_mrkdwn(source.root_cause_assessment)}",
    ]
    findings = outcome.findings
    if findings is not None and findings.contributing_factors:
        lines.append(
            "*Contributing:*\n" + bullets(escape(f) for f in findings.contributing_factors)
        )
    if findings is not None and findings.evidence_to_confirm:
        checks = bullets(escape(e) for e in findings.evidence_to_confirm)
        lines.append("*To confirm it:*\n" + checks)
    if outcome.reply is not None and outcome.reply.warnings:
        lines.append("*Warnings:*\n" + bullets(escape(w) for w in outcome.reply.warnings))
    return "\n".join(lines)


def _outcome_blocks(outcome: RcaOutcome, *, catalog: bool) -> list[Block]:
    kind = outcome.kind
    if kind is OutcomeKind.RCA_ONLY and outcome.problems:
        shown = [escape(p) for p in outcome.problems[:MAX_PROBLEMS]]
        more = len(outcome.problems) - len(shown)
        text = (
            "⚠️ *No workflow offered:* the model's choice did not pass validation (logged):\n"
            + bullets(shown)
            + (f"\n…and {more} more" if more > 0 else "")
        )
        return sections(text)
    if kind in (OutcomeKind.NO_WORKFLOWS, OutcomeKind.NO_LLM) and not catalog:
        return context(NO_CATALOG)
    if kind is OutcomeKind.NO_LLM and outcome.offered:
        listing = bullets(f"{escape(w.title)} ({code(w.key)})" for w in outcome.offered)
        return [
            *context(FOOTERS[kind]),
            *sections(f"*Catalog workflows for {code(outcome.query)}:*\n{listing}"),
        ]
    footer = FOOTERS.get(kind)
    if footer is None:
        return []
    return context(footer.format(query=code(outcome.query), filters=outcome.filters.describe()))


def analysis_record(outcome: RcaOutcome, strategies: list[RemediationStrategy]) -> str:
    """The analysis in plain words, as the conversation the next turns' model reads."""
    source = outcome.reply or outcome.findings
    if source is None:
        return _fallback(outcome)
    lines = [
        f"Root-cause analysis of the alert (severity {source.rca_severity.value}).",
        f"Summary: {source.analysis_summary}",
        f"Root cause: {source.root_cause_assessment}",
    ]
    lines += [
        f"Offered for approval: {s.title} ({s.workflow_id}@{s.version}), parameters "
        f"{json.dumps(s.parameters)}, confidence {s.confidence:.2f}, risk {s.estimated_risk.value}."
        for s in strategies
    ]
    if outcome.problems:
        lines.append("No workflow offered: the choice failed validation.")
    return "\n".join(lines)


def strategy_message(
    strategy: RemediationStrategy, workflow: Workflow, *, total: int
) -> SlackMessage:
    """One strategy with what it would run, and its Approve / Reject buttons."""
    value = StrategyValue(case_id=strategy.case_id, strategy_id=strategy.strategy_id).dump()
    dialog = confirm_dialog(
        "Approve this workflow?",
        f"{workflow.title} will be handed to the executor with the parameters shown.",
        yes="Approve",
    )
    buttons = [
        button(
            "✅ Approve",
            action_id=action_id(ActionId.APPROVE, strategy.strategy_id),
            value=value,
            style="primary",
            confirm=dialog,
        ),
        button(
            "❌ Reject", action_id=action_id(ActionId.REJECT, strategy.strategy_id), value=value
        ),
    ]
    blocks = [*sections(_strategy_text(strategy, workflow, total=total)), *actions(buttons)]
    return message(blocks, text=f"Strategy {strategy.rank}: {workflow.title}")


def decided_strategy_message(strategy: RemediationStrategy, workflow: Workflow) -> SlackMessage:
    """The strategy once decided: who decided what, no buttons any more, and no steps: an
    approved one's are in the message saying what the executor did (one copy, where people act);
    the others' are not to be run."""
    note = _decision_note(strategy)
    text = f"{note}\n{_strategy_text(strategy, workflow, total=0, steps=False)}"
    return message(sections(text), text=note)


def undecided_strategy_message(
    strategy: RemediationStrategy, workflow: Workflow, *, status: str
) -> SlackMessage:
    """A strategy nobody decided before the case finished (``status``: "resolved"): no buttons,
    no steps, since nothing will run."""
    note = f"⏹️ Not decided before the case was {status}."
    text = f"{note}\n{_strategy_text(strategy, workflow, total=0, steps=False)}"
    return message(sections(text), text=note)


def execution_message(result: ExecutionResult, workflow: Workflow) -> SlackMessage:
    """What the executor did, and the steps: the one copy in the thread (to run, or as sent)."""
    lines = [_execution_headline(result, workflow)]
    if result.response_excerpt:
        lines.append(code_block([shorten(result.response_excerpt, MAX_EXCERPT)]))
    if result.steps:
        sent = result.status is ExecutionStatus.ACCEPTED
        lines.append(
            f"*{'Steps sent' if sent else 'Steps, in order'}:*\n" + code_block(result.steps)
        )
    return message(sections("\n".join(lines)), text=_execution_headline(result, workflow))


def ran_and_ask_message(
    result: ExecutionResult, workflow: Workflow, card: RequestCard, *, case_id: str
) -> SlackMessage:
    """What the executor did, then the evidence request asking whether it worked (the card says
    it once, as the request stands: answered, it has no button): one message for the click."""
    after = execution_message(result, workflow)
    blocks = request_card(card, case_id=case_id)
    return message([*after.blocks, *blocks], text=f"{after.text}\n{card.label}")


def _strategy_text(
    strategy: RemediationStrategy, workflow: Workflow, *, total: int, steps: bool = True
) -> str:
    risk = strategy.estimated_risk.value
    numbering = f"{strategy.rank}/{total}. " if total else ""
    lines = [
        f"*{numbering}{escape(workflow.title)}* {code(workflow.key)}",
        f"Confidence *{percent(strategy.confidence)}* · risk {RISK_ICONS[risk]} *{risk}*"
        + (
            f" · about {escape(workflow.estimated_duration)}" if workflow.estimated_duration else ""
        ),
        f"_{escape(strategy.rationale)}_",
    ]
    if strategy.parameters:
        lines.append("*Parameters:* " + _parameters(strategy.parameters))
    if steps:
        lines.append("*Runs:*\n" + code_block(filled_steps(workflow, strategy.parameters)))
    return "\n".join(lines)


def _parameters(values: dict[str, ParameterValue]) -> str:
    return " · ".join(f"{code(name)} = {code(str(value))}" for name, value in values.items())


def _decision_note(strategy: RemediationStrategy) -> str:
    by = f"<@{strategy.decided_by}>" if strategy.decided_by else "someone"
    if strategy.status is StrategyStatus.REJECTED:
        return f"❌ Rejected by {by}."
    if strategy.status is StrategyStatus.SUPERSEDED:
        return "⏭️ Not needed: another workflow of this analysis was approved."
    return f"✅ Approved by {by}."


def _execution_headline(result: ExecutionResult, workflow: Workflow) -> str:
    title = escape(workflow.title)
    if result.status is ExecutionStatus.HANDED_OVER:
        return f"🧑‍🔧 *{title}* is approved. No automation is configured, so please run it by hand."
    if result.status is ExecutionStatus.ACCEPTED:
        return f"🚀 *{title}* was sent to the automation endpoint: {escape(result.summary)}."
    return f"⚠️ *{title}* did not run: {escape(result.summary)}. Nothing is known to have changed."
