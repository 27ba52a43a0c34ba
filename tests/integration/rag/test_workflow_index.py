"""The catalog in LanceDB: searched by signal type and severity, filtered by business labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from domain.workflows.catalog import Catalog, LabelFilters, RcaSeverity
from rag.store.workflow_index import LanceWorkflowIndex, label_filter, split_query
from tests.fakes.rag import HashingEmbedder
from tests.integration.rag.conftest import LanceLocation
from tests.unit.domain.workflows.catalog_data import (
    DISK,
    DRAIN,
    HPA,
    MEMORY,
    RESTART,
    ROLLBACK,
    catalog,
    workflow,
)


async def index_at(path: Path, embedder: Any, source: Catalog) -> LanceWorkflowIndex:
    return await LanceWorkflowIndex.open(str(path), embedder, source)


async def index_in(location: LanceLocation, embedder: Any, source: Catalog) -> LanceWorkflowIndex:
    return await LanceWorkflowIndex.open(location.uri, embedder, source, location.storage_options)


async def found(
    index: LanceWorkflowIndex, query: str, filters: LabelFilters | None = None
) -> list[str]:
    matches = await index.search(query=query, filters=filters or LabelFilters(), limit=5)
    return [m.workflow_id for m in matches]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("KubePodCrashLooping high", RESTART),
        ("OOMKilled critical", MEMORY),
        ("KubeHpaMaxedOut high", HPA),
        ("NodeFilesystemSpaceFillingUp medium", DISK),
        ("KubeNodeNotReady critical", DRAIN),
        ("KubeDeploymentRolloutStuck high", ROLLBACK),
    ],
)
async def test_the_rcas_signal_type_finds_its_workflow_first(
    tmp_path: Path, query: str, best: str
) -> None:
    index = await index_at(tmp_path, HashingEmbedder(), catalog())

    assert (await found(index, query))[0] == best


async def test_label_filters_exclude_workflows_a_business_context_does_not_allow(
    tmp_path: Path,
) -> None:
    index = await index_at(tmp_path, HashingEmbedder(), catalog())

    staging = await found(index, "KubeHpaMaxedOut high", LabelFilters(environment="staging"))
    cautious = await found(index, "KubeNodeNotReady critical", LabelFilters(risk_tolerance="low"))
    p3 = await found(index, "KubeHpaMaxedOut high", LabelFilters(priority="P3"))

    assert HPA not in staging, "production only"
    assert ROLLBACK in staging
    assert DRAIN not in cautious, "needs a high risk tolerance"
    assert set(cautious) == {ROLLBACK, HPA, DISK}
    assert HPA not in p3


async def test_only_the_newest_version_of_a_workflow_is_indexed(tmp_path: Path) -> None:
    index = await index_at(tmp_path, HashingEmbedder(), catalog())

    matches = await index.search(
        query="KubeDeploymentRolloutStuck", filters=LabelFilters(), limit=10
    )

    assert [(m.workflow_id, m.version) for m in matches if m.workflow_id == ROLLBACK] == [
        (ROLLBACK, "1.1.0")
    ]
    assert len(matches) == 6


async def test_a_restart_with_the_same_catalog_embeds_nothing(
    lance_location: LanceLocation,
) -> None:
    first = HashingEmbedder()
    await (await index_in(lance_location, first, catalog())).ensure_indexed()
    second = HashingEmbedder()

    again = await index_in(lance_location, second, catalog())
    await again.ensure_indexed()

    assert len(first.seen) == 6
    assert second.seen == []


async def test_a_closed_index_can_be_opened_again_and_still_finds_its_workflows(
    tmp_path: Path,
) -> None:
    first = await index_at(tmp_path, HashingEmbedder(), catalog())
    await first.ensure_indexed()
    first.close()

    again = await index_at(tmp_path, HashingEmbedder(), catalog())

    assert RESTART in await found(again, "KubePodCrashLooping high")
    again.close()


async def test_a_changed_catalog_is_indexed_again(lance_location: LanceLocation) -> None:
    await (await index_in(lance_location, HashingEmbedder(), catalog())).ensure_indexed()
    smaller = Catalog([workflow(RESTART), workflow(DISK)])

    index = await index_in(lance_location, HashingEmbedder(), smaller)

    assert await found(index, "KubePodCrashLooping high") == [RESTART, DISK]


async def test_an_empty_catalog_finds_nothing(tmp_path: Path) -> None:
    index = await index_at(tmp_path, HashingEmbedder(), Catalog())

    assert await found(index, "OOMKilled critical") == []


async def test_the_rca_severity_keeps_out_workflows_meant_for_other_severities(
    tmp_path: Path,
) -> None:
    index = await index_at(tmp_path, HashingEmbedder(), catalog())

    assert DRAIN in await found(index, "KubeNodeNotReady high")
    assert DRAIN not in await found(index, "KubeNodeNotReady low"), "critical and high only"
    assert DISK in await found(index, "KubeNodeNotReady low"), "any severity"


def test_the_severity_is_read_off_the_end_of_the_query() -> None:
    assert split_query("OOMKilled critical") == ("OOMKilled", RcaSeverity.CRITICAL)
    assert split_query("OOMKilled") == ("OOMKilled", None)
    assert split_query("low") == ("low", None)


def test_filter_values_from_alert_labels_are_quoted() -> None:
    where = label_filter(LabelFilters(environment="prod' OR '1'='1"))

    assert where == "array_has_any(environment, ['prod'' or ''1''=''1', '*'])"
    assert label_filter(LabelFilters()) is None
    assert label_filter(LabelFilters(), RcaSeverity.LOW) == "array_has(severity, 'low')"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("CrashLoopBackOff critical", {RESTART, ROLLBACK}),
        ("NodeDiskPressure high", {DISK}),
        ("NodeNotReady critical", {DRAIN}),
        ("MemoryLimitExceeded high", {MEMORY}),
    ],
)
async def test_with_the_real_model_a_signal_named_differently_still_finds_its_workflow(
    tmp_path: Path, model_embedder: Any, query: str, expected: set[str]
) -> None:
    index = await index_at(tmp_path, model_embedder, catalog())

    top = await found(index, query)

    assert set(top[: len(expected)]) == expected
