"""What model calls cost, and the budgets that stop a bad day from spending without limit.

A case has a cap and a workspace a daily budget, each in money (where the price of the model is
known) and in tokens (for local models, whose calls cost nothing but time). The rules are pure:
the ledger sums what was spent (`SpendLedger`), `breached` says which limit a spend reached, and
the sentences say it to people.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Protocol

from pydantic import AwareDatetime, Field

from domain.base import DomainModel
from domain.llm import LLMUnavailableError


class LLMSpend(DomainModel):
    """The model calls of a case or of a day, summed from their records."""

    calls: int = Field(default=0, ge=0)
    tokens: int = Field(default=0, ge=0)
    """Prompt and completion tokens, as the providers reported them."""
    cost_usd: float | None = None
    """Money spent, where litellm knew the price of every priced call; None when none was."""
    unpriced_calls: int = Field(default=0, ge=0)
    """Calls whose price litellm did not know (local models, new names)."""

    def short(self) -> str:
        """``3 model calls · 4.2k tokens · $0.012`` (the summary's footer)."""
        calls = "1 model call" if self.calls == 1 else f"{self.calls} model calls"
        parts = [calls, f"{_count(self.tokens)} tokens"]
        if self.cost_usd is not None:
            parts.append(money(self.cost_usd))
        return " · ".join(parts)

    def sentence(self) -> str:
        """What an investigation cost, in one sentence (status, report, App Home)."""
        if not self.calls:
            return "No model calls."
        text = self.short()
        if self.cost_usd is None:
            return f"{text}; no price is known for the model."
        if self.unpriced_calls:
            calls = "1 call" if self.unpriced_calls == 1 else f"{self.unpriced_calls} calls"
            return f"{text}, not counting {calls} of a model without a price."
        return f"{text}."


def report_section(spend: LLMSpend) -> str:
    """The case report's section on what the investigation cost the model (markdown)."""
    return f"## Model use\n- {spend.sentence()}\n"


class BudgetScope(StrEnum):
    """Which budget a spend reached."""

    CASE = "case"
    DAY = "day"


class BudgetLimits(DomainModel):
    """The configured limits; None means no limit of that kind."""

    day_usd: float | None = Field(default=None, gt=0)
    day_tokens: int | None = Field(default=None, gt=0)
    case_usd: float | None = Field(default=None, gt=0)
    case_tokens: int | None = Field(default=None, gt=0)

    @property
    def any(self) -> bool:
        """Whether any budget is set."""
        return any(
            limit is not None
            for limit in (self.day_usd, self.day_tokens, self.case_usd, self.case_tokens)
        )

    @property
    def has_day(self) -> bool:
        """Whether the workspace has a daily budget."""
        return self.day_usd is not None or self.day_tokens is not None

    @property
    def has_case(self) -> bool:
        """Whether a case has a cap."""
        return self.case_usd is not None or self.case_tokens is not None


class Breach(DomainModel):
    """A budget that was reached: which, its limit and what was spent, as people read them."""

    scope: BudgetScope
    limit: str
    """``$5.00`` or ``200k tokens``."""
    spent: str
    resets_at: AwareDatetime | None = None
    """When the daily budget starts again (the next UTC midnight); None for a case's cap."""

    def sentence(self) -> str:
        """One sentence for the thread: what was reached and what still works."""
        if self.scope is BudgetScope.DAY:
            assert self.resets_at is not None
            return (
                f"Today's model budget of {self.limit} is used up ({self.spent}), so this is a "
                f"plain answer without the model until {self.resets_at:%H:%M} UTC; files, the "
                "knowledge base and the buttons still work."
            )
        return (
            f"This case has reached its model budget of {self.limit} ({self.spent}), so it goes "
            "on without the model; files, the knowledge base and the buttons still work."
        )

    def channel_notice(self, *, case_label: str | None = None) -> str:
        """The one message the alert channel gets when a budget is reached."""
        if self.scope is BudgetScope.DAY:
            assert self.resets_at is not None
            return (
                f"⚠️ Today's model budget of {self.limit} is used up ({self.spent}): "
                f"FaultMaven answers without the model until {self.resets_at:%H:%M} UTC."
            )
        name = case_label or "A case"
        return (
            f"⚠️ {name} reached its model budget of {self.limit} ({self.spent}) and goes on "
            "without the model."
        )


class LLMBudgetExceededError(LLMUnavailableError):
    """No call was made: a budget is used up; the case goes on in no-model mode."""

    def __init__(self, breach: Breach) -> None:
        super().__init__(breach.sentence())
        self.breach = breach


def breached(
    limits: BudgetLimits, *, case: LLMSpend | None, day: LLMSpend, now: datetime
) -> Breach | None:
    """The first budget ``case`` or ``day`` has reached (the day's first), or None."""
    found = _reached(limits.day_usd, limits.day_tokens, day)
    if found is not None:
        limit, spent = found
        return Breach(scope=BudgetScope.DAY, limit=limit, spent=spent, resets_at=next_day(now))
    if case is None:
        return None
    found = _reached(limits.case_usd, limits.case_tokens, case)
    if found is not None:
        limit, spent = found
        return Breach(scope=BudgetScope.CASE, limit=limit, spent=spent)
    return None


def _reached(usd: float | None, tokens: int | None, spend: LLMSpend) -> tuple[str, str] | None:
    if usd is not None and spend.cost_usd is not None and spend.cost_usd >= usd:
        return money(usd), f"{money(spend.cost_usd)} spent"
    if tokens is not None and spend.tokens >= tokens:
        return f"{_count(tokens)} tokens", f"{_count(spend.tokens)} used"
    return None


def day_of(now: datetime) -> tuple[datetime, datetime]:
    """The UTC day ``now`` falls in: its first moment and the next day's."""
    utc = now.astimezone(UTC)
    first = datetime(utc.year, utc.month, utc.day, tzinfo=UTC)
    return first, first + timedelta(days=1)


def next_day(now: datetime) -> datetime:
    """When the daily budget starts again."""
    return day_of(now)[1]


def money(usd: float) -> str:
    """``$0.012``, ``$1.25``, ``$120``: enough digits to tell small sums apart."""
    if usd >= 100:
        return f"${usd:,.0f}"
    if usd >= 1:
        return f"${usd:.2f}"
    if usd == 0:
        return "$0"
    return f"${usd:.3g}" if usd >= 0.001 else "<$0.001"


def _count(tokens: int) -> str:
    """``950``, ``4.2k``, ``1.3M``."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1000:
        return f"{tokens / 1000:.1f}k"
    return str(tokens)


class SpendLedger(Protocol):
    """Sums of the recorded model calls (the ``llm_calls`` table in production)."""

    async def for_case(self, case_id: str) -> LLMSpend:
        """What a case's calls cost."""
        ...

    async def for_team(self, team_id: str, *, since: datetime, until: datetime) -> LLMSpend:
        """What a workspace's calls cost between two moments (calls of no case included)."""
        ...
