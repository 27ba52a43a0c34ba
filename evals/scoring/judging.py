"""The scoring judge (domain/scoring) over a finished evaluation case: optional, it costs calls."""

from __future__ import annotations

from domain.errors import DomainError
from domain.llm import LLMPort, LLMReplyInvalidError, LLMUnavailableError, ModelTier
from domain.scoring.extract import extract_score
from domain.scoring.facts import compute_facts
from domain.scoring.judge import SCORE_TEMPLATE, current_criteria
from domain.scoring.transcript import CaseMaterial
from evals.base import EvalModel
from evals.session import Session


class JudgeOutcome(EvalModel):
    """The judge's total (0-100), or why there is none, and the criteria it judged by."""

    total: int | None = None
    error: str | None = None
    criteria_hash: str


async def judge_session(llm: LLMPort | None, session: Session) -> JudgeOutcome:
    """The judge's first turn (the evaluation ending in the total) over the session's case."""
    criteria = current_criteria()
    if llm is None or not llm.enabled:
        return JudgeOutcome(error="no judge model", criteria_hash=criteria.hash)
    material = CaseMaterial(session.case, session.history, ())
    messages = criteria.score_turn(material, compute_facts(session.case))
    try:
        reply = await llm.text(
            tier=ModelTier.JUDGE,
            messages=messages,
            template=SCORE_TEMPLATE,
            template_hash=criteria.hash,
            case_id=session.case.case_id,
        )
        total = extract_score(reply).total
    except (LLMUnavailableError, LLMReplyInvalidError, DomainError) as error:
        return JudgeOutcome(error=type(error).__name__, criteria_hash=criteria.hash)
    return JudgeOutcome(total=total, criteria_hash=criteria.hash)
