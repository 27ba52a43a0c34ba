"""Scripted investigators for the evaluation suite.

A competent one and a poor one, each an in-process LLMPort.
"""
