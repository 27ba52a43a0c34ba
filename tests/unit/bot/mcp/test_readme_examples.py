"""The MCP configurations the README shows are read by the bot as written."""

from __future__ import annotations

import json
import re

import pytest

from domain.tools import parse_config
from tests.paths import REPO_ROOT


def readme_examples() -> list[dict[str, object]]:
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## Letting FaultMaven look for itself", 1)[1].split("\n## ", 1)[0]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.DOTALL)]


def test_the_readme_shows_prometheus_grafana_and_kubernetes() -> None:
    names = [name for example in readme_examples() for name in example["mcpServers"]]  # type: ignore[attr-defined]

    assert names == ["prometheus", "grafana", "kubernetes"]


@pytest.mark.parametrize("example", readme_examples())
def test_each_readme_example_loads_with_an_allowlist(example: dict[str, object]) -> None:
    referenced = re.findall(r"\$\{(\w+)\}", json.dumps(example))

    config = parse_config(example, dict.fromkeys(referenced, "value"))

    assert config.problems == ()
    [server] = config.servers
    assert server.include_tools
    assert server.transport == "stdio"
