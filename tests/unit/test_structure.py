"""The house rules a newcomer relies on, checked: short modules, small folders, plain packages.

A module over 400 lines, a folder of more than fifteen modules or a package whose code hides in
its ``__init__.py`` is where readers get lost; these caps used to be kept by hand.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "domain", "rag", "storage", "evals")
MAX_LINES = 400
MAX_MODULES = 15
"""Modules in one folder, besides its ``__init__.py`` (subpackages are folders of their own)."""


def _python(*tops: str) -> list[Path]:
    return sorted(
        path
        for top in tops
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts and "migrations" not in path.parts
    )


def _packages() -> list[Path]:
    return sorted({p.parent for p in _python(*PACKAGES) if (p.parent / "__init__.py").exists()})


def test_no_module_is_over_400_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in _python(*PACKAGES, "tests")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_folder_holds_more_than_15_modules() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): n
        for folder in _packages()
        if (n := sum(1 for p in folder.glob("*.py") if p.name != "__init__.py")) > MAX_MODULES
    }
    assert crowded == {}


@pytest.mark.parametrize(
    "init", [p / "__init__.py" for p in _packages()], ids=lambda p: str(p.relative_to(ROOT))
)
def test_each_package_says_what_it_is_and_only_re_exports(init: Path) -> None:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{init.relative_to(ROOT)} has no docstring"
    code = [node for node in tree.body[1:] if not _re_export(node)]
    assert code == [], f"{init.relative_to(ROOT)} holds code: " + ", ".join(
        type(node).__name__ for node in code
    )


def _re_export(node: ast.stmt) -> bool:
    """An import, ``__all__``, or a lazy ``__getattr__`` (and its table) importing names on use."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name == "__getattr__"
    if isinstance(node, ast.If) and _type_checking(node):
        return all(isinstance(n, ast.Import | ast.ImportFrom) for n in node.body)
    if isinstance(node, ast.Assign) and _homes(node.value):
        return True  # where each lazily imported name lives
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return bool(targets) and all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _homes(value: ast.expr) -> bool:
    return isinstance(value, ast.Dict) and all(
        isinstance(part, ast.Constant) for part in [*value.keys, *value.values]
    )


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
