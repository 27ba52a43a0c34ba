"""What an investigation holds.

Evidence and evidence requests, hypotheses, conclusions, progress milestones, problem verification
and what a turn did. Nothing here imports the lifecycle: the lifecycle builds on these records.
"""
