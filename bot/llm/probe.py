"""What `fm doctor --deep` asks each model: the smallest structured reply, and how it went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bot.llm.modes import Mode
from domain.llm import ChatMessage


class DoctorPing(BaseModel):
    """The smallest structured reply: proves a model answers in its structured mode."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok"]
    """Always "ok"."""


PING = [
    ChatMessage(role="system", content="You check that the model answers with structured JSON."),
    ChatMessage(role="user", content='Reply with status "ok".'),
]


@dataclass(frozen=True)
class Probe:
    """One model's answer to `fm doctor --deep`: its mode, how long it took, or what failed."""

    model: str
    mode: Mode
    latency_ms: int
    error: Exception | None = None
