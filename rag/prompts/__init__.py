"""Prompt templates for knowledge-base synthesis and query rewriting."""
