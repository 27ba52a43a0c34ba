"""The floor under a burst: processor time a new case's turn needs before its model call can go out.

`bot_latency` measures the bot's overhead per turn with 50 cases opened at once. This measures
the two pieces of that turn no scheduling can remove, with the libraries the design prescribes,
on this machine:

* the model call through the gateway (litellm and the OpenAI client): the real `LiteLLMGateway`
  asking for the engine's consulting reply, against the fake OpenAI-compatible server run in
  another process (its time is not counted);
* the turn's knowledge search: the person's runbooks and the workspace knowledge base, hybrid
  (vector and full text), with the bundled embedding model (from its ONNX copy, as the bot runs
  it) and LanceDB, over the public runbooks `bot_latency` searches too.

Each is measured one at a time and 50 at once (query embeddings are then batched); the cheaper
counts. Processor time is the whole process's (worker threads included). From that floor it
prints a lower bound for the median of a 50-case burst: the median case's model call cannot go
out before the 25 cases ahead of it have done this work, even if both cores did nothing else.

    python -m tests.benchmarks.bot_floor [--smoke]

``--smoke`` measures over a few rounds instead of a hundred (that it runs, not how fast).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from domain.engine.schemas import ConsultingResponse
from domain.knowledge import KnowledgeBaseKind
from domain.llm import ChatMessage, MemoryCallRecorder, ModelTier
from rag.embeddings.backend import export_model
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService, open_knowledge_service
from tests.benchmarks.model_copy import seed_model_copy
from tests.benchmarks.runbooks import runbooks
from tests.fakes.models.llm_server import FakeLLMServer, reply

THREADS = 50
CORES = os.cpu_count() or 1
ROUNDS = 100
SMOKE_ROUNDS = 10
TARGET_MS = 150.0
TEAM, USER = "T0BENCH01", "U0BENCH01"
UPLOAD = 16 * 1024 * 1024
SYSTEM = (
    "You are pairing with an on-call engineer. State the problem, ask for evidence with safe "
    "read-only commands, and answer in JSON matching the schema. " * 40
)
REPLY = {
    "agent_response": "Let me confirm: *service is down since 14:05*.",
    "state_updates": {"proposed_problem_statement": "service is down since 14:05"},
    "citations": [],
}


async def processor_ms(
    run: Callable[[int], Awaitable[object]], *, at_once: bool, rounds: int = ROUNDS
) -> float:
    """Processor time per call of ``run(n)`` over ``rounds`` calls, one by one or all together."""
    started = time.process_time()
    if at_once:
        await asyncio.gather(*(run(n) for n in range(rounds)))
    else:
        for n in range(rounds):
            await run(n)
    return (time.process_time() - started) / rounds * 1000


@contextlib.asynccontextmanager
async def model_server() -> AsyncIterator[str]:
    """The fake model in a process of its own; its API base."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.benchmarks.bot_floor", "--serve", stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    try:
        yield (await process.stdout.readline()).decode().strip()
    finally:
        process.terminate()
        await process.wait()


async def serve() -> None:
    """Answer every completion at once, until terminated (run with ``--serve``)."""
    async with FakeLLMServer() as server:
        server.script(*(reply(REPLY) for _ in range(100_000)))
        print(server.api_base, flush=True)
        await asyncio.Event().wait()


async def model_call_ms(api_base: str, rounds: int) -> float:
    config = GatewayConfig(model="openai/test-model", api_base=api_base, api_key="sk-bench")
    gateway = LiteLLMGateway(config, recorder=MemoryCallRecorder())
    gateway.load()

    async def ask(n: int) -> object:
        messages = [
            ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=f"service {n} is down since 14:05"),
        ]
        return await gateway.structured(
            tier=ModelTier.MAIN,
            messages=messages,
            schema=ConsultingResponse,
            template="bench",
            template_hash="0" * 64,
        )

    await asyncio.gather(*(ask(n) for n in range(10)))  # connections, first-call imports
    return min([await processor_ms(ask, at_once=mode, rounds=rounds) for mode in (False, True)])


async def search_ms(folder: Path, rounds: int) -> float:
    # The model as the bot runs it once `fm kb ingest` has made its ONNX copy.
    seed_model_copy(folder)
    export_model(resolve_model_path(None), folder / "models")
    service = await open_knowledge_service(
        lancedb_uri=str(folder / "lancedb"),
        embedding_model=None,
        export_dir=folder / "models",
        llm=None,
        max_upload_bytes=UPLOAD,
    )
    await _runbooks(service)

    async def search(n: int) -> object:
        query = f"service {n} returns 500s since 14:05, pods restarting"
        return await asyncio.gather(
            service.search_personal_runbooks(team_id=TEAM, user_id=USER, query=query, limit=3),
            service.search_global(team_id=TEAM, query=query, limit=3),
        )

    await asyncio.gather(*(search(n) for n in range(10)))
    return min([await processor_ms(search, at_once=mode, rounds=rounds) for mode in (False, True)])


async def _runbooks(service: KnowledgeService) -> None:
    personal, workspace = runbooks()
    for paths, kb, scope in (
        (personal, KnowledgeBaseKind.PERSONAL, USER),
        (workspace, KnowledgeBaseKind.GLOBAL, None),
    ):
        for path in paths:
            await service.ingest_knowledge_file(
                team_id=TEAM, kb=kb, scope_id=scope, filename=path.name, content=path.read_bytes()
            )


async def run(rounds: int) -> None:
    async with model_server() as api_base:
        model = await model_call_ms(api_base, rounds)
    with tempfile.TemporaryDirectory(prefix="fm-bench-floor-") as folder:
        search = await search_ms(Path(folder), rounds)
    floor = model + search
    bound = (THREADS // 2) * floor / CORES
    print(f"floor of a new case's turn before its model call (processor time, {CORES} cores):")
    print(f"  model call through litellm              {model:6.1f} ms")
    print(f"  knowledge search (runbooks + KB)        {search:6.1f} ms")
    verdict = "reachable" if bound < TARGET_MS else "out of reach"
    print(
        f"  {THREADS} at once: the median case's model call goes out ≥ {bound:.0f} ms after it "
        f"arrived, at best ({THREADS // 2} × {floor:.1f} ms / {CORES} cores); "
        f"target {TARGET_MS:.0f} ms {verdict}"
    )


def main() -> None:
    if sys.argv[1:] == ["--serve"]:
        asyncio.run(serve())
    else:
        asyncio.run(run(SMOKE_ROUNDS if sys.argv[1:] == ["--smoke"] else ROUNDS))


if __name__ == "__main__":
    main()
