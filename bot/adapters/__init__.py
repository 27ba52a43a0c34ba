"""Adapters the composition root plugs into ports.

Workflow executors, the catalog's YAML files, the object store's options, the clock, store
statistics, and who may decide (user groups' and alert channels' members, from Slack).
"""
