"""The scoreboard as markdown, and written to a folder as JSON, markdown and PNG charts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evals.product import product_lines
from evals.scoring.charts import draw_reliability, draw_scenarios
from evals.scoring.grading import ScenarioResult
from evals.scoring.scoreboard import Scoreboard, Summary
from evals.scoring.second_looks import second_look_lines
from evals.scoring.seen_before import seen_before_lines


@dataclass(frozen=True)
class Written:
    """Where a scoreboard was written."""

    json: Path
    markdown: Path
    reliability_png: Path
    scenarios_png: Path


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _pct(value: float) -> str:
    return f"{value:.0%}"


def summary_lines(s: Summary) -> list[str]:
    """The overall numbers as a markdown table."""
    cost = f"${s.cost_usd:.4f}" + ("" if s.cost_known else " (some costs unknown)")
    rows = [
        ("Root cause found", f"{_pct(s.root_cause_found_rate)} of {s.root_cause_scenarios}"),
        ("Mean turns to root cause (not found = budget + 1)", _num(s.mean_turns_to_root_cause, 2)),
        ("Abstained when it should", f"{_pct(s.abstention_rate)} of {s.abstain_scenarios}"),
        ("Unsafe or forbidden suggestions (withheld + shown)", str(s.unsafe_suggestions)),
        ("… of which reached the thread (must be 0)", str(s.unsafe_shown)),
        ("Chased a red herring", _pct(s.red_herring_rate)),
        ("Investigation path as expected", _pct(s.path_correct_rate)),
        (f"Brier score ({s.calibration_points} stated root causes)", _num(s.brier)),
        (f"Expected calibration error ({s.ece_bins} bins)", _num(s.ece)),
        (
            "Evidence requests made / answered / blocked",
            f"{s.requests_made} / {s.requests_answered} / {s.requests_blocked}",
        ),
        ("Judge score (mean)", _num(s.judge_mean, 1)),
        ("Model calls, tokens in / out", f"{s.calls}, {s.prompt_tokens} / {s.completion_tokens}"),
        ("Cost", cost),
        ("Scenarios stopped by an error", str(s.errors)),
    ]
    return ["| Metric | Value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)]


def _row(r: ScenarioResult) -> str:
    right = {True: "✅", False: "❌", None: "—"}[r.correct]
    abstained = {True: "✅", False: "❌", None: ""}[r.abstained]
    judge = str(r.judge.total) if r.judge and r.judge.total is not None else ""
    claim = (r.claim or "").replace("|", "/")[:70]
    cells = [
        r.scenario_id,
        r.kind.value,
        right,
        _num(r.confidence, 2),
        claim,
        str(r.turns_to_root_cause or ""),
        abstained,
        str(r.unsafe_suggestions),
        f"{r.requests_made}/{r.requests_answered}/{r.requests_blocked}",
        r.path or "",
        r.status,
        str(r.turns),
        judge,
        str(r.usage.prompt_tokens + r.usage.completion_tokens),
    ]
    return "| " + " | ".join(cells) + " |"


def to_markdown(board: Scoreboard) -> str:
    """The whole scoreboard as markdown."""
    run = board.run
    hashes = "; ".join(
        f"{t} {', '.join(h[:12] for h in hs)}" for t, hs in run.prompt_hashes.items()
    )
    head = [
        f"# Evaluation: {run.investigator}",
        "",
        f"Scenario set `{run.scenario_set_hash[:16]}` · models {', '.join(run.models) or 'none'} · "
        f"{run.started_at.isoformat(timespec='seconds')} · {run.seconds:.1f} s",
        "",
        f"Prompt hashes: {hashes or 'none'}",
        "",
        *summary_lines(board.summary),
        "",
        "| Scenario | Kind | Right | Conf. | Root cause stated | Turn found | Abstained | Unsafe "
        "| Requests m/a/b | Path | Status | Turns | Judge | Tokens |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(_row(r) for r in board.results),
    ]
    head += second_look_lines(board.second_look)
    head += product_lines(board.product)
    head += seen_before_lines(board.seen_before)
    errors = [f"- {r.scenario_id}: {r.error}" for r in board.results if r.error]
    if errors:
        head += ["", "Errors:", *errors]
    return "\n".join(head) + "\n"


def write(board: Scoreboard, folder: Path) -> Written:
    """scoreboard.json, scoreboard.md, reliability.png and scenarios.png in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = Written(
        json=folder / "scoreboard.json",
        markdown=folder / "scoreboard.md",
        reliability_png=folder / "reliability.png",
        scenarios_png=folder / "scenarios.png",
    )
    written.json.write_text(board.model_dump_json(indent=2) + "\n", "utf-8")
    written.markdown.write_text(to_markdown(board), "utf-8")
    draw_reliability(board, written.reliability_png)
    draw_scenarios(board, written.scenarios_png)
    return written
