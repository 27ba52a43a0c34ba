"""LanceDB on an S3 bucket, configured as an operator would: FM_LANCEDB_URI=s3://… and FM_S3_*.

The bucket is on a local S3 server (moto) that checks credentials the way AWS does. The tests that
run the same assertions on a local directory and on S3 are in the other modules of this package
(`lance_location`); these are the things only object storage raises.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.adapters.object_store import lancedb_storage_options
from bot.cli.doctor import Verdict, check_lancedb, collect_checks
from bot.cli.doctor_probes import list_lancedb_tables
from bot.settings import Settings, load_settings
from bot.wiring.stores import load_workflow_catalog
from domain.knowledge import ToolStatus
from domain.workflows.catalog import LabelFilters
from rag.store.connection import READ_CONSISTENCY
from rag.store.tables import TableName
from rag.store.workflow_index import LanceWorkflowIndex
from tests.fakes.object_store import S3Bucket
from tests.fakes.rag import HashingEmbedder
from tests.integration.rag.conftest import LanceLocation, open_at, s3_location

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
LOG = b"""2025-10-21T14:32:10Z WARN pool exhausted, waiting for connection
2025-10-21T14:32:15Z ERROR ConnectionTimeout: database connection failed after 30000ms
"""


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def settings_for(bucket: S3Bucket, **changes: str) -> Settings:
    return load_settings(bucket.env(**changes), env_file=None)


def located(settings: Settings) -> LanceLocation:
    return LanceLocation(settings.lancedb_uri, lancedb_storage_options(settings))


async def eventually(check: Callable[[], Awaitable[bool]], within_s: float) -> float:
    """Seconds until `check` holds; fails the test if it does not within `within_s`."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < within_s, f"not seen within {within_s} s"
        await asyncio.sleep(0.2)
    return time.monotonic() - started


async def test_the_knowledge_tables_are_written_to_the_bucket_under_the_prefix(
    s3_bucket: S3Bucket,
) -> None:
    service = await open_at(s3_location(s3_bucket, "team/lancedb"), HashingEmbedder())

    await service.ingest_case_file(team_id="T1", case_id="C1", filename="db.log", content=LOG)

    keys = s3_bucket.object_keys()
    assert any(key.startswith("team/lancedb/evidence.lance/data/") for key in keys)
    assert any(key.startswith("team/lancedb/knowledge.lance/") for key in keys)
    assert all(key.startswith("team/lancedb/") for key in keys)


async def test_the_example_catalog_is_indexed_in_the_bucket_and_searched(
    s3_bucket: S3Bucket,
) -> None:
    settings = settings_for(s3_bucket, FM_WORKFLOW_CATALOG_DIR=str(EXAMPLES))
    catalog = load_workflow_catalog(settings)
    index = await LanceWorkflowIndex.open(
        settings.lancedb_uri, HashingEmbedder(), catalog, lancedb_storage_options(settings)
    )

    crashing = await index.search(query="KubePodCrashLooping high", filters=LabelFilters(), limit=3)
    cautious = await index.search(
        query="KubeNodeNotReady critical", filters=LabelFilters(risk_tolerance="low"), limit=6
    )

    assert await index.ensure_indexed() == len(catalog.latest()) == 6
    assert crashing[0].workflow_id == "restart-crashlooping-deployment"
    assert {match.workflow_id for match in cautious} == {
        "clean-node-disk-space",
        "raise-hpa-min-replicas",
        "rollback-deployment",
    }
    assert any(key.startswith("lancedb/workflows.lance/") for key in s3_bucket.object_keys())
    index.close()


async def test_a_second_replica_sees_an_upload_and_its_deletion_within_seconds(
    s3_bucket: S3Bucket,
) -> None:
    location = s3_location(s3_bucket)
    first = await open_at(location, HashingEmbedder())
    second = await open_at(location, HashingEmbedder())  # open before the upload, as a replica is

    async def second_finds_it() -> bool:
        result = await second.search_case_evidence(
            team_id="T1", case_id="C1", query="database connection failed"
        )
        return result.status is ToolStatus.OK

    async def second_finds_nothing() -> bool:
        return not await second_finds_it()

    await first.ingest_case_file(team_id="T1", case_id="C1", filename="db.log", content=LOG)
    seen = await eventually(second_finds_it, within_s=4 * READ_CONSISTENCY.total_seconds())
    await first.delete_case_evidence(team_id="T1", case_id="C1")
    gone = await eventually(second_finds_nothing, within_s=4 * READ_CONSISTENCY.total_seconds())

    assert max(seen, gone) < 4 * READ_CONSISTENCY.total_seconds()


async def test_maintenance_compacts_and_indexes_a_table_in_the_bucket(s3_bucket: S3Bucket) -> None:
    service = await open_at(s3_location(s3_bucket), HashingEmbedder())
    for number in range(6):
        line = f"2025-10-21T14:3{number}:00Z ERROR shard-{number} replication lag exceeded\n"
        await service.ingest_case_file(
            team_id="T1", case_id="C1", filename=f"shard{number}.log", content=line.encode()
        )
    table = service.store.table(TableName.EVIDENCE)

    assert await service.store.maintain(TableName.EVIDENCE, force=True)

    stats = await table.stats()
    text_index = next(i for i in await table.list_indices() if i.index_type == "FTS")
    result = await service.search_case_evidence(team_id="T1", case_id="C1", query="shard-4 lag")
    assert stats["fragment_stats"]["num_fragments"] == 1
    assert (await table.index_stats(text_index.name)).num_unindexed_rows == 0
    assert result.chunks[0].citation.label() == "shard4.log:1 (14:34:00Z)"


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"FM_S3_SECRET_ACCESS_KEY": "not-the-secret"}, "SignatureDoesNotMatch"),
        ({"FM_S3_ACCESS_KEY_ID": "AKIAUNKNOWNKEY000000"}, "InvalidAccessKeyId"),
        ({"FM_LANCEDB_URI": "s3://no-such-bucket/lancedb"}, "NoSuchBucket"),
    ],
)
async def test_the_store_refuses_wrong_credentials_and_missing_buckets(
    s3_bucket: S3Bucket, changes: dict[str, str], refusal: str
) -> None:
    with pytest.raises(Exception, match=refusal):
        await open_at(located(settings_for(s3_bucket, **changes)), HashingEmbedder())


async def test_the_doctor_lists_the_tables_in_the_bucket(s3_bucket: S3Bucket) -> None:
    settings = settings_for(s3_bucket)
    await open_at(located(settings), HashingEmbedder())

    check = check_lancedb(
        settings.lancedb_uri, list_lancedb_tables, lancedb_storage_options(settings)
    )

    assert check.verdict is Verdict.OK
    assert check.detail == (
        f"{settings.lancedb_uri} at {s3_bucket.endpoint} opens; 2 table(s): evidence, knowledge."
    )


def test_fm_doctor_opens_the_bucket_its_settings_name(s3_bucket: S3Bucket, tmp_path: Path) -> None:
    settings = settings_for(s3_bucket, FM_DATA_DIR=str(tmp_path))
    wrong = settings_for(s3_bucket, FM_DATA_DIR=str(tmp_path), FM_S3_SECRET_ACCESS_KEY="x")

    [opens] = [check for check in collect_checks(settings) if check.name == "lancedb"]
    [refused] = [check for check in collect_checks(wrong) if check.name == "lancedb"]

    assert (opens.verdict, refused.verdict) == (Verdict.OK, Verdict.FAIL)
    assert opens.detail.endswith(f"at {s3_bucket.endpoint} opens; 0 table(s).")
    assert "check FM_S3_SECRET_ACCESS_KEY" in refused.detail


@pytest.mark.parametrize(
    ("changes", "advice"),
    [
        ({"FM_S3_SECRET_ACCESS_KEY": "not-the-secret"}, "check FM_S3_SECRET_ACCESS_KEY"),
        ({"FM_S3_ACCESS_KEY_ID": "AKIAUNKNOWNKEY000000"}, "check FM_S3_ACCESS_KEY_ID"),
        ({"FM_LANCEDB_URI": "s3://no-such-bucket/lancedb"}, "the bucket does not exist"),
        ({"FM_S3_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}, "check FM_S3_ENDPOINT"),
    ],
)
def test_the_doctor_says_why_the_bucket_cannot_be_opened(
    s3_bucket: S3Bucket, changes: dict[str, str], advice: str
) -> None:
    settings = settings_for(s3_bucket, **changes)

    check = check_lancedb(
        settings.lancedb_uri, list_lancedb_tables, lancedb_storage_options(settings)
    )

    assert check.verdict is Verdict.FAIL
    assert advice in check.detail
    assert "not-the-secret" not in check.detail
    assert len(check.detail) < 300


def without_fm_keys(
    bucket: S3Bucket, monkeypatch: pytest.MonkeyPatch, secret: str
) -> LanceLocation:
    """Settings without FM_S3_ACCESS_KEY_ID/SECRET, and AWS's own variables in the environment."""
    env = bucket.env()
    del env["FM_S3_ACCESS_KEY_ID"], env["FM_S3_SECRET_ACCESS_KEY"]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", bucket.access_key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    return located(load_settings(env, env_file=None))


async def test_without_fm_s3_keys_lancedb_signs_with_the_aws_environment(
    s3_bucket: S3Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = without_fm_keys(s3_bucket, monkeypatch, s3_bucket.secret_access_key)

    service = await open_at(location, HashingEmbedder())
    await service.ingest_case_file(team_id="T1", case_id="C1", filename="db.log", content=LOG)

    assert any(key.startswith("lancedb/evidence.lance/") for key in s3_bucket.object_keys())


async def test_a_wrong_secret_in_the_aws_environment_is_refused(
    s3_bucket: S3Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = without_fm_keys(s3_bucket, monkeypatch, "not-the-secret")

    with pytest.raises(Exception, match="SignatureDoesNotMatch"):
        await open_at(location, HashingEmbedder())
