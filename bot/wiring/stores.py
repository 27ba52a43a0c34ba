"""The stores the wiring opens: the workflow catalog and its index, and the knowledge service."""

from __future__ import annotations

from bot.adapters.catalog_files import CatalogError, load_catalog
from bot.adapters.object_store import lancedb_storage_options
from bot.adapters.stores import KnowledgeStoreStats, RepositoryCaseAccess
from bot.services.ports import KnowledgeStats
from bot.settings import Settings
from bot.wiring.errors import StartupError
from domain.knowledge import KnowledgePort
from domain.workflows.catalog import Catalog
from domain.workflows.ports import WorkflowIndex
from rag.embeddings.embedder import SentenceTransformerEmbedder
from rag.embeddings.gate import ModelGate
from rag.embeddings.model import resolve_model_path
from rag.service import open_knowledge_service
from rag.store.workflow_index import LanceWorkflowIndex
from storage import Repositories


def load_workflow_catalog(settings: Settings) -> Catalog:
    """The catalog in FM_WORKFLOW_CATALOG_DIR (empty if unset); any problem stops start-up."""
    directory = settings.workflow_catalog_dir
    if directory is None:
        return Catalog()
    try:
        return load_catalog(directory)
    except CatalogError as error:
        problems = "\n".join(f"  {problem}" for problem in error.problems)
        raise StartupError(
            f"FM_WORKFLOW_CATALOG_DIR: the workflow catalog in {directory} cannot be used "
            f"(check it with `fm catalog validate {directory}`):\n{problems}"
        ) from None


def embedder(settings: Settings, gate: ModelGate) -> SentenceTransformerEmbedder:
    """The configured model, computing vectors once the warm-up has opened ``gate``."""
    return SentenceTransformerEmbedder(
        resolve_model_path(settings.embedding_model),
        export_dir=settings.embedding_export_dir,
        gate=gate,
    )


async def workflow_index(
    settings: Settings, catalog: Catalog, gate: ModelGate
) -> WorkflowIndex | None:
    """The catalog indexed in LanceDB next to the knowledge tables (none without a catalog)."""
    if not len(catalog):
        return None
    return await LanceWorkflowIndex.open(
        settings.lancedb_uri, embedder(settings, gate), catalog, lancedb_storage_options(settings)
    )


async def knowledge_service(
    settings: Settings, repositories: Repositories, gate: ModelGate
) -> tuple[KnowledgePort, KnowledgeStats]:
    """The LanceDB knowledge service (case evidence, runbooks, the workspace KB) and its size."""
    # Without an LLM here: the turn engine reasons over the excerpts itself, so synthesising an
    # answer for every search of every turn would only add model calls.
    service = await open_knowledge_service(
        lancedb_uri=settings.lancedb_uri,
        storage_options=lancedb_storage_options(settings),
        embedding_model=settings.embedding_model,
        embedder=embedder(settings, gate),
        llm=None,
        max_upload_bytes=settings.max_upload_bytes,
        case_access=RepositoryCaseAccess(repositories.cases),
    )
    return service, KnowledgeStoreStats(service)
