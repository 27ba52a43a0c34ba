"""What a turn gives back, and the turn in progress that builds it.

``TurnResult`` is the new case (a copy) with the reply to render; ``TurnWork`` is one turn in
progress: the case as it was, the working copy and what happened so far. A model that failed
becomes one plain sentence (``fault_sentence``) and leaves the case as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.case import Case
from domain.engine.context import TurnContext
from domain.engine.present import ReplyParts, Seen, build_reply
from domain.engine.prompting.briefing import EvidenceBrief
from domain.engine.schemas import EngineReply
from domain.engine.view import DebugInfo, DocumentView, ReplyKind, TurnReply
from domain.knowledge import Citation, RetrievedChunk
from domain.lifecycle.decisions import AnswerResult
from domain.llm import LLMRateLimitedError, LLMRefusedError, LLMReplyInvalidError, LLMTimeoutError

FAULTS: dict[type[Exception], str] = {
    LLMTimeoutError: "The model did not answer in time, so nothing in the case changed; "
    "send your message again to retry.",
    LLMRateLimitedError: "The model provider is rate-limiting us and the retries ran out, so "
    "nothing in the case changed; try again in a minute.",
    LLMReplyInvalidError: "The model answered with something I could not use, twice, so nothing "
    "in the case changed; send your message again to retry.",
}
CUT_OFF = (
    "The model's answer was cut off at its output limit, twice, so nothing in the case changed; "
    "send your message again, or ask a narrower question."
)


def fault_sentence(error: Exception) -> str:
    """One plain sentence saying what went wrong at the model, and what to do."""
    if isinstance(error, LLMRefusedError):
        happened, todo = error.explain()
        return f"{happened[0].upper()}{happened[1:]}, so nothing in the case changed; {todo}."
    if isinstance(error, LLMReplyInvalidError) and error.cut_off:
        return CUT_OFF
    return next(text for kind, text in FAULTS.items() if isinstance(error, kind))


@dataclass(frozen=True)
class TurnResult:
    """The new case (a copy) and the reply to render."""

    case: Case
    reply: TurnReply
    decided: AnswerResult | None = None
    """A question the people answered this turn, by typing or by a click."""
    answer: EngineReply | None = None
    """The model's reply this turn was made from: applied again, not asked again, when the case
    changed under the turn and it is taken again on the newer case."""


def with_participants(case: Case, participants: Sequence[str]) -> Case:
    """``case`` itself when nobody new took part; else a copy with the newcomers."""
    joined = [p for p in participants if p not in case.participants and p != case.user_id]
    if not joined:
        return case
    copy = case.model_copy(deep=True)
    for person in joined:
        copy.add_participant(person)
    return copy


@dataclass
class TurnWork:
    """One turn in progress: the original case, the working copy, and what happened so far."""

    original: Case
    ctx: TurnContext
    before: Seen
    decided: AnswerResult | None = None
    documents: list[DocumentView] = field(default_factory=list)
    excerpts: list[RetrievedChunk] = field(default_factory=list)
    query: str = ""
    """What the knowledge was searched for this turn (empty: no search)."""
    brief: EvidenceBrief = field(default_factory=EvidenceBrief)
    """The evidence quoted to the model this turn: what it may cite."""

    def result(
        self,
        kind: ReplyKind,
        text: str,
        *,
        citations: Sequence[Citation] = (),
        debug: DebugInfo | None = None,
    ) -> TurnResult:
        """The working copy and its reply."""
        parts = ReplyParts(
            kind=kind,
            text=text,
            log=self.ctx.log,
            citations=citations,
            documents=self.documents,
            debug=debug or DebugInfo(),
        )
        reply = build_reply(self.ctx.case, self.before, parts)
        return TurnResult(self.ctx.case, reply, decided=self.decided)
