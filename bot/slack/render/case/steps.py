"""The mitigation as the call to action: its card's buttons, and the steps people recorded.

While the case runs, a mitigation not applied yet carries **I've applied it** (and **Not now**,
until someone said it). Once someone said they applied it, by the button or in their own words,
the card says who and when, with **Undo** while nothing depends on it yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from slack_sdk.models.blocks import Block

from bot.slack.ids import ActionId, SolutionValue, StepValue, action_id
from bot.slack.render.message import actions, button, context
from bot.slack.render.text import escape, shorten
from domain.engine.view import SolutionView, StepView
from domain.people import mention

APPLIED_LABEL = "✅ I've applied it"
NOT_NOW_LABEL = "Not now"
UNDO_LABEL = "↩️ Undo"
TITLE_CHARS = 120


def mitigation_blocks(
    solutions: Sequence[SolutionView], recorded: Sequence[StepView] = (), *, case_id: str
) -> list[Block]:
    """Under a reply's solutions: each mitigation's buttons, or who applied it (with Undo);
    then the steps the reply ``recorded`` from people's words (each step said once)."""
    blocks: list[Block] = []
    said = {step.solution_id for step in recorded}
    for solution in solutions:
        if not solution.is_mitigation:
            continue
        if solution.offered:
            blocks += _offered(solution, case_id=case_id)
        elif solution.applied is not None and solution.solution_id not in said:
            blocks += step_blocks([solution.applied], case_id=case_id, named=False)
    return blocks + recorded_blocks(recorded, case_id=case_id)


def _offered(solution: SolutionView, *, case_id: str) -> list[Block]:
    value = SolutionValue(case_id=case_id, solution_id=solution.solution_id).dump()
    suffix = solution.solution_id
    buttons = [
        button(
            APPLIED_LABEL,
            action_id=action_id(ActionId.APPLIED, suffix),
            value=value,
            style="primary",
        )
    ]
    said = ""
    if solution.deferred_by is None:
        buttons.append(
            button(NOT_NOW_LABEL, action_id=action_id(ActionId.NOT_NOW, suffix), value=value)
        )
    else:
        said = f"⏸️ {mention(solution.deferred_by)}: not now. Still offered."
    return [*context(said), *actions(buttons)]


def step_blocks(steps: Sequence[StepView], *, case_id: str, named: bool = True) -> list[Block]:
    """One line per recorded step (``named``: with the solution's title), with Undo while it
    can still be taken back."""
    blocks: list[Block] = []
    for step in steps:
        blocks += context(step_line(step, named=named))
        if step.undoable and step.undone_by is None:
            value = StepValue(case_id=case_id, confirmation_id=step.confirmation_id).dump()
            undo = button(
                UNDO_LABEL, action_id=action_id(ActionId.UNDO, step.confirmation_id), value=value
            )
            blocks += actions([undo])
    return blocks


def step_line(step: StepView, *, named: bool = True) -> str:
    """ "✅ alice applied it 14:18", "✅ alice says “Roll back” worked"."""
    what = f"“{escape(shorten(step.title, TITLE_CHARS))}”" if named else "it"
    did = f"says {what} worked" if step.verified else f"applied {what}"
    line = f"✅ {mention(step.by)} {did}{_at(step.at)}"
    if step.undone_by is not None:
        return f"↩️ ~{line[2:]}~ · taken back by {mention(step.undone_by)}"
    return line


def _at(moment: datetime | None) -> str:
    if moment is None:
        return ""
    stamp = int(moment.timestamp())
    return f" <!date^{stamp}^{{time}}|{moment:%H:%M} UTC>"


def recorded_blocks(steps: Sequence[StepView], *, case_id: str) -> list[Block]:
    """What a reply recorded from the person's own words (not asked again), with Undo; of a
    solution applied and said to work, the newest."""
    newest = {step.solution_id: step for step in steps}
    return step_blocks(list(newest.values()), case_id=case_id)
