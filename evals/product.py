"""What the product contributes without a model, measured per scenario.

Two figures need no model, so ``make eval`` prints them with or without one: whether the decisive
line of a scenario's key evidence (``decisive`` on a shared item) is among the top findings the
bot shows for that upload (the findings the real ingestion computes), and whether the runbook
that fits the problem (``runbook``) is among the top knowledge results the real knowledge service
returns for the problem statement confirmed in the run (runbooks from ``evals/runbooks``).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from domain.knowledge import KnowledgeBaseKind
from evals.base import EvalModel
from evals.knowledge import KNOWLEDGE_DIR
from evals.matching import compiled
from evals.scenario import Scenario
from evals.scripted.playbooks import consulting
from rag.chunking.decoding import UnsupportedUploadError
from rag.chunking.uploads import prepare_document
from rag.embeddings.embedder import Embedder, SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService, open_knowledge_service

logger = logging.getLogger(__name__)

TOP_FINDINGS = 5
TOP_RESULTS = 3
UPLOAD_LIMIT = 10 * 1024 * 1024
TEAM = "T_EVAL"


class ScenarioFigures(EvalModel):
    """One scenario: where its decisive line and its runbook came (1 is first; None: not found)."""

    scenario_id: str
    decisive_marked: bool = False
    decisive_rank: int | None = None
    """Its rank among the upload's findings."""
    runbook: str | None = None
    runbook_rank: int | None = None
    """Its first rank among the knowledge results for the confirmed problem."""

    @property
    def decisive_found(self) -> bool | None:
        """Among the top findings; None when the scenario marks no decisive line."""
        if not self.decisive_marked:
            return None
        return self.decisive_rank is not None and self.decisive_rank <= TOP_FINDINGS

    @property
    def runbook_found(self) -> bool | None:
        """Among the top results; None when no runbook fits the problem (or none was searched)."""
        if self.runbook is None:
            return None
        return self.runbook_rank is not None and self.runbook_rank <= TOP_RESULTS


class ProductFigures(EvalModel):
    """The figures that need no model, for every scenario of the run."""

    scenarios: list[ScenarioFigures] = Field(default_factory=list)
    runbooks_searched: bool = True
    """False when the knowledge service could not be opened (no embedding model)."""

    def _count(self, flags: Sequence[bool | None]) -> tuple[int, int]:
        marked = [flag for flag in flags if flag is not None]
        return sum(marked), len(marked)

    @property
    def decisive(self) -> tuple[int, int]:
        """(found among the top findings, scenarios with a decisive line marked)."""
        return self._count([s.decisive_found for s in self.scenarios])

    @property
    def runbooks(self) -> tuple[int, int]:
        """(found among the top results, scenarios with a fitting runbook)."""
        return self._count([s.runbook_found for s in self.scenarios])


def decisive_rank(scenario: Scenario) -> int | None:
    """The best rank of a decisive line among the findings of its upload, or None."""
    ranks: list[int] = []
    for item in scenario.shared:
        if item.decisive is None:
            continue
        name = item.file or f"{item.name}.txt"
        try:
            doc = prepare_document(
                name,
                scenario.content(item),
                max_bytes=UPLOAD_LIMIT,
                now=scenario.situation.started_at,
            )
        except UnsupportedUploadError:
            continue
        pattern = compiled(item.decisive)
        ranks += [
            rank
            for rank, finding in enumerate(doc.findings, start=1)
            if pattern.search(f"{finding.example}\n{finding.changed or ''}")
        ]
    return min(ranks, default=None)


def problem_statement(scenario: Scenario) -> str:
    """The problem statement the run confirms (the one the scripted consulting turn proposes)."""
    return consulting(scenario).state_updates.proposed_problem_statement or scenario.opening


def runbook_files(root: Path = KNOWLEDGE_DIR) -> list[tuple[str, str]]:
    """(title, markdown) of every bundled runbook, titled by its first heading."""
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.md")):
        text = path.read_text("utf-8")
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path.stem)
        found.append((title, text))
    return found


async def load_runbooks(service: KnowledgeService, runbooks: Sequence[tuple[str, str]]) -> None:
    """The runbooks in the global knowledge base."""
    for title, text in runbooks:
        await service.save_document(
            team_id=TEAM, kb=KnowledgeBaseKind.GLOBAL, scope_id=None, title=title, markdown=text
        )


async def runbook_rank(service: KnowledgeService, scenario: Scenario) -> int | None:
    """The first rank of the scenario's runbook among the results for its problem, or None."""
    result = await service.search_global(
        team_id=TEAM, query=problem_statement(scenario), limit=TOP_RESULTS
    )
    wanted = (scenario.runbook or "").casefold()
    titles = [chunk.citation.source.casefold() for chunk in result.chunks]
    return next((rank for rank, title in enumerate(titles, start=1) if title == wanted), None)


async def measure(
    scenarios: Sequence[Scenario], *, embedder: Embedder | None = None, search: bool = True
) -> ProductFigures:
    """Both figures for ``scenarios``; the runbooks only when ``search`` (it loads a model)."""
    figures = [
        ScenarioFigures(
            scenario_id=s.id,
            decisive_marked=any(i.decisive for i in s.shared),
            decisive_rank=decisive_rank(s),
            runbook=s.runbook if search else None,
        )
        for s in scenarios
    ]
    if not search or not any(s.runbook for s in scenarios):
        return ProductFigures(scenarios=figures, runbooks_searched=False)
    try:
        ranks = await _runbook_ranks(scenarios, embedder)
    except (OSError, ValueError) as exc:
        logger.warning("runbooks not searched", extra={"error": str(exc)})
        blank = [f.model_copy(update={"runbook": None}) for f in figures]
        return ProductFigures(scenarios=blank, runbooks_searched=False)
    ranked = [f.model_copy(update={"runbook_rank": ranks.get(f.scenario_id)}) for f in figures]
    return ProductFigures(scenarios=ranked)


async def _runbook_ranks(
    scenarios: Sequence[Scenario], embedder: Embedder | None
) -> dict[str, int | None]:
    with tempfile.TemporaryDirectory(prefix="fm-eval-runbooks-") as folder:
        service = await open_knowledge_service(
            lancedb_uri=str(Path(folder) / "lancedb"),
            embedding_model=None,
            llm=None,
            max_upload_bytes=UPLOAD_LIMIT,
            embedder=embedder or SentenceTransformerEmbedder(resolve_model_path(None)),
        )
        await load_runbooks(service, runbook_files())
        return {s.id: await runbook_rank(service, s) for s in scenarios if s.runbook}


def _mark(flag: bool | None, rank: int | None) -> str:
    if flag is None:
        return "—"
    return f"✅ {rank}" if flag else (f"❌ {rank}" if rank else "❌")


def product_lines(figures: ProductFigures | None) -> list[str]:
    """The figures as markdown: a summary line each, then one row per scenario."""
    if figures is None:
        return []
    found, marked = figures.decisive
    lines = [
        "",
        "## Without a model",
        "",
        f"Decisive evidence line among the upload's top {TOP_FINDINGS} findings: {found} of "
        f"{marked} scenarios that mark one.",
    ]
    if figures.runbooks_searched:
        hit, fitting = figures.runbooks
        lines.append(
            f"Fitting runbook among the top {TOP_RESULTS} knowledge results for the confirmed "
            f"problem: {hit} of {fitting} scenarios that have one."
        )
    else:
        lines.append("Runbooks: not searched in this run.")
    lines += [
        "",
        f"| Scenario | Decisive line in top {TOP_FINDINGS} findings (rank) "
        f"| Runbook in top {TOP_RESULTS} results (rank) |",
        "|---|---|---|",
    ]
    lines += [
        f"| {s.scenario_id} | {_mark(s.decisive_found, s.decisive_rank)} "
        f"| {_mark(s.runbook_found, s.runbook_rank)} |"
        for s in figures.scenarios
    ]
    return lines
