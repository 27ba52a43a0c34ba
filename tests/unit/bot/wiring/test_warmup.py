"""Start-up warm-up: heavy libraries load beside the event loop, then everything is frozen."""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys

import pytest

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from bot.wiring.readiness import EMBEDDING_MODEL, LLM, Readiness
from bot.wiring.warmup import ModelWarmUp, freeze_startup_objects, parts, warm_up
from domain.llm import MemoryCallRecorder
from rag.embeddings.gate import ModelGate
from tests.fakes.clock import FakeClock
from tests.paths import REPO_ROOT


class Steps:
    """What the warm-up did, in order, and whether the collector was on meanwhile."""

    def __init__(self, *, model_fails: bool = False, llm_fails: bool = False) -> None:
        self.done: list[str] = []
        self.collector_on: list[bool] = []
        self.model_fails = model_fails
        self.llm_fails = llm_fails
        self.gate = ModelGate()

    def load_model(self) -> object:
        self.collector_on.append(gc.isenabled())
        if self.model_fails:
            raise OSError("no model there")
        self.done.append(f"model, gate open: {self.gate.is_open}")
        return object()

    async def copy(self) -> None:
        await asyncio.sleep(0)
        self.done.append("copy")

    def freeze(self) -> None:
        self.done.append("freeze")

    def model(self, *, copy: bool = True) -> ModelWarmUp:
        return ModelWarmUp(self.load_model, self.gate, self.copy if copy else None)


class FakeLLM:
    def __init__(self, steps: Steps, *, enabled: bool = True) -> None:
        self._steps = steps
        self.enabled = enabled

    async def warm(self) -> None:
        self._steps.collector_on.append(gc.isenabled())
        if self._steps.llm_fails:
            raise ImportError("litellm is broken")
        self._steps.done.append("llm")


async def warmed(steps: Steps, llm: FakeLLM, model: ModelWarmUp | None) -> Readiness:
    readiness = Readiness(parts(llm, model))
    await warm_up(llm, model, readiness, freeze=steps.freeze)
    return readiness


async def test_the_llm_library_loads_first_and_the_model_from_its_copy_each_then_frozen() -> None:
    steps = Steps()

    readiness = await warmed(steps, FakeLLM(steps), steps.model())

    # Every turn needs litellm; the model loads from its ONNX copy (made meanwhile, in a child
    # process), never torch. Each is frozen once loaded: litellm's ~300,000 objects left in
    # view would be walked by every full collection, stalling turns for ~0.3 s each time.
    done = steps.done
    model = "model, gate open: False"
    assert done.index("llm") < done.index(model)
    assert done.index("copy") < done.index(model)
    assert done[done.index("llm") + 1] == "freeze"
    assert done[done.index(model) + 1 :] == ["freeze"]
    assert steps.gate.is_open
    assert readiness.ready
    assert readiness.report() == {LLM: "ready", EMBEDDING_MODEL: "ready"}


async def test_nothing_is_collected_while_the_libraries_load() -> None:
    steps = Steps()
    was_on = gc.isenabled()

    await warmed(steps, FakeLLM(steps), steps.model())

    # The collector's full passes over the objects the imports create held the interpreter
    # lock for up to ~0.5 s at a time, away from the event loop answering Slack.
    assert steps.collector_on == [False, False]
    assert gc.isenabled() is was_on


def test_the_freeze_runs_no_collection() -> None:
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        freeze_startup_objects()
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()

    # A last full pass would hold the interpreter for ~0.5 s while Slack waits for answers.
    assert collections == []


async def test_without_a_model_configured_the_llm_library_is_not_loaded() -> None:
    steps = Steps()
    llm = FakeLLM(steps, enabled=False)

    readiness = await warmed(steps, llm, steps.model(copy=False))

    assert steps.done == ["model, gate open: False", "freeze"]
    assert readiness.report() == {EMBEDDING_MODEL: "ready"}


@pytest.mark.parametrize(("model_fails", "llm_fails"), [(True, False), (False, True)])
async def test_a_failed_load_is_logged_and_the_rest_still_happens(
    model_fails: bool, llm_fails: bool, caplog: pytest.LogCaptureFixture
) -> None:
    steps = Steps(model_fails=model_fails, llm_fails=llm_fails)

    with caplog.at_level(logging.WARNING, logger="bot.server.warmup"):
        readiness = await warmed(steps, FakeLLM(steps), steps.model(copy=False))

    assert steps.done[-1] == "freeze"
    assert len(steps.done) == 2
    assert "could not be loaded" in caplog.text
    # Ready all the same: the turn that needs the part says what is wrong in its thread.
    assert readiness.ready
    assert steps.gate.is_open


async def test_stopping_during_the_warm_up_stops_the_copy_being_made() -> None:
    steps = Steps()
    copy_stopped = asyncio.Event()

    async def endless_copy() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            copy_stopped.set()

    class EndlessLLM(FakeLLM):
        async def warm(self) -> None:
            await asyncio.Event().wait()

    model = ModelWarmUp(steps.load_model, steps.gate, endless_copy)
    warming = asyncio.create_task(warm_up(EndlessLLM(steps), model, Readiness()))
    await asyncio.sleep(0.01)

    warming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await warming

    assert copy_stopped.is_set()  # its child process is stopped with it
    assert steps.done == []


async def test_searches_wait_at_the_gate_until_the_model_is_loaded() -> None:
    steps = Steps()
    waiting = asyncio.create_task(steps.gate.wait())
    await asyncio.sleep(0)
    assert not waiting.done()

    await warmed(steps, FakeLLM(steps), steps.model())

    await asyncio.wait_for(waiting, 1)


def test_the_gateway_loads_litellm_ahead_of_its_first_call() -> None:
    gateway = LiteLLMGateway(
        GatewayConfig(model="openai/test-model"), recorder=MemoryCallRecorder(), clock=FakeClock()
    )

    gateway.load()

    assert gateway._module is not None  # the first call reuses it
    assert gateway._module.suppress_debug_info is True


LOADED_ON_FIRST_CALL = """
import sys
from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from domain.llm import MemoryCallRecorder
from tests.fakes.clock import FakeClock

config = GatewayConfig(model="openai/x")
gateway = LiteLLMGateway(config, recorder=MemoryCallRecorder(), clock=FakeClock())
modules = ("openai.resources.chat", "litellm.proxy.openai_files_endpoints.common_utils")
before = [module in sys.modules for module in modules]
gateway.load()
print(*before, *(module in sys.modules for module in modules))
"""


def in_a_fresh_interpreter(script: str) -> list[str]:
    """What ``script`` prints, as words: in this interpreter, earlier tests imported litellm."""
    shown = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    return shown.stdout.split()


def test_loading_also_imports_what_the_first_openai_compatible_call_would() -> None:
    assert in_a_fresh_interpreter(LOADED_ON_FIRST_CALL) == ["False", "False", "True", "True"]


FIRST_BIG_PROMPT = """
import sys
import litellm.rust_bridge.tokenizer as dispatch
from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from domain.llm import ChatMessage, MemoryCallRecorder
from tests.fakes.clock import FakeClock

model = "ollama/llama-3-8b"
config = GatewayConfig(model=model, default_context_window=1000, output_reserve_tokens=100)
gateway = LiteLLMGateway(config, recorder=MemoryCallRecorder(), clock=FakeClock())
gateway.load()
fetched = []
def from_pretrained(*args, **kwargs):
    fetched.append(args)
    raise OSError("no network")
dispatch.from_pretrained = from_pretrained
before = set(sys.modules)
prompt = [
    ChatMessage(role="system", content="rules " * 400),
    ChatMessage(role="user", content="what now " * 400),
]
fitted = gateway._fit(model, prompt)
print(len(set(sys.modules) - before), len(fetched), len(fitted))
"""


def test_after_loading_the_first_prompt_to_count_loads_and_fetches_nothing() -> None:
    # Counting a prompt too big to fit by its size used to import and build litellm's tokenizer
    # in the middle of a turn (~0.3 s with the event loop held), and for a Llama model to ask
    # the Hugging Face hub for one.
    assert in_a_fresh_interpreter(FIRST_BIG_PROMPT) == ["0", "0", "2"]
