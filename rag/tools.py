"""The three knowledge tools the agent sees; access control is enforced here, at the wrapper.

* Case evidence: only the case's own rows in its own workspace (and, when a `CaseAccess` is
  given, only for cases it confirms belong to that workspace).
* Personal runbooks: only the owner's rows; a different requester is refused.
* Global knowledge base: the workspace's rows plus installation-wide ones (team id ``"*"``,
  written by ``fm kb ingest``), never another workspace's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from domain.knowledge import KnowledgeBaseKind, KnowledgeResult, ToolStatus
from rag.qa import DocumentQA
from rag.store.filters import InvalidScopeError, Scope, check_id
from rag.strategies import CASE_EVIDENCE, GLOBAL_KB, PERSONAL_RUNBOOKS

INSTALLATION_TEAM = "*"
"""Team id of content ingested from the command line: it belongs to every workspace."""


class CaseAccess(Protocol):
    """Confirms that a case exists in a workspace (the case repository implements it)."""

    async def case_in_team(self, *, team_id: str, case_id: str) -> bool:
        """True when `case_id` is a case of workspace `team_id`."""
        ...


def refused(kb: KnowledgeBaseKind, query: str, reason: str) -> KnowledgeResult:
    """An access or validation failure, reported like any other tool error."""
    return KnowledgeResult(status=ToolStatus.ERROR, query=query, kb=kb, error=reason)


class CaseEvidenceTool:
    """answer_from_case_evidence: forensic answers from files uploaded into one case."""

    name = "answer_from_case_evidence"
    description = (
        "Answer factual questions about the files uploaded in this case (logs, configs, command "
        "output), citing file:line (time). Only this case's evidence is searched."
    )

    def __init__(self, qa: DocumentQA, case_access: CaseAccess | None = None) -> None:
        self._qa = qa
        self._case_access = case_access

    async def run(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        """Search the case's evidence, and nothing else."""
        try:
            scope = Scope((check_id(team_id, "workspace"),), "case", check_id(case_id, "case"))
        except InvalidScopeError as exc:
            return refused(KnowledgeBaseKind.CASE, query, str(exc))
        if self._case_access is not None and not await self._case_access.case_in_team(
            team_id=team_id, case_id=case_id
        ):
            return refused(KnowledgeBaseKind.CASE, query, "no such case in this workspace")
        return await self._qa.answer(
            CASE_EVIDENCE,
            scope,
            query,
            conversation=conversation,
            limit=limit,
            case_id=case_id,
        )


class PersonalRunbookTool:
    """answer_from_user_kb: procedural answers from one person's runbooks."""

    name = "answer_from_user_kb"
    description = (
        "Answer from the asking engineer's own runbooks and procedures, citing runbook title and "
        "section. Nobody else's runbooks are searched."
    )

    def __init__(self, qa: DocumentQA) -> None:
        self._qa = qa

    async def run(
        self,
        *,
        team_id: str,
        user_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
        requester_id: str | None = None,
    ) -> KnowledgeResult:
        """Search `user_id`'s runbooks; a `requester_id` other than the owner is refused."""
        if requester_id is not None and requester_id != user_id:
            return refused(KnowledgeBaseKind.PERSONAL, query, "runbooks are private to their owner")
        try:
            teams = (check_id(team_id, "workspace"), INSTALLATION_TEAM)
            scope = Scope(teams, "personal", check_id(user_id, "user"))
        except InvalidScopeError as exc:
            return refused(KnowledgeBaseKind.PERSONAL, query, str(exc))
        return await self._qa.answer(
            PERSONAL_RUNBOOKS, scope, query, conversation=conversation, limit=limit
        )


class GlobalKnowledgeTool:
    """answer_from_global_kb: educational answers from the shared knowledge base."""

    name = "answer_from_global_kb"
    description = (
        "Answer general troubleshooting questions from the workspace's shared knowledge base "
        "(articles, saved runbooks and case reports), citing article titles."
    )

    def __init__(self, qa: DocumentQA) -> None:
        self._qa = qa

    async def run(
        self, *, team_id: str, query: str, conversation: Sequence[str] = (), limit: int = 5
    ) -> KnowledgeResult:
        """Search this workspace's and the installation's global knowledge base."""
        try:
            scope = Scope((check_id(team_id, "workspace"), INSTALLATION_TEAM), "global", "")
        except InvalidScopeError as exc:
            return refused(KnowledgeBaseKind.GLOBAL, query, str(exc))
        return await self._qa.answer(
            GLOBAL_KB, scope, query, conversation=conversation, limit=limit
        )
