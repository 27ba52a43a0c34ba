"""Scoring finished investigations with an LLM judge (the session-scoring seed).

Pure core: deterministic facts about a case, the case transcript, the two judge prompts and their
criteria hash, score extraction, the status table for repeated and forced requests, the lifecycle
of a scoring and the job that runs the judge behind ports.
"""
