"""manifest.yml is a valid Slack app manifest."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT.parent / "shared" / "data" / "slack" / "manifest.schema.1.0.0.json"


def _manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text())


def test_manifest_matches_slacks_schema():
    jsonschema.validate(_manifest(), json.loads(SCHEMA.read_text()))


def test_manifest_declares_the_fm_command_and_both_shortcuts():
    features = _manifest()["features"]
    assert [c["command"] for c in features["slash_commands"]] == ["/fm"]
    assert {s["name"] for s in features["shortcuts"]} == {"Investigate", "Score investigation"}
    assert all(s["type"] == "message" for s in features["shortcuts"])


def test_manifest_subscribes_to_the_events_of_the_design():
    events = set(_manifest()["settings"]["event_subscriptions"]["bot_events"])
    assert events == {"message.channels", "message.groups", "app_home_opened"}
