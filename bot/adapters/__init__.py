"""Adapters the composition root plugs into ports.

Workflow executors, the catalog's YAML files, the object store's options, the clock and store
statistics.
"""
