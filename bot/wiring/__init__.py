"""The composition root.

Builds settings into ports, services, the Slack app and the alert pipeline. Nothing else constructs
anything.
"""
