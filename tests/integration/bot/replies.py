"""Scripted model replies for the bot's end-to-end scenarios."""

from __future__ import annotations

from typing import Any

from tests.fakes.models.llm_server import Scripted
from tests.integration.engine.thread import json_reply

STATEMENT = "Payments API returns HTTP 500 for ~30% of requests since 14:05 UTC"
LOGS_REQUEST: dict[str, Any] = {
    "label": "Payments error logs",
    "description": "The errors behind the 500s, to see what fails",
    "category": "symptoms",
    "guidance": {
        "commands": [
            "kubectl logs deploy/payments --since=1h | grep ERROR",
            "kubectl delete pod -l app=payments",
        ],
        "file_locations": ["/var/log/payments/app.log"],
        "alternatives": ["Docker: docker logs payments --since 1h"],
        "expected_output": "exception names and stack traces",
    },
}


def statement_reply() -> Scripted:
    """Consulting: triage and a problem statement to confirm."""
    return json_reply(
        f"Let me confirm: *{STATEMENT}*. Is that accurate?",
        problem_confirmation={"problem_type": "error", "severity_guess": "HIGH"},
        proposed_problem_statement=STATEMENT,
    )


def chat_reply(text: str, **updates: Any) -> Scripted:
    """Any reply with the given text."""
    return json_reply(text, **updates)


def logs_request_reply() -> Scripted:
    """Investigating: ask for the logs (one unsafe command among them)."""
    return json_reply(
        "Starting the investigation. First, the error logs.",
        evidence_requests=[LOGS_REQUEST],
        outcome="data_requested",
    )
