"""The language-model adapter behind the domain's LLMPort.

The litellm gateway, its modes and portable schemas, call records, context fitting, the repair of
an invalid reply, loading litellm off the event loop, and the doctor's probe.
"""
