"""PNG charts of a scoreboard: the reliability diagram and a per-scenario overview."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.scoring.scoreboard import Scoreboard

DPI = 110


def _pyplot() -> Any:
    """matplotlib's pyplot on the file-only backend (no display; imported only when drawing)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_reliability(board: Scoreboard, path: Path) -> None:
    """Accuracy against mean confidence per bin, bar width = bin, the diagonal is perfect."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5.0))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    ax.plot([], [], "o", color="tab:red", label="bin's mean confidence")
    ax.bar([], [], color="tab:blue", alpha=0.6, label="bin's accuracy")
    for row in board.reliability:
        if row.accuracy is None or row.mean_confidence is None:
            continue
        width = row.upper - row.lower
        ax.bar(
            row.lower,
            row.accuracy,
            width=width,
            align="edge",
            alpha=0.6,
            color="tab:blue",
            edgecolor="black",
        )
        ax.plot(row.mean_confidence, row.accuracy, "o", color="tab:red")
        ax.annotate(
            f"n={row.count}",
            (row.lower + width / 2, row.accuracy),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    s = board.summary
    brier = "n/a" if s.brier is None else f"{s.brier:.3f}"
    ece = "n/a" if s.ece is None else f"{s.ece:.3f}"
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.08),
        xlabel="stated root-cause confidence",
        ylabel="share of root causes that were right",
    )
    ax.set_title(
        f"{board.run.investigator}\nBrier {brier} · ECE {ece} ({s.ece_bins} bins)", fontsize=10
    )
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def draw_scenarios(board: Scoreboard, path: Path) -> None:
    """One row per scenario: stated confidence, coloured by right, wrong, abstained or silent."""
    plt = _pyplot()
    results = board.results
    fig, ax = plt.subplots(figsize=(7.5, 0.28 * len(results) + 1.4))
    names, values, colours = [], [], []
    for r in results:
        names.append(r.scenario_id)
        # A case with no claim still gets a sliver, so its colour (abstained or silent) shows.
        values.append(r.confidence if r.confidence is not None else 0.02)
        if r.correct is True:
            colours.append("tab:green")
        elif r.correct is False:
            colours.append("tab:red")
        else:
            colours.append("tab:blue" if r.abstained else "lightgrey")
    ax.barh(range(len(names)), values, color=colours)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set(xlim=(0, 1), xlabel="stated root-cause confidence")
    ax.set_title(
        f"{board.run.investigator}: green right, red wrong, blue abstained, grey none", fontsize=9
    )
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
