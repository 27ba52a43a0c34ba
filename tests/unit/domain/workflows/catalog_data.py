"""The test catalog (`tests/data/workflows/`), loaded once, and replies built against it."""

from __future__ import annotations

from functools import cache
from typing import Any

from bot.adapters.catalog_files import load_catalog
from domain.workflows.catalog import Catalog, Workflow
from tests.paths import WORKFLOWS

RESTART = "restart-crashlooping-deployment"
ROLLBACK = "rollback-deployment"
HPA = "raise-hpa-min-replicas"
MEMORY = "increase-memory-limit"
DISK = "clean-node-disk-space"
DRAIN = "cordon-drain-node"


@cache
def catalog() -> Catalog:
    """Every workflow of the test catalog."""
    return load_catalog(WORKFLOWS)


def workflow(workflow_id: str, version: str | None = None) -> Workflow:
    """One workflow of the test catalog."""
    found = catalog().get(workflow_id, version)
    assert found is not None
    return found


def strategy(base: str = RESTART, **changes: Any) -> dict[str, Any]:
    """A strategy for workflow ``base`` that passes every rule, with ``changes`` applied.

    ``parameters`` may be given as a ``{NAME: value}`` dict; it is sent as the reply schema's list
    of name/value pairs.
    """
    data: dict[str, Any] = {
        "workflow_id": base,
        "version": workflow(base).version,
        "confidence": 0.82,
        "rationale": "The container exits on start after a dependency blip; a restart clears it.",
        "estimated_risk": "low",
        "parameters": PARAMETERS[base],
    }
    data.update(changes)
    if isinstance(data["parameters"], dict):
        data["parameters"] = [{"name": k, "value": v} for k, v in data["parameters"].items()]
    return data


PARAMETERS: dict[str, dict[str, Any]] = {
    RESTART: {"TARGET_NAMESPACE": "payments", "TARGET_DEPLOYMENT": "payments-api"},
    ROLLBACK: {"TARGET_NAMESPACE": "payments", "TARGET_DEPLOYMENT": "payments-api"},
    HPA: {
        "TARGET_NAMESPACE": "payments",
        "TARGET_HPA": "payments-api",
        "MIN_REPLICAS": 6,
        "MAX_REPLICAS": 12,
    },
    MEMORY: {
        "TARGET_NAMESPACE": "payments",
        "TARGET_DEPLOYMENT": "payments-api",
        "TARGET_CONTAINER": "api",
        "MEMORY_LIMIT": "1Gi",
    },
    DISK: {"TARGET_NODE": "worker-3", "JOURNAL_MAX_SIZE": "500M", "LOG_RETENTION_DAYS": 7},
    DRAIN: {"TARGET_NODE": "worker-3", "DRAIN_TIMEOUT": "300s"},
}


def reply(*strategies: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """An authoritative RCA reply with the given strategies."""
    data: dict[str, Any] = {
        "analysis_summary": "payments-api pods crash-loop since 14:05 after losing the database.",
        "root_cause_assessment": "Connections to the database broke during a failover.",
        "rca_severity": "high",
        "strategies": list(strategies),
        "warnings": ["A restart drops in-flight requests"],
        "context_used": {
            "cluster_state": "prod-eu-1 healthy apart from payments",
            "resource_availability": "Nodes have spare CPU and memory",
            "blast_radius": "One deployment of three replicas",
        },
    }
    data.update(changes)
    return data


def findings(**changes: Any) -> dict[str, Any]:
    """RCA findings (the first call's reply)."""
    data: dict[str, Any] = {
        "analysis_summary": "payments-api pods crash-loop since 14:05.",
        "root_cause_assessment": "Stale database connections after a failover.",
        "rca_severity": "high",
        "severity_rationale": "Production, revenue-critical, a third of requests fail.",
        "signal_type": "KubePodCrashLooping",
        "component": "deployment",
        "target_resource": "payments/Deployment/payments-api",
        "contributing_factors": ["No connection retry on start"],
        "evidence_to_confirm": ["kubectl logs deploy/payments-api -n payments --previous"],
    }
    data.update(changes)
    return data
