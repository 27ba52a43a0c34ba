"""Commands are shown in three honest states: checks, labelled changes, and notes."""

from __future__ import annotations

from bot.slack.render.case.reply import request_card, solution_text
from domain.engine.view import SolutionView
from tests.unit.bot.slack.render.views import request_card as card_view


def test_a_solution_shows_checks_plainly_changes_with_what_they_change_and_notes_apart() -> None:
    solution = SolutionView(
        solution_id="sol_1",
        title="Roll back fulfillment-worker",
        is_mitigation=True,
        state="proposed",
        commands=[
            "argocd app history fulfillment-worker",
            "argocd app set fulfillment-worker --sync-policy none",
            "argocd app rollback fulfillment-worker 41",
            "fooctl app restart fulfillment-worker",
            "(command withheld: `kubectl` — it deletes the namespace and everything in it)",
        ],
    )

    text = solution_text(solution)

    assert "```argocd app history fulfillment-worker```" in text
    assert "_↳ changes state: it changes an Argo CD application's settings_" in text
    assert "_↳ changes state: it rolls an Argo CD application back to an earlier revision_" in text
    assert (
        "_↳ not checked: looks like it changes fooctl app (restart) — run it if you agree_" in text
    )
    assert "_(command withheld: `kubectl` — it deletes the namespace" in text
    assert "```(command withheld" not in text


def test_a_request_card_shows_a_guessed_read_apart_and_says_it_is_not_checked() -> None:
    card = card_view().model_copy(
        update={"commands": ["kubectl get pods -n orders", "fooctl queue list --vhost orders"]}
    )

    text = str([b.to_dict() for b in request_card(card, case_id="case_1")])

    assert "*Run (read-only):*\\n```kubectl get pods -n orders```" in text
    assert "*Not checked, looks read-only — run it if you agree:*" in text
    assert "```fooctl queue list --vhost orders```" in text
