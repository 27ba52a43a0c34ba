"""The in-memory KnowledgePort the tests use: the one the evaluations run on (evals/knowledge.py).

Word-overlap search over stored excerpts (rarer words weigh more), saved documents kept as
``SavedDocument`` records, what was searched in ``queries``, failures on request.
"""

from __future__ import annotations

from evals.knowledge import MemoryKnowledge, SavedDocument

FakeKnowledge = MemoryKnowledge
"""The tests' name for it."""

__all__ = ["FakeKnowledge", "SavedDocument"]
