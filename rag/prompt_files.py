"""Prompt templates shipped with the package, with a short hash recorded on every LLM call."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt file's name, text and content hash."""

    name: str
    text: str

    @property
    def hash(self) -> str:
        """First 12 hex digits of the SHA-256 of the text."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]


@cache
def load_prompt(name: str) -> PromptTemplate:
    """The template `rag/prompts/<name>.md`."""
    text = resources.files("rag.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")
    return PromptTemplate(name, text.strip())
