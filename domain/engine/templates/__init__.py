"""Prompt template files (markdown), read with importlib.resources."""
