"""In-memory ports of the workflow features: a catalog search that filters labels like the index."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.workflows.catalog import Catalog, LabelFilters
from domain.workflows.ports import WorkflowMatch


@dataclass
class FakeWorkflowIndex:
    """Finds workflows whose signal type or title shares a word with the query; records calls."""

    catalog: Catalog
    searches: list[tuple[str, LabelFilters]] = field(default_factory=list)

    async def search(self, *, query: str, filters: LabelFilters, limit: int) -> list[WorkflowMatch]:
        """Workflows the filters allow, those naming the query's signal type first."""
        self.searches.append((query, filters))
        words = {w.lower() for w in query.split()}
        allowed = [
            w
            for w in self.catalog.latest()
            if all(w.labels.accepts(label, value) for label, value in filters.items())
        ]
        ranked = sorted(allowed, key=lambda w: w.labels.signal_type.lower() not in words)
        return [
            WorkflowMatch(workflow_id=w.workflow_id, version=w.version, score=1.0)
            for w in ranked[:limit]
        ]
