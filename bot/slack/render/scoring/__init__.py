"""Scoring and calibration in Slack, as pure functions.

`message` is the one scoring message in a case thread, `answers` what people are told privately
about their requests and recent scores, `calibration` how stated confidence matched outcomes.
"""
