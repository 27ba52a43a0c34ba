"""What an investigation holds.

Evidence and evidence requests, hypotheses, conclusions, anchoring, progress milestones, problem
verification and turn tracking.
"""
