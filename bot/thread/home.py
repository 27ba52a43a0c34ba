"""A person's App Home, drawn from what the home service gathered and published.

The service gathers the page as data (`HomePage`: the person's open cases and what each cost,
recent scores, calibration, the knowledge base's size, today's model spend); this adds the links
to the threads and the scorings' messages, draws the tab and publishes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.slack.render.commands import CaseLink
from bot.slack.render.views import HomeModel, ScoreLine, home_view
from bot.thread.replies import Costed
from bot.thread.scoring import Scored, linked
from bot.thread.surface import ChatSurface
from domain.budget import LLMSpend
from domain.outcomes import CalibrationSummary


@dataclass(frozen=True)
class HomePage:
    """What one person's App Home shows."""

    cases: Sequence[Costed]
    """Their open cases, each with what the model cost it."""
    scores: Sequence[Scored]
    """The workspace's recent scores."""
    knowledge_chunks: int | None
    calibration: CalibrationSummary | None = None
    """Recent outcomes' calibration (no section when None)."""
    calibration_last: int = 0
    spend_today: LLMSpend | None = None
    """What the model cost the workspace today (no line when None)."""


class HomeTab:
    """Publishes App Home tabs."""

    def __init__(self, surface: ChatSurface) -> None:
        self._surface = surface

    async def publish(self, user: str, page: HomePage) -> None:
        """Show ``page`` as ``user``'s App Home, with links to the threads it names."""
        cases = []
        for item in page.cases:
            case = item.case
            link = await self._surface.permalink(channel=case.channel_id, ts=case.thread_ts)
            cases.append(CaseLink(case, link, item.spend))
        scores = []
        for scored in page.scores:
            found = await linked(self._surface, scored)
            scores.append(ScoreLine(found.label, found.score.total_score, found.link))
        model = HomeModel(
            cases=cases,
            scores=scores,
            calibration=page.calibration,
            calibration_last=page.calibration_last,
            knowledge_chunks=page.knowledge_chunks,
            spend_today=page.spend_today,
        )
        await self._surface.publish_home(user=user, view=home_view(model))
