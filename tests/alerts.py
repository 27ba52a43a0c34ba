"""The real Alertmanager payloads in `tests/data/alerts/`, and alerts built from real rules.

* `sample(name)`: a webhook notification as the prometheus-msteams project recorded it (v4).
* `resolved(payload)`: the same notification as Alertmanager sends it once the group resolves
  (status and every alert resolved, `endsAt` set); no resolved sample exists in the data.
* `rule_notification(...)`: a notification of a kube-prometheus alerting rule, with the rule's own
  labels and annotations (templates filled in) plus the labels a firing series would carry.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from functools import cache
from typing import Any

import yaml

from tests.paths import ALERTS

MSTEAMS = ALERTS / "prometheus-msteams"
RULES = ALERTS / "kube-prometheus-rules"

SINGLE = "alert_testdata_prom_post_request"
TWO = "alert_testdata_prom_post_request_2_alerts"
TWELVE = "alert_testdata_prom_post_request_12_alerts"
LARGE = "alert_testdata_large_prom_post_request"
NO_COMMON_SUMMARY = "alert_testdata_prom_post_request_without_common_summary"
WITH_LABEL = "alert_testdata_prom_post_request_label"
SAMPLES = (SINGLE, TWO, TWELVE, LARGE, NO_COMMON_SUMMARY, WITH_LABEL)
ENDED_AT = "2018-03-07T07:10:00Z"
Json = dict[str, Any]


def sample(name: str) -> Json:
    """A recorded notification, parsed."""
    data: Json = json.loads((MSTEAMS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def sample_bytes(name: str) -> bytes:
    """A recorded notification exactly as it was sent."""
    return (MSTEAMS / f"{name}.json").read_bytes()


def resolved(payload: Json, *, ended_at: str = ENDED_AT) -> Json:
    """The notification Alertmanager sends when the same group has resolved."""
    done = copy.deepcopy(payload)
    done["status"] = "resolved"
    for alert in done["alerts"]:
        alert["status"] = "resolved"
        alert["endsAt"] = ended_at
    return done


@cache
def _rules() -> dict[str, Json]:
    found: dict[str, Json] = {}
    for path in sorted(RULES.glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for group in document["spec"]["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    found.setdefault(rule["alert"], rule)
    return found


def rule(alertname: str) -> Json:
    """A kube-prometheus alerting rule by its alert name."""
    return _rules()[alertname]


def rule_notification(
    alertname: str,
    labels: dict[str, str],
    *,
    value: float = 1.0,
    starts_at: str = "2026-11-21T14:05:00Z",
    receiver: str = "faultmaven",
) -> Json:
    """A v4 notification of one alert of a real rule, as Alertmanager would send it."""
    definition = rule(alertname)
    all_labels = {"alertname": alertname, **definition.get("labels", {}), **labels}
    annotations = {
        key: _fill(text, all_labels, value) for key, text in definition["annotations"].items()
    }
    group_labels = {"alertname": alertname, "namespace": all_labels.get("namespace", "")}
    group_key = "{}:" + json.dumps(group_labels, sort_keys=True)
    return {
        "version": "4",
        "groupKey": group_key,
        "truncatedAlerts": 0,
        "status": "firing",
        "receiver": receiver,
        "groupLabels": group_labels,
        "commonLabels": all_labels,
        "commonAnnotations": annotations,
        "externalURL": "http://alertmanager.monitoring.svc:9093",
        "alerts": [
            {
                "status": "firing",
                "labels": all_labels,
                "annotations": annotations,
                "startsAt": starts_at,
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus.monitoring.svc:9090/graph?g0.expr=up",
                "fingerprint": hashlib.sha256(
                    json.dumps(all_labels, sort_keys=True).encode()
                ).hexdigest()[:16],
            }
        ],
    }


def _fill(template: str, labels: dict[str, str], value: float) -> str:
    """Prometheus' annotation templates, for the few forms the rules use."""
    text = re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)
    text = re.sub(r'\{\{\s*printf\s+"%\.2f"\s+\$value\s*\}\}', f"{value:.2f}", text)
    return re.sub(r"\{\{\s*\$value[^}]*\}\}", f"{value:g}", text)


def crash_looping(*, namespace: str = "payments", pod: str = "payments-api-7d9f8-x2k4q") -> Json:
    """KubePodCrashLooping for a deployment's pod in production."""
    return rule_notification(
        "KubePodCrashLooping",
        {
            "namespace": namespace,
            "pod": pod,
            "container": "api",
            "reason": "CrashLoopBackOff",
            "cluster": "prod-eu-1",
            "environment": "production",
            "priority": "P1",
            "risk_tolerance": "medium",
            "business_category": "revenue-critical",
            "job": "kube-state-metrics",
        },
    )
