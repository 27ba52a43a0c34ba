"""What a scripted investigator reads in the engine's prompt: ids, uploads and the case state.

A real model reads the same text; the scripted ones only pick out what they need with patterns
(the case state lists every id the model may use, one per line).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from domain.llm import ChatMessage

_OPEN = re.compile(r"^- (req_\w+) \[[^\]]*\] (.+?): ", re.M)
_BLOCKED = re.compile(r"^- (req_\w+) (?!\[)(.+?) \(", re.M)
_UPLOAD = re.compile(r"Uploaded file (file_\w+): (.+?) \(\d+ bytes\)")
_EVIDENCE = re.compile(r"^- (ev_\w+) \[", re.M)
_SOLUTION = re.compile(r"^- (sol_\w+) \[(mitigation|permanent fix) · (\w+)\]", re.M)
_ROOT_CAUSE = re.compile(r"^Root cause: ", re.M)
EVIDENCE_TOOL = "scenario__read_evidence"


@dataclass(frozen=True)
class PromptView:
    """The parts of one prompt a scripted investigator acts on."""

    template: str
    case_state: str
    new_input: str
    open_requests: list[tuple[str, str]]
    """(request id, label) of open evidence requests."""
    blocked_requests: list[tuple[str, str]]
    uploads: list[tuple[str, str]]
    """(file id, file name) shared this turn."""
    evidence_ids: list[str]
    solutions: list[tuple[str, bool, str]]
    """(solution id, is a mitigation, proposed | applied | verified)."""
    has_root_cause: bool
    reads_evidence: bool = False
    """The scenario's evidence is offered as a tool (`scenario__read_evidence`)."""

    def open_id(self, label: str) -> str | None:
        """The id of the open request with this label."""
        return next((i for i, lab in self.open_requests if lab == label), None)

    def blocked(self, label: str) -> bool:
        """Whether the request with this label was reported unavailable."""
        return any(lab == label for _, lab in self.blocked_requests)


def read_prompt(template: str, messages: Sequence[ChatMessage]) -> PromptView:
    """Pick the ids and inputs out of the rendered prompt."""
    system = next((m.content for m in messages if m.role == "system"), "")
    new_input = messages[-1].content if messages else ""
    blocked_part = system.split("Blocked evidence requests", 1)
    blocked = _BLOCKED.findall(blocked_part[1]) if len(blocked_part) == 2 else []
    return PromptView(
        template=template,
        case_state=system,
        new_input=new_input,
        open_requests=_OPEN.findall(blocked_part[0]),
        blocked_requests=blocked,
        uploads=_UPLOAD.findall(new_input),
        evidence_ids=_EVIDENCE.findall(system),
        solutions=[
            (i, kind == "mitigation", state) for i, kind, state in _SOLUTION.findall(system)
        ],
        has_root_cause=bool(_ROOT_CAUSE.search(system)),
        reads_evidence=EVIDENCE_TOOL in system,
    )
