"""The language-model adapter behind the domain's LLMPort.

The litellm gateway, its modes and portable schemas, call records, context fitting and the doctor's
probe.
"""
