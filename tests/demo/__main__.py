"""`make demo`: three incidents of ours through the bot, written out as the threads people see.

    python -m tests.demo [--out demo-output] [--update-docs] [--width 900] [--pillow]

Runs the checkout-api incident (tests/integration/bot/incident.py), the Kafka consumer one
(tests/integration/bot/kafka_incident.py) and the crash-looping alert approved by the on-call
(tests/integration/bot/alerts/alert_incident.py) against FakeSlack and a scripted model, then
writes into ``--out`` (the others into its kafka/ and alert/): ``thread.html`` (self-contained),
``thread.png``, ``thread.json`` (what Slack holds), ``summary.txt``, and the bot's log. The picture
is Chromium's screenshot of the page when Chromium is installed, otherwise (or with ``--pillow``)
the thread drawn with Pillow from the same messages. ``--update-docs`` copies the pictures and
pages to docs/demo.png and docs/demo.html, and docs/demo-kafka.* and docs/demo-alert.*.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LANCEDB_LOG": "error",
    "TOKENIZERS_PARALLELISM": "false",
    "LITELLM_LOG": "WARNING",
}
# Set in a shell, these would switch Bolt into OAuth mode or sign with another secret.
NOT_OURS = ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET")


def main(argv: list[str] | None = None) -> int:
    """Run the demo; 1 if the incident stopped early (what there is is still written)."""
    args = _parser().parse_args(argv)
    for name, value in OFFLINE.items():
        os.environ.setdefault(name, value)
    for name in NOT_OURS:
        os.environ.pop(name, None)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=out / "bot.log", filemode="w", level=logging.INFO, force=True)
    from tests.demo.run import make_demo  # after the environment above: litellm reads it

    return make_demo(out, width=args.width, update_docs=args.update_docs, pillow=args.pillow)


def _parser() -> argparse.ArgumentParser:
    summary = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m tests.demo", description=summary)
    parser.add_argument("--out", default="demo-output", help="folder to write into")
    parser.add_argument("--width", type=int, default=900, help="picture width in CSS pixels")
    parser.add_argument(
        "--update-docs", action="store_true", help="copy the picture to docs/demo.png"
    )
    parser.add_argument(
        "--pillow", action="store_true", help="draw the picture with Pillow even with Chromium"
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
