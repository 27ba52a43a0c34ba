"""Ingestion jobs: chunk off the event loop, make text searchable first, then add vectors.

A case file's vectors may follow in the background (`IngestRequest.vectors_later`): the report
goes back once its text is searchable, and `rag.backfill` computes and writes the vectors after,
one file at a time. Rows without vectors are the durable record of vectors still owed, so the
start-up sweep (`IngestionPipeline.sweep`) finishes what a stopped process left.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

from domain.base import utc_now
from domain.knowledge import IngestReport, ToolStatus
from rag.backfill import VectorBackfill, VectorJob
from rag.chunking.chunks import DocumentKind
from rag.chunking.decoding import UnsupportedUploadError
from rag.chunking.findings import is_ignored
from rag.chunking.logs import window_vectors
from rag.chunking.templates import TemplateTable
from rag.chunking.templates import embedding_text as template_text
from rag.chunking.uploads import EmptyDocumentError, PreparedDocument, prepare_document
from rag.embeddings.embedder import (
    Embedder,
    VectorCache,
    Vectors,
    embed_with_cache,
    waits_for_model,
)
from rag.resume import (
    stored_rows,
    stored_vectors,
    unfinished_ingests,
    vectored_chunks,
    with_vector_column,
)
from rag.store.filters import quote
from rag.store.rows import TEXT_ONLY, RowScope, document_rows, with_vectors
from rag.store.tables import KnowledgeStore, TableName, table_for

logger = logging.getLogger(__name__)

# Above this many texts to embed, rows are written first with full text only (vectors follow).
TWO_PHASE_MIN_TEXTS = 48
# A case file with at most this many texts to embed is embedded before its report (a second or
# two): a file of a few hundred lines is never answered as "still being indexed".
VECTORS_LATER_MIN_TEXTS = 128
# Rows with vectors are added at most this many at a time (a 1M-line log has 50,000 rows; one
# commit for those takes less memory than several, as the compaction after them has less to do).
ROWS_PER_COMMIT = 100_000


@dataclass(frozen=True)
class IngestProgress:
    """Where an ingestion is: reading, searchable (full text), embedding (done/total), done."""

    ingest_id: str
    source: str
    stage: str
    done: int = 0
    total: int = 0


ProgressCallback = Callable[[IngestProgress], None]


@dataclass(frozen=True)
class IngestRequest:
    """One file for one scope; `replace_source` swaps out an earlier version of the same source."""

    scope: RowScope
    filename: str
    content: bytes
    max_bytes: int
    title: str | None = None
    replace_source: bool = False
    vectors_later: bool = False
    """Report once the text is searchable; the vectors follow in the background (case files)."""


class IngestionPipeline:
    """Turns uploads into searchable rows; a failure removes whatever the job had written."""

    def __init__(
        self,
        store: KnowledgeStore,
        embedder: Embedder,
        *,
        cache: VectorCache | None = None,
        clock: Callable[[], datetime] = utc_now,
        backfill: VectorBackfill | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cache = cache or VectorCache()
        self._clock = clock
        self._backfill = backfill
        self._writing: set[str] = set()
        """Ingest ids this process is writing now (the sweep must not take them)."""

    async def ingest(
        self, request: IngestRequest, progress: ProgressCallback | None = None
    ) -> IngestReport:
        """Ingest one file and report what was found, or why it was refused."""
        ingest_id = uuid.uuid4().hex[:16]
        notify = _Notifier(ingest_id, request.filename, progress)
        notify("reading")
        try:
            doc = await asyncio.to_thread(self._prepare, request)
        except EmptyDocumentError as exc:
            return _refusal(request, ToolStatus.NO_DATA, str(exc))
        except UnsupportedUploadError as exc:
            return _refusal(request, ToolStatus.ERROR, str(exc))
        report = summarize(doc)
        self._writing.add(ingest_id)
        try:
            later = await self._write(doc, request, ingest_id, notify)
        except Exception as exc:  # reported to the thread; the job's rows are already removed
            logger.warning("ingestion failed", extra={"ingest_id": ingest_id}, exc_info=True)
            reason = f"ingestion failed ({type(exc).__name__}); nothing from it was kept"
            return _refusal(request, ToolStatus.ERROR, reason)
        finally:
            self._writing.discard(ingest_id)
        if later is not None and self._backfill is not None:
            self._backfill.submit(later)
            logger.info("text searchable, vectors follow", extra={"ingest_id": ingest_id})
            return report.model_copy(update={"still_indexing": True})
        notify("done", report.chunks, report.chunks)
        logger.info("ingested document", extra={"ingest_id": ingest_id, "chunks": report.chunks})
        return report

    def sweep_job(self) -> VectorJob:
        """The start-up sweep, as a job of the backfill: it queues the vectors a stopped process
        left owed (rows written without vectors whose ingest this process is not writing)."""
        return VectorJob(TableName.EVIDENCE, "", "", "", "", "", self._sweep)

    async def _sweep(self, _job: VectorJob) -> None:
        if self._backfill is None:
            return
        for table in TableName:
            owed_now = await unfinished_ingests(self._store, table)
            queued = self._backfill.ingests() | self._writing
            for owed in (owed for owed in owed_now if owed.ingest_id not in queued):
                logger.info("vectors resumed", extra={"ingest_id": owed.ingest_id})
                work = functools.partial(self._resume, table)
                scope = (owed.team_id, owed.kb, owed.scope_id)
                self._backfill.submit(VectorJob(table, *scope, owed.source, owed.ingest_id, work))

    def _prepare(self, request: IngestRequest) -> PreparedDocument:
        return prepare_document(
            request.filename,
            request.content,
            max_bytes=request.max_bytes,
            now=self._clock(),
            title=request.title,
        )

    async def _write(
        self, doc: PreparedDocument, request: IngestRequest, ingest_id: str, notify: _Notifier
    ) -> VectorJob | None:
        """Write the rows; for a file whose vectors follow, the job that will write them."""
        table = table_for(request.scope.kb)
        texts = embedding_texts(doc)
        dimension = self._store.dimension
        created = self._clock()
        later = request.vectors_later and not request.replace_source and self._backfill is not None
        job: VectorJob | None = None
        try:
            missing = [text for text in texts if self._cache.get(text) is None]
            small = len(missing) <= (VECTORS_LATER_MIN_TEXTS if later else TWO_PHASE_MIN_TEXTS)
            if small:
                vectors = await self._vectors(doc, texts, notify)
                rows = document_rows(doc, request.scope, ingest_id, created, dimension, vectors)
                await self._store.add(table, rows)
                notify("searchable", len(doc.chunks), len(doc.chunks))
            elif later:
                await self._probe(missing[0])
                job = await self._text_first(doc, request, ingest_id, texts, notify)
            else:
                await self._two_phase(doc, request, ingest_id, texts, notify)
            if request.replace_source:
                await self._replace_older(table, request.scope, doc.source, ingest_id)
        except BaseException:
            # Nothing half-visible: rows already written by this job go away with it.
            await asyncio.shield(self._store.delete(table, f"ingest_id = {quote(ingest_id)}"))
            notify("failed")
            raise
        if job is None:
            await self._store.maintain(table)
        return job

    async def _probe(self, text: str) -> None:
        """One vector before the answer (a few ms): a model that cannot embed at all is reported
        with the upload, not found out after it. Skipped while the model is still loading."""
        if not waits_for_model(self._embedder):
            await embed_with_cache(self._embedder, [text], self._cache)

    async def _two_phase(
        self,
        doc: PreparedDocument,
        request: IngestRequest,
        ingest_id: str,
        texts: list[str],
        notify: _Notifier,
    ) -> None:
        """Text rows first; then the same rows with vectors, and the text-only ones removed."""
        # Add-then-delete costs far less memory than a merge (which joins the whole table), and
        # both copies share chunk ids, so a search running in between sees each chunk once.
        table = table_for(request.scope.kb)
        dimension = self._store.dimension
        rows = await asyncio.to_thread(
            document_rows, doc, request.scope, ingest_id, self._clock(), dimension
        )
        doc.chunks = []  # the Arrow rows hold the text now (hundreds of MB for 1M lines)
        await self._store.add(table, rows)
        notify("searchable", 0, len(texts))
        vectors = await self._vectors(doc, texts, notify)
        await self._store.add(
            table, await asyncio.to_thread(with_vectors, rows, vectors, dimension)
        )
        del rows
        await self._store.delete(table, f"ingest_id = {quote(ingest_id)} AND {TEXT_ONLY}")

    async def _text_first(
        self,
        doc: PreparedDocument,
        request: IngestRequest,
        ingest_id: str,
        texts: list[str],
        notify: _Notifier,
    ) -> VectorJob:
        """Text rows now; the job that adds their vectors later (it holds the rows meanwhile)."""
        scope, table, dimension = request.scope, table_for(request.scope.kb), self._store.dimension
        # Off the event loop: a million lines make 50,000 rows, most of a second to build.
        rows = await asyncio.to_thread(
            document_rows, doc, scope, ingest_id, self._clock(), dimension
        )
        doc.chunks = []
        await self._store.add(table, rows)
        notify("searchable", 0, len(texts))
        held = [rows]  # let go of before the compaction that follows the write

        async def follow(job: VectorJob) -> None:
            if not held:
                return  # written already (stopped while compacting, then taken up again)
            vectors = await self._vectors(doc, texts, notify)
            full = await asyncio.to_thread(with_vectors, held[0], vectors, dimension)
            del vectors
            written = await self._replace_text_rows(job, full)
            count = full.num_rows
            held.clear()
            del full  # the text and vectors of a million lines: not kept while compacting
            if written:
                await self._store.maintain(table)
                notify("done", count, count)
                logger.info("vectors written", extra={"ingest_id": ingest_id})

        del rows

        return VectorJob(
            table, scope.team_id, scope.kb, scope.scope_id, doc.source, ingest_id, follow
        )

    async def _resume(self, table: TableName, job: VectorJob) -> None:
        """Vectors for rows a stopped process left without them, from their stored text.

        All of the file's text-only rows are read (a log's window vectors need the whole file's
        templates); only the chunks a cut-short write left without a copy with vectors are added.
        """
        where = f"ingest_id = {quote(job.ingest_id)}"
        stored = await stored_rows(self._store, table, f"{where} AND {TEXT_ONLY}")
        if not stored.num_rows:
            return
        done = await vectored_chunks(self._store, table, where)
        vectors = await stored_vectors(stored, self._embedder, self._cache, self._clock())
        dimension = self._store.dimension
        full = await asyncio.to_thread(with_vector_column, stored, vectors, dimension)
        if done:
            full = full.filter(pc.invert(pc.is_in(full.column("chunk_id"), pa.array(done))))
        if await self._replace_text_rows(job, full, resumed=True):
            del full, stored
            await self._store.maintain(table)
            logger.info("vectors written", extra={"ingest_id": job.ingest_id})

    async def _replace_text_rows(
        self, job: VectorJob, rows: pa.Table, *, resumed: bool = False
    ) -> bool:
        """Add the rows with vectors and remove the text-only copies; nothing when the rows were
        removed meanwhile (the case closed) or another process is writing their vectors.

        The copies with vectors go in commits of at most ``ROWS_PER_COMMIT`` rows; a process
        stopped between two leaves the rest to the next start. The caller then maintains the
        table, having let go of the rows.
        """
        if not job.may_write():
            return False
        table, where = job.table, f"ingest_id = {quote(job.ingest_id)}"
        try:
            # Counted by the ingest id's index alone: no vector is read.
            stored = await self._store.count(table, where)
            if not stored or (not resumed and stored != rows.num_rows):
                return False
            for first in range(0, rows.num_rows, ROWS_PER_COMMIT):
                await self._store.add(table, rows.slice(first, ROWS_PER_COMMIT))
            await self._store.delete(table, f"{where} AND {TEXT_ONLY}")
        finally:
            job.wrote()
        return True

    async def _vectors(self, doc: PreparedDocument, texts: list[str], notify: _Notifier) -> Vectors:
        def on_batch(done: int, total: int) -> None:
            notify("embedding", done, total)

        embedded = await embed_with_cache(self._embedder, texts, self._cache, on_batch=on_batch)
        if doc.templates is None or doc.windows is None:
            return embedded
        return await asyncio.to_thread(window_vectors, doc.templates, doc.windows, embedded)

    async def _replace_older(
        self, table: TableName, scope: RowScope, source: str, ingest_id: str
    ) -> None:
        where = (
            f"team_id = {quote(scope.team_id)} AND kb = {quote(scope.kb)} AND "
            f"scope_id = {quote(scope.scope_id)} AND source = {quote(source)} AND "
            f"ingest_id != {quote(ingest_id)}"
        )
        await self._store.delete(table, where)


def embedding_texts(doc: PreparedDocument) -> list[str]:
    """What the model embeds: each distinct template for logs, each chunk otherwise."""
    if doc.kind is DocumentKind.LOG and doc.templates is not None:
        return [template_text(signature) for signature in doc.templates.signatures]
    return [chunk.embed_text or chunk.text for chunk in doc.chunks]


def summarize(doc: PreparedDocument) -> IngestReport:
    """The report posted to the thread: size, time range, counts and, for logs, the findings."""
    firsts = [chunk.ts_first for chunk in doc.chunks if chunk.ts_first is not None]
    lasts = [chunk.ts_last for chunk in doc.chunks if chunk.ts_last is not None]
    templates = doc.templates
    return IngestReport(
        source=doc.source,
        status=ToolStatus.OK,
        lines=doc.line_count,
        size_bytes=doc.size_bytes,
        chunks=len(doc.chunks),
        redactions=doc.redactions,
        first_timestamp=min(firsts, default=None),
        last_timestamp=max(lasts, default=None),
        error_count=templates.error_count if templates else 0,
        warning_count=templates.warning_count if templates else 0,
        top_messages=_most_repeated(doc.messages) if doc.messages else [],
        kind=doc.kind.value,
        findings=doc.findings,
        timestamps_unrecognised=doc.kind is DocumentKind.LOG and doc.parser.fmt is None,
    )


def _most_repeated(messages: TemplateTable, top: int = 5) -> list[tuple[int, str]]:
    """The most frequent messages (one however many threads logged it), redaction marks and
    blank lines left out."""
    repeated = messages.most_repeated(len(messages.signatures))
    return [(count, text) for count, text in repeated if not is_ignored(text)][:top]


def _refusal(request: IngestRequest, status: ToolStatus, reason: str) -> IngestReport:
    return IngestReport(
        source=request.filename, status=status, size_bytes=len(request.content), error=reason
    )


class _Notifier:
    """Sends progress to the caller's callback, if any."""

    def __init__(self, ingest_id: str, source: str, callback: ProgressCallback | None) -> None:
        self._ingest_id = ingest_id
        self._source = source
        self._callback = callback

    def __call__(self, stage: str, done: int = 0, total: int = 0) -> None:
        if self._callback is not None:
            self._callback(IngestProgress(self._ingest_id, self._source, stage, done, total))
