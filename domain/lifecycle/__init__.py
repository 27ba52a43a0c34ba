"""The case lifecycle.

Statuses and their transition table, confirmations and their answers, the effects of an accepted
answer, proposals, special states and degraded mode, turn tracking (what a turn changed, and when
the case stops progressing) and anchoring detection. It builds on ``domain.investigation``, which
never imports it.
"""
