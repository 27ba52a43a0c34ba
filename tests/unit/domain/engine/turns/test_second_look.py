"""A confident root cause gets a second look against what the case holds: it only ever goes down."""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine.second_look import NONE_SHOWN_CAP, SOME_UNSHOWN_CAP, SecondLookReply
from domain.investigation.conclusions import ConfidenceLevel
from domain.llm import LLMReplyInvalidError, LLMTimeoutError, ModelTier
from tests.fakes.models.llm import ScriptedLLM
from tests.unit.domain.builders import add_evidence
from tests.unit.domain.engine.apply.investigation_cases import verified_case
from tests.unit.domain.engine.helpers import Rig, investigating, said

CAUSE = "The v4.12 deploy cut the database pool maximum from 50 to 10"


def root_cause(confidence: float = 0.9, cites: list[str] | None = None) -> dict[str, Any]:
    return {
        "root_cause": CAUSE,
        "confidence_score": confidence,
        "mechanism": "requests wait for a connection and time out",
        "evidence_basis": cites or [],
    }


def verdict(*links: tuple[str, list[str], bool], supported: float = 0.9) -> SecondLookReply:
    return SecondLookReply.model_validate(
        {
            "links": [{"claim": c, "evidence": e, "shown": s} for c, e, s in links],
            "supported_confidence": supported,
        }
    )


async def test_an_overreaching_root_cause_is_lowered_and_its_gap_named() -> None:
    rig, case = Rig(), verified_case()
    stated = investigating("Root cause: the pool.", root_cause_conclusion=root_cause(cites=["E9"]))
    check = verdict(("the deploy changed the pool maximum", [], False), supported=0.5)

    result = await rig.turn(case, said("what is it?"), stated, check)

    conclusion = result.case.root_cause_conclusion
    assert conclusion is not None
    assert conclusion.confidence_score == NONE_SHOWN_CAP
    assert conclusion.confidence_level is ConfidenceLevel.SPECULATION
    assert "not shown yet: the deploy changed the pool maximum" in conclusion.missing_evidence
    assert "not shown yet: the deploy changed the pool maximum" in result.reply.text
    assert "instead of 90%" in result.reply.text
    note = result.reply.debug.second_look
    assert note is not None
    assert (note.before, note.after) == (0.9, NONE_SHOWN_CAP)
    assert result.answer is not None  # applied again on a conflict: lowered, not asked again
    assert "not shown yet" in result.answer.agent_response


async def test_the_check_is_a_fast_call_recorded_for_the_case_with_the_held_evidence() -> None:
    rig, case = Rig(), verified_case()
    held = add_evidence(case)
    stated = investigating(
        evidence_to_add=[{"ref": "E1", "summary": "pool max 10 in the v4.12 values"}],
        root_cause_conclusion=root_cause(cites=["E1", "deploy-diff"]),
    )
    check = verdict(("pool max cut to 10", ["E1"], True))

    await rig.turn(case, said("here"), stated, check)

    call = rig.llm.calls[1]
    assert (call.tier, call.template, call.schema) == (
        ModelTier.FAST,
        "second_look",
        SecondLookReply,
    )
    assert call.case_id == case.case_id
    quoted = call.messages[-1].content
    assert f"{held.evidence_id}: 500s in app.log" in quoted
    assert "E1: pool max 10 in the v4.12 values" in quoted
    assert "deploy-diff (not held by the case)" in quoted
    assert "E1 (held)" in quoted


async def test_a_supported_root_cause_is_shown_as_the_model_gave_it() -> None:
    rig, case = Rig(), verified_case()
    stated = investigating(
        "Root cause: the pool.",
        evidence_to_add=[{"ref": "E1", "summary": "pool max 10 in the v4.12 values"}],
        root_cause_conclusion=root_cause(cites=["E1"]),
    )
    check = verdict(("pool max cut to 10", ["E1"], True), supported=0.6)

    result = await rig.turn(case, said("here"), stated, check)

    assert result.case.root_cause_conclusion.confidence_score == 0.9  # type: ignore[union-attr]
    assert result.reply.text == "Root cause: the pool."
    assert result.reply.debug.second_look.after == 0.9  # type: ignore[union-attr]


async def test_a_link_said_shown_by_evidence_the_case_lacks_is_not_shown() -> None:
    rig, case = Rig(), verified_case()
    stated = investigating(
        evidence_to_add=[{"ref": "E1", "summary": "timeouts waiting for a connection"}],
        root_cause_conclusion=root_cause(cites=["E1"]),
    )
    check = verdict(
        ("requests time out waiting for a connection", ["E1"], True),
        ("the deploy cut the pool maximum", ["deploy-diff"], True),
    )

    result = await rig.turn(case, said("here"), stated, check)

    assert result.case.root_cause_conclusion.confidence_score == SOME_UNSHOWN_CAP  # type: ignore[union-attr]
    assert "not shown yet: the deploy cut the pool maximum" in result.reply.text
    assert "requests time out" not in result.reply.text


async def test_a_root_cause_below_confident_is_not_checked() -> None:
    rig, case = Rig(), verified_case()

    result = await rig.turn(case, said("?"), investigating(root_cause_conclusion=root_cause(0.69)))

    assert len(rig.llm.calls) == 1
    assert result.reply.debug.second_look is None


async def test_a_root_cause_restated_no_more_confident_is_not_checked_again() -> None:
    rig, case = Rig(), verified_case()
    first = await rig.turn(
        case,
        said("?"),
        investigating(root_cause_conclusion=root_cause(cites=["E9"])),
        verdict(("the deploy cut the pool", [], False)),
    )

    await rig.turn(
        first.case, said("so?"), investigating(root_cause_conclusion=root_cause(NONE_SHOWN_CAP))
    )

    assert [c.template for c in rig.llm.calls] == ["investigating", "second_look", "investigating"]


async def test_without_a_model_nothing_is_checked() -> None:
    rig = Rig(llm=ScriptedLLM(enabled=False))

    result = await rig.turn(verified_case(), said("what is it?"))

    assert rig.llm.calls == []
    assert result.reply.debug.second_look is None


@pytest.mark.parametrize("error", [LLMTimeoutError("slow"), LLMReplyInvalidError("garbage")])
async def test_a_failed_second_look_leaves_the_root_cause_as_given(error: Exception) -> None:
    rig, case = Rig(), verified_case()
    stated = investigating("Root cause: the pool.", root_cause_conclusion=root_cause(cites=["E9"]))

    result = await rig.turn(case, said("what is it?"), stated, error)

    assert result.case.root_cause_conclusion.confidence_score == 0.9  # type: ignore[union-attr]
    assert result.reply.text == "Root cause: the pool."
    assert result.reply.debug.second_look.failed  # type: ignore[union-attr]
    assert result.reply.debug.llm_outcome == "ok"
