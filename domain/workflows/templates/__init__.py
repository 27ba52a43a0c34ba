"""Prompt template files (markdown) of the workflow-selection contract."""
