# FaultMaven for Slack: one process, state under /data, no network needed at start
# besides Slack and the LLM endpoint.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# torch first and from the CPU index, so nothing later pulls the multi-gigabyte CUDA build;
# its own layer, so code changes do not re-download it.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY pyproject.toml constraints.txt README.md LICENSE ./
COPY bot ./bot
COPY domain ./domain
COPY rag ./rag
COPY storage ./storage
# The postgres extra adds asyncpg so the same image can run on PostgreSQL (FM_DATABASE_URL).
RUN pip install -c constraints.txt '.[postgres]'
# An example remediation catalog: FM_WORKFLOW_CATALOG_DIR=/app/examples/workflows to try it.
COPY examples ./examples

# Fixed ids, so a Kubernetes securityContext can name them (runAsUser/runAsGroup/fsGroup 10001).
RUN groupadd --gid 10001 fm \
    && useradd --create-home --uid 10001 --gid fm fm \
    && mkdir -p /data \
    && chown fm:fm /data

ENV FM_DATA_DIR=/data \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS=True \
    LANCEDB_LOG=error \
    TOKENIZERS_PARALLELISM=false

# Numeric, so runAsNonRoot can verify it without looking the name up in the image.
USER 10001:10001

# Load the bundled embedding model once, offline, as the runtime user: the build fails here
# (not at the first incident) if the model is incomplete, and any cache lands in fm's home.
RUN python -c "from sentence_transformers import SentenceTransformer; \
from rag.embeddings.model import resolve_model_path; \
model = SentenceTransformer(str(resolve_model_path(None)), device='cpu'); \
assert model.encode(['warm-up']).shape == (1, 384)"

VOLUME /data
# `fm run` serves GET /healthz and POST /alerts/alertmanager (and, with --http, POST /slack/events)
# on --port, default 3000; deploy/ has Compose and Kubernetes examples that run it with --http.
EXPOSE 3000
CMD ["fm", "run"]
