"""The case lifecycle.

Statuses and their transition table, confirmations and their answers, the effects of an accepted
answer, proposals, special states and degraded mode.
"""
