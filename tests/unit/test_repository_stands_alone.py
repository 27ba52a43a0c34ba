"""The repository stands on its own: nothing in it names a place outside a fresh clone."""

from __future__ import annotations

import csv
import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from tests import paths

ROOT = Path(__file__).resolve().parents[2]
# Folders beside the repository that only some machines have, and this machine's own paths.
OUTSIDE = re.compile(r"\.\.[/\\]+shared\b|\bshared[/\\](?:data|seeds)\b|(?<![\w.~-])/(?:work)/")
# `Path(__file__).resolve().parents[N].parent…`: how many folders up from the file's own folder.
FILE_CHAIN = re.compile(
    r"Path\(__file__\)(?:\.resolve\(\))?(?:\.parents\[(?P<n>\d+)\])?(?P<up>(?:\.parent\b)*)"
)
ROOT_PARENT = re.compile(r"\b\w*ROOT\.parent\b")
# Written by the project (the command corpus cites each tool's documentation per group).
OWN_DATA = ("workflows/", "workflows-broken/", "commands/", "incidents/", "SOURCES.csv")


def escapes(path: str, text: str) -> list[str]:
    """Each line of `text` (the file at repository path `path`) that names a place outside."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        reasons = [f"names {m.group(0)!r}" for m in OUTSIDE.finditer(line)]
        if path.endswith(".py"):
            reasons += _python_escapes(path, line)
        found += [f"{path}:{number}: {reason}" for reason in reasons]
    return found


def _python_escapes(path: str, line: str) -> list[str]:
    depth = len(PurePosixPath(path).parts) - 1  # folders between the root and the file
    reasons = []
    for match in FILE_CHAIN.finditer(line):
        ups = match.group("up").count(".parent")
        level = int(match.group("n")) + ups if match.group("n") else ups - 1
        if level > depth:
            reasons.append(f"climbs {level - depth} folder(s) above the repository root")
    reasons += [f"climbs above the root with {m.group(0)!r}" for m in ROOT_PARENT.finditer(line)]
    return reasons


def _tracked_text_files() -> list[tuple[str, str]]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    files = []
    for name in filter(None, listed.split("\0")):
        data = (ROOT / name).read_bytes() if (ROOT / name).is_file() else b""
        if b"\0" not in data:
            files.append((name, data.decode("utf-8", errors="replace")))
    return files


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    found = [line for name, text in _tracked_text_files() for line in escapes(name, text)]

    assert found == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("README.md", "See `" + ".." + "/shared/DESIGN.md` for the full design."),
        ("docs/x.md", "the fixtures in shared" + "/data/loghub"),
        ("Makefile", "cd " + "/work" + "/main && make test"),
        ("tests/loghub.py", "DATA = Path(__file__).resolve().parents[1]" + ".parent / 'x'"),
        ("tests/fakes/a.py", "D = Path(__file__).resolve().parents[" + "3] / 'shared'"),
        ("tests/a.py", "D = Path(__file__).parent.parent" + ".parent"),
        ("tests/a.py", "SHARED = REPO_ROOT" + ".parent / 'shared'"),
    ],
)
def test_names_of_places_outside_are_found(path: str, line: str) -> None:
    assert escapes(path, line)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("tests/unit/a.py", "ROOT = Path(__file__).resolve().parents[2]"),
        ("tests/a.py", "DATA = Path(__file__).resolve().parent / 'data'"),
        ("tests/unit/a.py", "HERE = Path(__file__).parent.parent"),
        ("tests/unit/a.py", '("rm -rf /tmp/x", "deletes files recursively")'),
        ("README.md", "files are shared in the thread; `/work` is a folder name"),
        (".ci/run", 'cd "$(dirname "$0")/.."'),
    ],
)
def test_paths_inside_the_repository_and_commands_in_tests_are_not_flagged(
    path: str, line: str
) -> None:
    assert escapes(path, line) == []


def test_the_test_data_lives_inside_the_repository() -> None:
    folders = [value for value in vars(paths).values() if isinstance(value, Path)]

    assert folders
    assert all(folder.is_dir() and folder.is_relative_to(ROOT) for folder in folders)


def test_every_copied_data_file_has_its_origin_in_sources_csv() -> None:
    with (paths.TEST_DATA / "SOURCES.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    listed = {row["file"] for row in rows}
    present = {
        path.relative_to(paths.TEST_DATA).as_posix()
        for path in paths.TEST_DATA.rglob("*")
        if path.is_file()
    }
    copied = {name for name in present if not name.startswith(OWN_DATA)}

    assert listed == copied
    assert all(row["origin repository"] and row["commit"] and row["licence"] for row in rows)
