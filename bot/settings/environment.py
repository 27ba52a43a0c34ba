"""The process environment: what keeps libraries offline, and URLs fit to print."""

from __future__ import annotations

import os
import re


def mask_url(value: str) -> str:
    """Hide the password in any URL inside `value` (postgresql+asyncpg://user:***@host)."""
    return re.sub(r"(//[^/:@]*):[^/@]*@", r"\1:***@", value)


# Libraries read these at import time; air-gapped operation depends on them (STACK-NOTES).
OFFLINE_DEFAULTS = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    # Otherwise the first Anthropic call fetches litellm's beta-header table from GitHub.
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LANCEDB_LOG": "error",
    "TOKENIZERS_PARALLELISM": "false",
}


def prepare_process_environment() -> None:
    """Default the variables that keep litellm, Hugging Face and LanceDB offline and quiet."""
    for name, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(name, value)
