"""Applying a model's validated reply to the case.

Evidence, hypotheses, resolution, and scrubbing unsafe commands on the way in.
"""
