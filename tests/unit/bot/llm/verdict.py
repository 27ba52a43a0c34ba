"""A tiny structured reply and the call that asks for it, shared by the gateway's tests."""

from __future__ import annotations

from bot.llm.gateway import LiteLLMGateway
from domain.base import DomainModel
from domain.llm import ChatMessage, ModelTier


class Verdict(DomainModel):
    """A tiny reply schema."""

    answer: str
    """What the model concluded."""
    confidence: float


GOOD = Verdict(answer="pool exhausted", confidence=0.8)
MESSAGES = [
    ChatMessage(role="system", content="You are a test."),
    ChatMessage(role="user", content="What happened?"),
]


async def ask(kit_gateway: LiteLLMGateway, tier: ModelTier = ModelTier.MAIN) -> Verdict:
    return await kit_gateway.structured(
        tier=tier,
        messages=MESSAGES,
        schema=Verdict,
        template="test",
        template_hash="abc123",
        case_id="case_1",
    )
