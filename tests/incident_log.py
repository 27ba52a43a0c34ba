"""A synthetic incident: a deploy shrinks the connection pool, then requests time out.

150 lines of a payments service's log, one line every five seconds from 14:20:00Z. Normal
traffic, with a rare retry, until a deploy at line 20 restarts the service with
``maximumPoolSize=10`` instead of ``50`` (line 22). From line 40 (14:23:15Z) HikariCP's
"Connection is not available" errors repeat, retries jump, and some requests fail.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

FILENAME = "payments-api.log"
LINES = 150
DEPLOY_LINE = 20
POOL_CHANGE_LINE = 22
FIRST_TIMEOUT_LINE = 40
TIMEOUT = (
    "ERROR [http-nio-8080-exec-{n}] o.h.engine.jdbc.spi.SqlExceptionHelper - "
    "HikariPool-1 - Connection is not available, request timed out after 30000ms."
)
RETRY = (
    "INFO [http-nio-8080-exec-{n}] c.e.payments.PaymentClient - "
    "retrying charge ch_{id} (attempt {n})"
)
_START = datetime(2026, 11, 21, 14, 20, tzinfo=UTC)
_BEFORE = {"version": "2.4.0", "pid": 4412, "pool": 50, "secs": 6.8}
_DEPLOYED = {"version": "2.4.1", "pid": 4978, "pool": 10, "secs": 7.1}
_STARTUP = (
    "INFO [main] c.e.payments.PaymentsApplication - Starting PaymentsApplication v{version} "
    "using Java 17.0.9 with PID {pid}",
    "INFO [main] com.zaxxer.hikari.HikariConfig - HikariPool-1 - configuration: "
    "maximumPoolSize={pool} connectionTimeout=30000",
    "INFO [main] com.zaxxer.hikari.HikariDataSource - HikariPool-1 - Start completed.",
    "INFO [main] c.e.payments.PaymentsApplication - Started PaymentsApplication in {secs} seconds",
)
_TRAFFIC = (
    "INFO [http-nio-8080-exec-{n}] c.e.payments.ChargeController - POST /v1/charges 201 in {ms}ms",
    "INFO [http-nio-8080-exec-{n}] c.e.payments.ChargeController - GET /v1/charges/ch_{id} 200 "
    "in {ms}ms",
    "INFO [scheduling-1] c.e.payments.SettlementJob - settled {n} charges for merchant m_{id}",
)
_DEPLOY = "INFO [deploy-hook] c.e.ops.DeployListener - rollout of payments-api v2.4.1 by ci-bot"
_AFTER = (
    "ERROR [http-nio-8080-exec-{n}] c.e.payments.ChargeController - POST /v1/charges 500 in {ms}ms",
    "WARN [http-nio-8080-exec-{n}] o.h.engine.jdbc.spi.SqlExceptionHelper - SQL Error: 0, "
    "SQLState: 08001",
    _TRAFFIC[0],
)


def incident_log() -> str:
    """The whole log, one line per entry."""
    return "\n".join(_line(number) for number in range(1, LINES + 1)) + "\n"


def _line(number: int) -> str:
    moment = _START + timedelta(seconds=5 * (number - 1))
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    release = _BEFORE if number < DEPLOY_LINE else _DEPLOYED
    values = {"n": number % 9 + 1, "id": 1000 + number * 7, "ms": 20 + number * 13 % 90}
    return f"{stamp} {_message(number).format(**values, **release)}"


def _message(number: int) -> str:
    if number <= len(_STARTUP):
        return _STARTUP[number - 1]
    if number == DEPLOY_LINE:
        return _DEPLOY
    if DEPLOY_LINE < number <= DEPLOY_LINE + len(_STARTUP):
        return _STARTUP[number - DEPLOY_LINE - 1]
    if number < FIRST_TIMEOUT_LINE:
        # A retry now and then is normal: the jump after the incident is what matters.
        return RETRY if number in (9, 31) else _TRAFFIC[number % len(_TRAFFIC)]
    step = (number - FIRST_TIMEOUT_LINE) % 4
    if step == 0:
        return TIMEOUT
    if step in (1, 2):
        return RETRY
    return _AFTER[(number - FIRST_TIMEOUT_LINE) // 4 % len(_AFTER)]
