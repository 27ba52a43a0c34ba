"""The pure core: the case and its records, the ports, the LLM port, budgets, people, prompt files.

It imports the standard library and pydantic only and reaches the outside world through
``typing.Protocol`` ports; ``bot``, ``storage`` and ``rag`` build on it, never the other way round.
"""
