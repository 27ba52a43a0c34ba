"""A big log nobody on the team wrote, with one new error late in it.

Lines of the eight LogHub systems' samples, taken in turn (as a collector merging their streams
would write them), and from 70% of the file on an expired TLS certificate, 40 times in all. The
background carries its own errors and fatal lines from the start: only the certificate is new.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle

from tests.loghub import systems

CERT_ERROR = (
    "ERROR [ingress-gw] x509: certificate has expired or is not yet valid: current time "
    "2026-11-21T14:{minute:02d}:{second:02d}Z is after 2026-11-21T00:00:00Z "
    "(upstream payments.internal:443)"
)
CERT_TIMES = 40
CERT_FROM_SHARE = 0.7


@dataclass(frozen=True)
class MixedLog:
    """The log's text and where its certificate errors are (1-based line numbers)."""

    text: str
    cert_lines: tuple[int, ...]

    @property
    def first_cert_line(self) -> int:
        """The first line of the new error."""
        return self.cert_lines[0]


def mixed_log(total: int = 100_000) -> MixedLog:
    """``total`` background lines, with the certificate errors spread over the last 30%."""
    streams = [s.log_path.read_text(encoding="utf-8").splitlines() for s in systems()]
    taken = [0] * len(streams)
    lines: list[str] = []
    cert_lines: list[int] = []
    start = int(total * CERT_FROM_SHARE)
    every = max((total - start) // CERT_TIMES, 1)
    for stream in cycle(range(len(streams))):
        if len(lines) - len(cert_lines) >= total:
            break
        lines.append(streams[stream][taken[stream] % len(streams[stream])])
        taken[stream] += 1
        background = len(lines) - len(cert_lines)
        if (
            background >= start
            and (background - start) % every == 0
            and len(cert_lines) < CERT_TIMES
        ):
            n = len(cert_lines)
            stamp = f"2026-11-21T14:{5 + n // 60:02d}:{n % 60:02d}Z "
            lines.append(stamp + CERT_ERROR.format(minute=5 + n // 60, second=n % 60))
            cert_lines.append(len(lines))
    return MixedLog("\n".join(lines) + "\n", tuple(cert_lines))
