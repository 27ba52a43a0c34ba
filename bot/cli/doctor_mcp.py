"""`fm doctor` for the team's MCP servers: each server, its reachable tools, which may run."""

from __future__ import annotations

from bot.cli.doctor import Check, Verdict
from bot.cli.mcp import InspectServers, McpReport, inspect_servers
from bot.settings import Settings


def check_mcp(settings: Settings, inspect: InspectServers | None = None) -> list[Check]:
    """One line per server: running with its tools, or why not; nothing when none is set."""
    if settings.mcp_config is None:
        return []
    report: McpReport = (inspect or inspect_servers)(settings)
    if report.error is not None:
        return [Check("mcp", Verdict.FAIL, f"{report.error}; fix FM_MCP_CONFIG or the file.")]
    checks = [Check("mcp", Verdict.WARN, problem) for problem in report.problems]
    if not report.statuses and not report.problems:
        checks.append(Check("mcp", Verdict.WARN, f"{settings.mcp_config} names no server."))
    for status in report.statuses:
        name = f"mcp {status.name}"
        if not status.running:
            checks.append(Check(name, Verdict.FAIL, f"{status.detail}."))
            continue
        allowed = ", ".join(status.allowed) or "none"
        detail = f"{len(status.offered)} tool(s) reachable; allowed: {allowed}."
        verdict = Verdict.WARN if status.problems or not status.allowed else Verdict.OK
        checks.append(Check(name, verdict, " ".join([detail, *(f"{p}." for p in status.problems)])))
    return checks
