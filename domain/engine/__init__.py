"""The investigation engine: the turn loop, its prompt, and how replies are applied.

``engine`` takes a turn (``results`` is what it gives back); ``prompting`` builds the prompt the
model reads; ``apply`` applies its validated reply; the rest are a turn's parts: typed answers,
retrieval, the second look, the reply view, no-LLM turns and the deliverables.
"""
