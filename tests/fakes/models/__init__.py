"""Fake model providers: the OpenAI-compatible, Anthropic, Ollama and JSON-mode servers with the
schema rules they enforce, an in-memory LLMPort, and the real gateway built against them."""
