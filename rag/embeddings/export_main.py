"""`python -m rag.embeddings.export_main MODEL_DIR EXPORT_DIR BOT_PID`: make the ONNX copy apart.

The bot starts this as it starts when there is no copy yet, and loads the model once it is made.
Loading torch and tracing the model hold the interpreter lock for long stretches, which would
stall the bot's event loop; in a process of its own, at a lower priority, it only takes what the
bot leaves free.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

from rag.embeddings.backend import export_model

EXIT_STOPPED = 143
PARENT_CHECK_S = 1.0


def main(argv: list[str]) -> int:
    """Make the copy; 0 when one is ready, 1 otherwise (the reason is logged on stderr)."""
    # Stopped with the bot: unwind, so the half-written file is removed on the way out.
    signal.signal(signal.SIGTERM, _stop)
    threading.Thread(target=_stop_with, args=(int(argv[2]),), daemon=True).start()
    os.nice(10)
    logging.basicConfig(level=logging.WARNING)
    made = export_model(Path(argv[0]), Path(argv[1]))
    return 0 if made is not None and made.limits is not None else 1


def _stop(signum: int, frame: FrameType | None) -> None:
    sys.exit(EXIT_STOPPED)


def _stop_with(parent: int) -> None:
    """Stop too when the bot that started this process is gone (killed, it could not say so)."""
    # The bot's pid comes from the bot: it may be gone before this process gets here.
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
