"""The model's side of the incident: a sensible reply for each step, and a server that cites.

A reply may write ``{{cite:TEXT}}``: `CitingModelServer` replaces it with the label of the first
excerpt the bot quoted to the model that contains TEXT, as a model reading its prompt would, so
the citations hold whatever the knowledge service's chunking makes of the log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from domain.engine.second_look import SecondLookReply
from tests.fakes.models.llm_server import FakeLLMServer, Scripted, reply
from tests.integration.bot.incident_story import DAY, LOG_NAME
from tests.integration.engine.thread import json_reply

STATEMENT = (
    "checkout-api (namespace shop) returns HTTP 502 on ~18% of POST /api/checkout since 14:05 UTC"
)
CITED = ("maximumPoolSize=50", "maximumPoolSize=10", "Connection is not available")
"""What the root cause cites: the old pool, the new pool, the timeouts."""
_CITE = re.compile(r"\{\{cite:([^}]+)\}\}")
_EXCERPT = re.compile(r'<data kind="[^"]*" cite="([^"]+)">\n(.*?)\n</data>', re.DOTALL)


def statement_reply() -> Scripted:
    """Consulting: triage, and the problem statement to confirm."""
    return json_reply(
        "Failed checkouts lose orders, so I'm treating this as high severity: the problem as I "
        "understand it is below.",
        problem_confirmation={
            "problem_type": "error",
            "severity_guess": "HIGH",
            "affected_components": ["checkout-api"],
            "impact": "about 18% of checkouts fail with 502",
            "investigation_approach": "line the first errors up with recent changes",
        },
        proposed_problem_statement=STATEMENT,
    )


LOGS_REQUEST: dict[str, Any] = {
    "label": "checkout-api application log since 13:40",
    "description": (
        "The exception behind each 502, and each pod's startup lines, which log the "
        "connection pool and timeout settings."
    ),
    "category": "symptoms",
    "guidance": {
        "commands": [
            "kubectl logs -n shop -l app=checkout-api --since=45m --max-log-requests=10",
            "kubectl rollout history deploy/checkout-api -n shop",
        ],
        "alternatives": ['Loki: {namespace="shop", app="checkout-api"} from 13:40'],
        "expected_output": "the error logged with each 502, and the settings each pod started with",
    },
}


def logs_request_reply() -> Scripted:
    """Investigating: the first evidence to collect, with read-only commands."""
    return json_reply(
        "502s that start two minutes after a rollout window usually follow a change. The "
        "application log will say what fails, and its startup lines what changed.",
        evidence_requests=[LOGS_REQUEST],
        outcome="data_requested",
    )


ROOT_CAUSE = {
    "root_cause": (
        "The 14:03 rollout of checkout-api v2.15.0 cut the database pool (maximumPoolSize) "
        "from 50 to 10 connections"
    ),
    "confidence_score": 0.9,
    "mechanism": (
        "With 10 connections, checkouts queue for the pool; a request that waits 30 s gives up "
        "(connectionTimeout=30000) and the API answers 502"
    ),
    "evidence_basis": ["E1", "E2"],
    "missing_evidence": ["the database's own connection count, to rule out a database limit"],
    "contributing_factors": ["nothing alerts on a saturated pool"],
}
ROLLBACK = {
    "solution_type": "rollback",
    "title": "Roll checkout-api back to v2.14.0",
    "is_mitigation": True,
    "immediate_action": "Roll the deployment back to its previous revision (pool of 50)",
    "implementation_steps": [
        "roll deploy/checkout-api in shop back to the previous revision",
        "watch the 502 rate on POST /api/checkout fall to zero",
    ],
    "commands": [
        "kubectl rollout undo deploy/checkout-api -n shop",
        "kubectl rollout status deploy/checkout-api -n shop",
    ],
    "risks": ["anything else v2.15.0 shipped is rolled back too"],
}
FIX = {
    "solution_type": "config_change",
    "title": "Restore maximumPoolSize to 50",
    "longterm_fix": (
        "Set spring.datasource.hikari.maximum-pool-size back to 50 in checkout-api's prod "
        "profile before re-releasing v2.15.0, and alert when the pool stays saturated"
    ),
    "implementation_steps": [
        "restore the pool size in the prod profile",
        "alert on hikaricp_connections_pending > 0 for 1 minute",
    ],
}


def verification(day: str) -> dict[str, Any]:
    """What the log verifies about the problem, on the story's day."""
    return {
        "symptom_indicators": ["HikariPool-1 connection timeouts after 30000ms from 14:05"],
        "affected_services": ["checkout-api"],
        "affected_users": "~18% of checkouts",
        "severity": "HIGH",
        "started_at": f"{day}T14:05:00Z",
        "temporal_state": "ongoing",
        "recent_changes": [
            {
                "description": "checkout-api v2.15.0 rolled out (maximumPoolSize 50 → 10)",
                "occurred_at": f"{day}T14:03:05Z",
                "change_type": "deployment",
            }
        ],
    }


EVIDENCE = [
    {
        "ref": "E1",
        "summary": "v2.14.0 started with maximumPoolSize=50; v2.15.0 at 14:03 with 10",
        "analysis": "the rollout cut the pool to a fifth",
    },
    {
        "ref": "E2",
        "summary": "From 14:05, HikariPool-1 timeouts after 30000ms, each one a 502",
        "analysis": "the 502s are requests that waited 30 s for a connection",
    },
]


def root_cause_reply(day: str = DAY, *, answers: Sequence[str] = ()) -> Scripted:
    """Investigating: the log read and cited by line; root cause, mitigation and fix.

    ``answers`` are the open evidence requests the log fulfils (the model sees their ids).
    """
    classification = {
        "matched_request_ids": list(answers),
        "completeness": "complete",
        "completeness_score": 0.9,
        "form": "document",
        "evidence_type": "supportive",
        "user_intent": "providing_evidence",
        "rationale": "the application log, with the startup lines of both versions",
    }
    before, after, timeout = (f"{{{{cite:{needle}}}}}" for needle in CITED)
    return json_reply(
        "The 14:03 rollout shrank the database pool, and the 502s are checkouts that gave up "
        "waiting for a connection:\n"
        f"• v2.14.0 started with `maximumPoolSize=50`{before}\n"
        f"• v2.15.0 started with `maximumPoolSize=10`{after}\n"
        "• from 14:05, `Connection is not available, request timed out after 30000ms`, each "
        f"answered with a 502{timeout}",
        milestones={
            "symptom_verified": True,
            "timeline_established": True,
            "changes_identified": True,
            "root_cause_identified": True,
        },
        verification_updates=verification(day),
        evidence_to_add=EVIDENCE,
        root_cause_conclusion=ROOT_CAUSE,
        solutions_to_add=[ROLLBACK, FIX],
        classification=classification if answers else None,
        outcome="milestone_completed",
        citations=[before, after, timeout],
    )


def second_look_reply() -> Scripted:
    """The second look at a confident root cause: each link shown by evidence the case holds."""
    links = [
        {"claim": "the rollout cut the pool from 50 to 10", "evidence": ["E1"], "shown": True},
        {"claim": "checkouts time out waiting for a connection", "evidence": ["E2"], "shown": True},
    ]
    return reply(SecondLookReply.model_validate({"links": links, "supported_confidence": 0.9}))


def resolved_reply() -> Scripted:
    """The engineer says they rolled back and the 502s are gone: the model reports the mitigation
    applied and shown to work by what they said (the bot records both, then asks to resolve)."""
    return json_reply(
        "No 502s since the rollback fits the cause. The pool fix still has to ship before "
        "v2.15.0 goes out again.",
        evidence_to_add=[
            {
                "ref": "E3",
                "summary": "No errors on POST /api/checkout for 5 minutes after the 14:18 rollback",
                "analysis": "the rollback stopped the 502s",
            }
        ],
        milestones={"mitigation_applied": True, "solution_verified": True},
        verification_evidence_id="E3",
        outcome="milestone_completed",
        status_change_request={
            "to_status": "resolved",
            "reason": "the 502s stopped after the rollback",
            "resolution_summary": "Rolled checkout-api back to v2.14.0 (pool of 50)",
        },
    )


CASE_REPORT = f"""# checkout-api 502s after the 14:03 rollout

## Summary
From 14:05 to 14:18 UTC about 18% of `POST /api/checkout` requests failed with HTTP 502.
The 14:03 rollout of checkout-api v2.15.0 cut the database pool from 50 to 10 connections.

## Timeline (UTC)
- 14:03 v2.15.0 rolled out; it starts with `maximumPoolSize=10` (`{LOG_NAME}:21`)
- 14:05 first `HikariPool-1 - Connection is not available` timeouts, each answered with 502
- 14:09 on-call opens the case
- 14:18 checkout-api rolled back to v2.14.0; the 502s stop

## Root cause
The pool size came down from 50 to 10 in v2.15.0's prod profile. Checkouts queue for a
connection and give up after `connectionTimeout=30000`.

## Fix
Restore `maximumPoolSize` to 50 before re-releasing v2.15.0; alert on a saturated pool.
"""

RUNBOOK = """# Runbook: 502s from a Spring service whose database pool is exhausted

## Symptoms
- 502s on write endpoints, with latency near the pool's connection timeout (30 s)
- `HikariPool-1 - Connection is not available, request timed out after 30000ms` in the log

## Diagnosis
1. `kubectl logs -n $NAMESPACE -l app=$SERVICE --since=1h`: compare the `maximumPoolSize`
   each pod started with.
2. `kubectl rollout history deploy/$SERVICE -n $NAMESPACE`: did a rollout come just before?

## Mitigation
Roll the deployment back to its previous revision, then watch
`kubectl rollout status deploy/$SERVICE -n $NAMESPACE`.

## Prevention
Alert on `hikaricp_connections_pending > 0` for a minute; review pool settings in config diffs.
"""


def documents_replies() -> tuple[Scripted, Scripted]:
    """The case report, then the runbook (free text)."""
    return reply(CASE_REPORT), reply(RUNBOOK)


class CitingModelServer(FakeLLMServer):
    """The fake OpenAI server, resolving ``{{cite:TEXT}}`` against the prompt it is sent."""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        head = self.queue[0] if self.queue else None
        if head is not None and head.content and _CITE.search(head.content):
            body = await request.json()
            content = resolve_citations(head.content, quoted_excerpts(body["messages"]))
            self.queue[0] = Scripted(content=content)
        return await super()._handle(request)


def quoted_excerpts(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, text) of every excerpt fenced in the prompt, in order."""
    text = "\n".join(str(m.get("content") or "") for m in messages)
    return [(m.group(1), m.group(2)) for m in _EXCERPT.finditer(text)]


def resolve_citations(content: str, excerpts: list[tuple[str, str]]) -> str:
    """The reply with each ``{{cite:TEXT}}`` resolved to the label of the first excerpt holding
    TEXT (line excerpts before whole-file summaries): `` (`label`)`` in the text, ``label`` in
    the citations; a TEXT no excerpt holds is left out of both, as a model cites what it read."""
    ranked = sorted(excerpts, key=lambda excerpt: ":" not in excerpt[0])

    def label(needle: str) -> str | None:
        return next((cite for cite, text in ranked if needle in text), None)

    def in_text(match: re.Match[str]) -> str:
        found = label(match.group(1))
        return f" (`{found}`)" if found else ""

    body = json.loads(content)
    body["agent_response"] = _CITE.sub(in_text, body["agent_response"])
    cited = [label(match.group(1)) for match in map(_CITE.fullmatch, body["citations"]) if match]
    body["citations"] = [found for found in cited if found]
    return json.dumps(body)
