"""Scores, scoring requests, root-cause ratings and case outcomes."""
