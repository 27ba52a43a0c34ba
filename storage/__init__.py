"""SQL storage adapters: the engine, migrations and one repository per domain port.

The names below are imported when first used: `fm db upgrade` and `fm doctor` need only the
migrations, and importing every repository (the ORM and the domain models) takes ~0.5 s.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.alerts import SqlAlertGroupRepository
    from storage.audit import SqlAuditRepository
    from storage.cases import SqlCaseRepository
    from storage.conversation import SqlMessageRepository
    from storage.files import SqlFileRepository
    from storage.inbox import SqlInboxRepository
    from storage.llm_calls import SqlLLMCallRepository
    from storage.remediation import SqlRemediationRepository
    from storage.repositories import Repositories, build_repositories
    from storage.scores import SqlScoreRepository

_HOMES = {
    "Repositories": "storage.repositories",
    "build_repositories": "storage.repositories",
    "SqlAlertGroupRepository": "storage.alerts",
    "SqlAuditRepository": "storage.audit",
    "SqlCaseRepository": "storage.cases",
    "SqlFileRepository": "storage.files",
    "SqlInboxRepository": "storage.inbox",
    "SqlLLMCallRepository": "storage.llm_calls",
    "SqlMessageRepository": "storage.conversation",
    "SqlRemediationRepository": "storage.remediation",
    "SqlScoreRepository": "storage.scores",
}


def __getattr__(name: str) -> object:
    """Import an exported name from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)


__all__ = [
    "Repositories",
    "SqlAlertGroupRepository",
    "SqlAuditRepository",
    "SqlCaseRepository",
    "SqlFileRepository",
    "SqlInboxRepository",
    "SqlLLMCallRepository",
    "SqlMessageRepository",
    "SqlRemediationRepository",
    "SqlScoreRepository",
    "build_repositories",
]
