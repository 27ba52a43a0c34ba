"""One loader and one hash for every prompt file: engine, workflows, judge and retrieval."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from domain.prompt_files import PromptFile, contract_hash, load_prompt, prompt_hash
from tests.paths import REPO_ROOT

PROMPT_FOLDERS = {
    "domain.engine.templates": "domain/engine/templates",
    "domain.workflows.templates": "domain/workflows/templates",
    "domain.scoring.templates": "domain/scoring/templates",
    "rag.prompts": "rag/prompts",
}


class Reply(BaseModel):
    """A reply schema."""

    answer: str


@pytest.mark.parametrize(("package", "folder"), PROMPT_FOLDERS.items())
def test_every_prompt_file_of_every_package_loads(package: str, folder: str) -> None:
    names = sorted(p.stem for p in (REPO_ROOT / folder).glob("*.md"))

    loaded = [load_prompt(package, name) for name in names]

    assert names
    assert all(p.text and p.text == p.text.strip() for p in loaded)


def test_a_contracts_hash_changes_with_any_prompt_text_or_the_schema() -> None:
    one = PromptFile("p", "system", "You are an SRE.")
    two = PromptFile("p", "system", "You are an SRE!")

    assert contract_hash([one]) != contract_hash([two])
    assert contract_hash([one]) != contract_hash([one], Reply)
    assert contract_hash([one], Reply) == contract_hash([one], Reply)


def test_parts_are_length_prefixed_so_no_two_splits_hash_alike() -> None:
    assert prompt_hash(["ab", "c"]) != prompt_hash(["a", "bc"])


def test_no_other_module_reads_prompt_files() -> None:
    readers = [
        str(path.relative_to(REPO_ROOT))
        for package in ("bot", "domain", "rag", "storage", "evals")
        for path in (REPO_ROOT / package).rglob("*.py")
        if "resources.files(" in path.read_text() and path.name != "prompt_files.py"
    ]

    assert readers == []


def test_an_unknown_prompt_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        load_prompt("rag.prompts", "no_such_prompt")
