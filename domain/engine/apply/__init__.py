"""Applying a model's validated reply to the case.

Evidence, hypotheses, resolution, scrubbing unsafe commands on the way in, and holding the
reply's prose to what the case did (claims).
"""
