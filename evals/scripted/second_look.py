"""The scripted second look: checks a root cause's citations against what the case holds.

It reads the check's prompt as a careful model would, but only its facts: which of the cited
labels the case holds. Each cited label is one link of the causal chain, shown when held; what
the root cause cites and the case does not hold is a link not shown yet, named after the
scenario's item of that name when there is one (the scripted investigators cite items by name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.engine.second_look import SecondLookReply
from domain.llm import ChatMessage
from evals.scenario import Scenario

_CITES = re.compile(r"^It cites: (.*)$", re.M)
_CITE = re.compile(r"([^,()]+?) \((held|not held by the case)\)")
_STATED = re.compile(r"^Root cause \(stated confidence ([0-9.]+)\): (.*)$", re.M)
CLAIM_CHARS = 200


def check(scenario: Scenario, messages: Sequence[ChatMessage]) -> SecondLookReply:
    """One link per cited label, shown when the case holds it; the whole claim when none."""
    prompt = messages[-1].content if messages else ""
    stated = _STATED.search(prompt)
    confidence = float(stated.group(1)) if stated else 1.0
    statement = stated.group(2) if stated else "the root cause"
    cites = _CITES.search(prompt)
    cited = _CITE.findall(cites.group(1)) if cites else []
    names = {item.name: item.description for item in scenario.shared}
    links = [
        {
            "claim": names.get(label.strip(), f"what {label.strip()} shows")[:CLAIM_CHARS],
            "evidence": [label.strip()] if held == "held" else [],
            "shown": held == "held",
        }
        for label, held in cited
    ]
    if not links:
        links = [{"claim": statement[:CLAIM_CHARS], "evidence": [], "shown": False}]
    return SecondLookReply.model_validate({"links": links[:6], "supported_confidence": confidence})
