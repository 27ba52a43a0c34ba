"""Prompt template files (markdown) of the LLM judge: its two turns."""
