"""Prompt files shipped with the packages: one loader and one hash for every prompt contract.

A prompt is a markdown file in a package folder (``domain/engine/templates``,
``domain/workflows/templates``, ``domain/scoring/templates``, ``rag/prompts``), read once per
process. A contract's hash covers every prompt file it used and its reply schema, each part
length-prefixed so no two splits of one text hash alike: a changed prompt or schema changes the
hash recorded with every model call and every score.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import BaseModel


@dataclass(frozen=True)
class PromptFile:
    """One prompt file: where it lives, its name and its text."""

    package: str
    name: str
    text: str

    @property
    def hash(self) -> str:
        """The file's own hash (its name and text)."""
        return prompt_hash([self.name, self.text])


@cache
def load_prompt(package: str, name: str) -> PromptFile:
    """``<package>/<name>.md``, stripped (FileNotFoundError if there is no such prompt)."""
    text = (resources.files(package) / f"{name}.md").read_text("utf-8").strip()
    return PromptFile(package, name, text)


def prompt_hash(parts: Iterable[str]) -> str:
    """SHA-256 of the parts, each length-prefixed, as hex."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode()
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def contract_hash(files: Sequence[PromptFile], schema: type[BaseModel] | None = None) -> str:
    """The hash of a prompt contract: the prompt files it used and the reply schema."""
    parts = [part for file in files for part in (file.name, file.text)]
    if schema is not None:
        parts.append(json.dumps(schema.model_json_schema(), sort_keys=True))
    return prompt_hash(parts)
