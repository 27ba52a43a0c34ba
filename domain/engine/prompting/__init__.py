"""Building a turn's prompt: what the model reads each turn, rendered into chat messages.

``prompts`` renders the prompt for the case's status from the templates in
``domain/engine/templates`` and hashes the contract; ``case_state`` is the case as the model reads
it; ``briefing`` chooses what the model reads of the evidence within one budget; ``screenshots``
says what images were shared and turns them into cited excerpts; ``tool_prompt`` describes the
team's tools and the runs waiting or finished.
"""
