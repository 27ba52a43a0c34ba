"""Start-up warm-up: heavy libraries load before the first turn, then everything is frozen."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from bot.server.warmup import warm_up
from domain.llm import MemoryCallRecorder
from tests.fakes.clock import FakeClock
from tests.paths import REPO_ROOT

MODEL = Path("/models/all-MiniLM-L6-v2")


class Steps:
    """What the warm-up did, in order."""

    def __init__(self, *, model_fails: bool = False, llm_fails: bool = False) -> None:
        self.done: list[str] = []
        self.model_fails = model_fails
        self.llm_fails = llm_fails

    def load_model(self, path: Path) -> object:
        if self.model_fails:
            raise OSError(f"no model at {path}")
        self.done.append(f"model {path.name}")
        return object()

    def freeze(self) -> None:
        self.done.append("freeze")


class FakeLLM:
    def __init__(self, steps: Steps, *, enabled: bool = True) -> None:
        self._steps = steps
        self.enabled = enabled

    def load(self) -> None:
        if self._steps.llm_fails:
            raise ImportError("litellm is broken")
        self._steps.done.append("llm")


async def test_the_model_and_the_llm_library_load_before_the_freeze() -> None:
    steps = Steps()

    await warm_up(MODEL, FakeLLM(steps), load_model=steps.load_model, freeze=steps.freeze)

    # Frozen last: litellm's ~300,000 objects loaded after a freeze would be walked by every
    # full collection, stalling turns for ~0.3 s each time.
    assert steps.done == ["model all-MiniLM-L6-v2", "llm", "freeze"]


async def test_without_a_model_configured_the_llm_library_is_not_loaded() -> None:
    steps = Steps()

    await warm_up(
        MODEL, FakeLLM(steps, enabled=False), load_model=steps.load_model, freeze=steps.freeze
    )

    assert steps.done == ["model all-MiniLM-L6-v2", "freeze"]


@pytest.mark.parametrize(("model_fails", "llm_fails"), [(True, False), (False, True)])
async def test_a_failed_load_is_logged_and_the_rest_still_happens(
    model_fails: bool, llm_fails: bool, caplog: pytest.LogCaptureFixture
) -> None:
    steps = Steps(model_fails=model_fails, llm_fails=llm_fails)

    with caplog.at_level(logging.WARNING, logger="bot.server.warmup"):
        await warm_up(MODEL, FakeLLM(steps), load_model=steps.load_model, freeze=steps.freeze)

    assert steps.done[-1] == "freeze"
    assert len(steps.done) == 2
    assert "could not be loaded" in caplog.text


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
