"""Seen before: which finished case a new one clearly repeats, and which are never offered."""

from __future__ import annotations

from collections.abc import Iterable

from domain.case import Case
from domain.engine.documents import problem_of
from domain.errors import NotFoundError
from domain.investigation.conclusions import RootCauseConclusion
from domain.lifecycle.confirmations import StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.memory import (
    DEFAULT_RULE,
    Candidate,
    CaseDocumentHit,
    Eligible,
    MatchedDocument,
    MatchRule,
    PastCaseMatch,
    SeenBefore,
    decide,
    find_seen_before,
    fixed_by,
    rank_cases,
    runbook_of,
    same_cause,
    seen_before_note,
    seen_before_notes,
    seen_before_query,
)
from domain.outcomes import Outcome, Verdict
from tests.unit.domain.builders import NOW, add_solution, answer_yes, investigating_case, later

POOL = "The deploy cut the database connection pool from 50 to 10"


class Index:
    """A CaseDocumentIndex answering with the hits a test gives, and remembering the query."""

    def __init__(self, *hits: CaseDocumentHit) -> None:
        self.hits = list(hits)
        self.queries: list[tuple[str, str]] = []

    async def search_case_documents(
        self, *, team_id: str, text: str, limit: int = 20
    ) -> list[CaseDocumentHit]:
        self.queries.append((team_id, text))
        return self.hits[:limit]


class Cases:
    """A CaseLookup over a few cases."""

    def __init__(self, cases: Iterable[Case]) -> None:
        self.cases = {case.case_id: case for case in cases}

    async def get(self, case_id: str) -> Case:
        if case_id not in self.cases:
            raise NotFoundError(case_id)
        return self.cases[case_id]


class Outcomes:
    """An OutcomeLookup: a verdict per case id."""

    def __init__(self, verdicts: dict[str, Verdict] | None = None) -> None:
        self.verdicts = verdicts or {}

    async def get(self, case_id: str) -> Outcome | None:
        verdict = self.verdicts.get(case_id)
        if verdict is None:
            return None
        return Outcome(
            team_id="T1",
            case_id=case_id,
            verdict=verdict,
            reason="test",
            finished_at=NOW,
            recorded_at=NOW,
        )


def past(short_id: str, *, fix: str = "Rolled back to v4.11.3", team: str = "T1") -> Case:
    """A resolved case with a root cause, whose resolver said what fixed it."""
    case = investigating_case()
    case.short_id, case.team_id, case.thread_ts = short_id, team, f"17000{len(short_id)}.0001"
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=POOL, confidence_score=0.8, mechanism="requests wait for a connection"
    )
    payload = StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary=fix)
    answer_yes(case, propose(case, payload, now=NOW))
    case.documentation.runbook_entry = f"Runbook: pool ({short_id})"
    case.documentation.artifacts.runbook_generated = "# Runbook: pool\n"
    return case


def closed_without_fix(short_id: str) -> Case:
    """A case closed without a fix (its root cause stated all the same)."""
    case = investigating_case()
    case.short_id = short_id
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=POOL, confidence_score=0.8, mechanism="requests wait"
    )
    payload = StatusChangePayload(to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.OTHER)
    answer_yes(case, propose(case, payload, now=NOW))
    assert case.status is CaseStatus.CLOSED
    return case


def hit(case: Case, similarity: float, *, title: str = "Case report: pool") -> CaseDocumentHit:
    return CaseDocumentHit(case_id=case.case_id, title=title, similarity=similarity)


def new_case() -> Case:
    case = investigating_case()
    case.consulting.proposed_problem_statement = "checkout 502s since the release"
    return case


async def seen(
    case: Case, hits: list[CaseDocumentHit], cases: list[Case], **verdicts: Verdict
) -> PastCaseMatch | None:
    return await find_seen_before(
        case=case,
        index=Index(*hits),
        cases=Cases(cases),
        outcomes=Outcomes(
            {c.case_id: verdicts[c.short_id] for c in cases if c.short_id in verdicts}
        ),
    )


async def test_a_resolved_case_that_clearly_matches_is_offered_with_what_fixed_it() -> None:
    earlier = past("FM-7K3Q")
    runbook = hit(earlier, 0.81, title="Runbook: pool (FM-7K3Q)")

    match = await find_seen_before(
        case=new_case(),
        index=Index(runbook, hit(earlier, 0.7)),
        cases=Cases([earlier]),
        outcomes=Outcomes({earlier.case_id: Verdict.RIGHT}),
    )

    assert match is not None
    assert (match.short_id, match.channel_id, match.thread_ts) == (
        "FM-7K3Q",
        earlier.channel_id,
        earlier.thread_ts,
    )
    assert match.root_cause == POOL
    assert match.fixed_by == "Rolled back to v4.11.3"
    assert match.resolved_at == earlier.resolved_at
    assert (match.score, match.margin, match.verdict) == (0.81, None, Verdict.RIGHT)
    assert match.document is MatchedDocument.RUNBOOK
    assert match.runbook_title == "Runbook: pool (FM-7K3Q)"


async def test_a_past_case_graded_wrong_is_never_offered_however_close() -> None:
    wrong = past("FM-WRNG")

    assert await seen(new_case(), [hit(wrong, 0.99)], [wrong], **{"FM-WRNG": Verdict.WRONG}) is None


async def test_a_wrong_past_case_is_left_out_before_the_next_one_is_weighed() -> None:
    wrong, right = past("FM-WRNG"), past("FM-RGHT")
    hits = [hit(wrong, 0.9), hit(right, 0.8)]

    match = await seen(new_case(), hits, [wrong, right], **{"FM-WRNG": Verdict.WRONG})

    assert match is not None
    assert match.short_id == "FM-RGHT"


async def test_a_case_closed_without_a_fix_is_not_offered() -> None:
    closed = closed_without_fix("FM-CLSD")

    assert await seen(new_case(), [hit(closed, 0.95)], [closed]) is None


async def test_a_dissimilar_past_case_is_not_offered() -> None:
    other = past("FM-OTHR")

    assert await seen(new_case(), [hit(other, DEFAULT_RULE.threshold - 0.01)], [other]) is None


async def test_two_past_cases_of_different_causes_alike_are_not_guessed_between() -> None:
    one, two = past("FM-0001"), past("FM-0002")
    two.root_cause_conclusion = RootCauseConclusion(
        root_cause="A memory leak in the checkout worker", confidence_score=0.8, mechanism="m"
    )
    hits = [hit(one, 0.80), hit(two, 0.80 - DEFAULT_RULE.margin / 2)]

    assert await seen(new_case(), hits, [one, two]) is None


async def test_the_case_itself_another_workspace_and_forgotten_cases_are_skipped() -> None:
    case = new_case()
    elsewhere = past("FM-ELSE", team="T2")
    gone = past("FM-GONE")
    hits = [
        CaseDocumentHit(case_id=case.case_id, title="Case report: itself", similarity=1.0),
        hit(elsewhere, 0.95),
        hit(gone, 0.9),
    ]

    assert await seen(case, hits, [elsewhere]) is None


async def test_the_search_is_by_the_workspace_and_the_confirmed_problem() -> None:
    case = new_case()
    case.title = "KubePodCrashLooping checkout"
    index = Index()

    await find_seen_before(case=case, index=index, cases=Cases([]), outcomes=Outcomes())

    assert index.queries == [("T1", seen_before_query(case))]
    assert problem_of(case) in index.queries[0][1]
    assert "KubePodCrashLooping" in index.queries[0][1]


def test_each_past_case_counts_once_by_its_best_excerpt() -> None:
    one, two = past("FM-0001"), past("FM-0002")

    ranked = rank_cases([hit(one, 0.5), hit(two, 0.7), hit(one, 0.9)])

    assert [(c.case_id, c.score) for c in ranked] == [(one.case_id, 0.9), (two.case_id, 0.7)]


async def test_an_incident_that_recurred_offers_its_newest_case_and_names_the_others() -> None:
    first, second = past("FM-0001"), past("FM-0002")
    second.resolved_at = later(60 * 24 * 30)
    hits = [hit(first, 0.80), hit(second, 0.79)]

    match = await seen(new_case(), hits, [first, second])

    assert match is not None
    assert match.short_id == "FM-0002"
    assert match.also_seen == ["FM-0001"]
    assert match.margin is None
    assert "FM-0002 (the same incident as FM-0001), resolved" in seen_before_note(match)


async def test_a_match_leads_the_next_cause_by_the_margin() -> None:
    rule = MatchRule(threshold=0.6, margin=0.1)
    best, other = past("FM-BEST"), past("FM-OTHR")
    other.root_cause_conclusion = RootCauseConclusion(
        root_cause="An expired TLS certificate on the ingress", confidence_score=0.8, mechanism="m"
    )
    index = Index(hit(best, 0.8), hit(other, 0.6))
    lookup, outcomes = Cases([best, other]), Outcomes()

    match = await find_seen_before(
        case=new_case(), index=index, cases=lookup, outcomes=outcomes, rule=rule
    )

    assert match is not None
    assert match.margin == 0.2
    assert same_cause(best, past("FM-SAME"))
    assert not same_cause(best, other)
    assert not same_cause(best, investigating_case())


def test_what_fixed_it_falls_back_to_the_fixes_applied() -> None:
    case = investigating_case()
    add_solution(case, mitigation=True, title="Rolled back").applied_at = later()
    assert fixed_by(case) == "Rolled back"
    add_solution(case, title="Restored the pool size").applied_at = later()
    assert fixed_by(case) == "Restored the pool size"
    assert fixed_by(investigating_case()) == "not recorded"


def test_the_past_runbook_is_what_use_this_runbook_posts() -> None:
    assert runbook_of(past("FM-7K3Q")) == "# Runbook: pool\n"
    assert runbook_of(investigating_case()) is None


async def test_the_model_is_told_the_past_case_is_a_lead_not_a_conclusion() -> None:
    earlier = past("FM-7K3Q")
    match = await seen(new_case(), [hit(earlier, 0.8)], [earlier])
    assert match is not None

    note = seen_before_note(match)

    assert "a lead, not a conclusion" in note
    assert "FM-7K3Q" in note
    assert POOL in note
    assert "Rolled back to v4.11.3" in note
    assert "{{" not in note


def kept_match(case: Case, *, followed_by: str | None = None) -> Case:
    """``case`` holding a match with the first past case, as the bot keeps it."""
    found = decide_one()
    case.seen_before = SeenBefore(looked_at=NOW, match=found, runbook_followed_by=followed_by)
    return case


def decide_one() -> PastCaseMatch:
    one = past("FM-AAAA")
    eligible = [Eligible(Candidate(one.case_id, 0.8, hit(one, 0.8)), one, None)]
    match = decide(eligible)
    assert match is not None
    return match


def test_the_model_is_told_of_the_lead_while_the_root_cause_is_sought() -> None:
    notes = seen_before_notes(kept_match(new_case()))

    assert len(notes) == 1
    assert "a lead, not a conclusion" in notes[0]
    assert "FM-AAAA" in notes[0]


def test_the_lead_is_no_longer_told_once_a_root_cause_is_stated_nor_without_a_match() -> None:
    case = kept_match(new_case())
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=POOL, confidence_score=0.8, mechanism="requests wait"
    )

    assert seen_before_notes(case) == []
    assert seen_before_notes(new_case()) == []


def test_people_following_the_runbook_is_told_until_the_case_ends() -> None:
    case = kept_match(new_case(), followed_by="U42")
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=POOL, confidence_score=0.8, mechanism="requests wait"
    )

    (note,) = seen_before_notes(case)

    assert "{@U42} chose to follow the runbook of FM-AAAA" in note
