"""One turn, watched: its span, the ids its log lines carry, and its outcome and duration.

`observed_turn` wraps a turn; inside it, `note_turn` says what became known on the way (the case
it belongs to) or how it ended when that is not "answered". An exception ends it as "failed";
a cancellation (the process stopping) as "interrupted".
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from bot.observability.logs import bind_log_context, log_context
from bot.observability.metrics import Stopwatch, observe_turn
from bot.observability.tracing import annotate, span

ANSWERED, FAILED, INTERRUPTED = "answered", "failed", "interrupted"


@dataclass
class _Turn:
    outcome: str = ANSWERED


_current: ContextVar[_Turn | None] = ContextVar("fm_turn", default=None)


@contextlib.contextmanager
def observed_turn(*, team_id: str, turn_id: str) -> Iterator[None]:
    """The block is one turn: a span, log context, and its outcome and duration measured."""
    turn = _Turn()
    token = _current.set(turn)
    watch = Stopwatch()
    with (
        log_context(team_id=team_id, turn_id=turn_id),
        span("fm.turn", **{"fm.team_id": team_id, "fm.turn_id": turn_id}),
    ):
        try:
            yield
        except asyncio.CancelledError:
            turn.outcome = INTERRUPTED
            raise
        except Exception:
            turn.outcome = FAILED
            raise
        finally:
            _current.reset(token)
            annotate(**{"fm.outcome": turn.outcome})
            observe_turn(turn.outcome, watch.seconds())


def note_turn(*, case_id: str | None = None, outcome: str | None = None) -> None:
    """What the running turn learnt: its case, or an outcome other than "answered"."""
    turn = _current.get()
    if case_id is not None:
        bind_log_context(case_id=case_id)
        annotate(**{"fm.case_id": case_id})
    if turn is not None and outcome is not None:
        turn.outcome = outcome
