"""Evaluation harness: scenarios, a simulated engineer, scripted investigators and a scoreboard.

It drives the real turn engine with whatever LLMPort its caller hands it, so it never reaches the
Slack edge; the caller (the `fm` command line, or a test) builds the model gateway.
"""
