"""The bot's own monitoring in deploy/: the alerting rules pass `promtool check rules` and their
own `promtool test rules` cases, the example scrape configuration passes `promtool check config`,
and every metric the rules and the Grafana dashboard query is one the bot exports."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from bot.observability.metrics import REGISTRY
from tests.binaries import binary
from tests.unit.deploy.examples import DEPLOY

PROMETHEUS = DEPLOY / "prometheus"
RULES = PROMETHEUS / "alerts.yml"
DASHBOARD = DEPLOY / "grafana" / "faultmaven.json"
METRIC = re.compile(r"\b((?:fm|process)_[a-z_]+)\b")
ALERTS = {
    "FaultMavenDown",
    "FaultMavenAcksSlow",
    "FaultMavenInboxAgeing",
    "FaultMavenModelFailing",
    "FaultMavenBudgetNearlySpent",
    "FaultMavenSlackRateLimited",
}


def exported() -> set[str]:
    """Every series name the registry exports (counters' _total, histograms' _bucket…)."""
    names = set()
    for family in REGISTRY.collect():
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(f"{family.name}_total")
        if family.type == "histogram":
            names.update(f"{family.name}_{part}" for part in ("bucket", "count", "sum"))
    return names


def promtool(*args: str, cwd: Path = PROMETHEUS) -> str:
    done = subprocess.run(
        [binary("promtool"), *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_alerting_rules_pass_promtool() -> None:
    assert "SUCCESS" in promtool("check", "rules", RULES.name)


def test_each_alert_fires_on_its_symptom_and_stays_quiet_before() -> None:
    assert "SUCCESS" in promtool("test", "rules", "alerts.test.yml")


def test_the_example_scrape_configuration_passes_promtool() -> None:
    assert "SUCCESS" in promtool("check", "config", "prometheus.yml")


def test_the_rules_watch_acks_inbox_model_and_budget() -> None:
    rules = yaml.safe_load(RULES.read_text())["groups"][0]["rules"]
    assert {rule["alert"] for rule in rules} == ALERTS


@pytest.mark.parametrize("source", [RULES, DASHBOARD], ids=lambda path: path.name)
def test_every_metric_queried_is_one_the_bot_exports(source: Path) -> None:
    queried = set(METRIC.findall(source.read_text()))
    assert queried, "it queries the bot's metrics"
    assert queried <= exported(), queried - exported()


def test_the_dashboard_is_grafana_json_with_a_prometheus_query_per_panel() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "faultmaven-slack"
    for panel in dashboard["panels"]:
        assert panel["targets"], panel["title"]
        assert all(target["expr"] for target in panel["targets"]), panel["title"]
