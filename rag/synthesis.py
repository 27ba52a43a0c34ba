"""The cheap model's two jobs here: make follow-ups self-contained, and answer from excerpts."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from domain.knowledge import RetrievedChunk
from domain.llm import ChatMessage, LLMPort, LLMReplyInvalidError, LLMUnavailableError, ModelTier
from domain.prompt_files import contract_hash, load_prompt
from rag.strategies import KBStrategy

logger = logging.getLogger(__name__)

PROMPTS = "rag.prompts"
"""Where the knowledge base's prompt files live."""
RECENT_TURNS = 3
MAX_ADDED_TERMS = 8
MAX_QUERY_CHARS = 500
_CONTEXT_CHARS = 400
_TERM = re.compile(r"[\w.-]*\w")
_REFERENCE = re.compile(
    r"(?i)\b(?:they|them|their|it|its|those|these|that|this|there|same|ones?|the above)\b"
)
_FILLER = frozenset(
    re.split(
        r"\s+",
        "about after again also and any are been before being but can did does doing each few "
        "for from had has have how into its just more most mostly not now off once only other "
        "our out over own same should some such than that the their them then there these they "
        "this those through too under until very was were what when where which while who why "
        "will with would you your yes show tell give find list please see start started entries "
        "lines found many much",
    )
)


def needs_context(question: str) -> bool:
    """Whether the question leans on earlier turns ("when did they start?")."""
    return bool(_REFERENCE.search(question)) or len(_content_terms(question)) < 2


def deterministic_rewrite(question: str, conversation: Sequence[str]) -> str:
    """Append the recent turns' key terms (files, levels, nouns) to a follow-up question."""
    if not conversation or not needs_context(question):
        return question
    present = {term.lower() for term in _content_terms(question)}
    added: list[str] = []
    for turn in reversed(list(conversation)[-RECENT_TURNS:]):
        for term in _content_terms(turn):
            if term.lower() not in present and len(added) < MAX_ADDED_TERMS:
                present.add(term.lower())
                added.append(term)
    return f"{question} {' '.join(added)}".strip() if added else question


def _content_terms(text: str) -> list[str]:
    terms = (term.strip(".-") for term in _TERM.findall(text))
    return [term for term in terms if len(term) >= 3 and term.lower() not in _FILLER]


async def rewrite_query(
    llm: LLMPort | None,
    question: str,
    conversation: Sequence[str],
    *,
    case_id: str | None = None,
) -> str:
    """A self-contained query: the LLM's rewrite when available, else the deterministic one."""
    if not conversation or not needs_context(question):
        return question
    if llm is not None and llm.enabled:
        rewritten = await _llm_rewrite(llm, question, conversation, case_id)
        if rewritten:
            return rewritten
    return deterministic_rewrite(question, conversation)


async def _llm_rewrite(
    llm: LLMPort, question: str, conversation: Sequence[str], case_id: str | None
) -> str | None:
    system = load_prompt(PROMPTS, "rewrite_query")
    request = load_prompt(PROMPTS, "rewrite_request")
    recent = "\n".join(f"- {turn[:_CONTEXT_CHARS]}" for turn in list(conversation)[-RECENT_TURNS:])
    messages = [
        ChatMessage(role="system", content=system.text),
        ChatMessage(
            role="user", content=request.text.format(conversation=recent, question=question)
        ),
    ]
    try:
        reply = await llm.text(
            tier=ModelTier.FAST,
            messages=messages,
            template=system.name,
            template_hash=contract_hash([system, request]),
            case_id=case_id,
        )
    except (LLMUnavailableError, LLMReplyInvalidError) as exc:
        logger.info(
            "query rewrite fell back", extra={"case_id": case_id, "error": type(exc).__name__}
        )
        return None
    line = reply.strip().splitlines()[0].strip() if reply.strip() else ""
    return line[:MAX_QUERY_CHARS] or None


async def synthesize(
    llm: LLMPort | None,
    strategy: KBStrategy,
    question: str,
    chunks: Sequence[RetrievedChunk],
    *,
    case_id: str | None = None,
) -> str | None:
    """An answer citing the chunks, or None without a usable LLM (the excerpts then answer)."""
    if llm is None or not llm.enabled or not chunks:
        return None
    system = load_prompt(PROMPTS, strategy.prompt)
    request = load_prompt(PROMPTS, "synthesis_request")
    messages = [
        ChatMessage(role="system", content=system.text),
        ChatMessage(role="user", content=_request(request.text, strategy, question, chunks)),
    ]
    try:
        reply = await llm.text(
            tier=ModelTier.FAST,
            messages=messages,
            template=system.name,
            template_hash=contract_hash([system, request]),
            case_id=case_id,
        )
    except (LLMUnavailableError, LLMReplyInvalidError) as exc:
        logger.info("synthesis skipped", extra={"case_id": case_id, "error": type(exc).__name__})
        return None
    return reply.strip() or None


def _request(
    template: str, strategy: KBStrategy, question: str, chunks: Sequence[RetrievedChunk]
) -> str:
    """The question and every excerpt under its citation header (evidence in time order)."""
    ordered = sorted(chunks, key=_time_order) if strategy.chronological else list(chunks)
    context = "\n---\n".join(
        f"{strategy.header(index, chunk)}\n{chunk.text}" for index, chunk in enumerate(ordered, 1)
    )
    return template.format(question=question, count=len(ordered), context=context)


def _time_order(chunk: RetrievedChunk) -> tuple[str, str, int]:
    cited = chunk.citation
    when = cited.timestamp.isoformat() if cited.timestamp else ""
    return (when, cited.source, cited.line_start or 0)
