"""Grading an evaluation run.

Verdicts per scenario, calibration, the judge, the scoreboard, its report and charts.
"""
