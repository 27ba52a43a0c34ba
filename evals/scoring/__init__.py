"""Grading an evaluation run.

Verdicts per scenario, the judge, the scoreboard, its report and charts.
"""
