"""One repair of an invalid structured reply: what the model is shown the second time.

A reply that does not validate is shown back (its start and end, not a runaway whole) with its
errors, or the model is told it was cut off at the output limit; a model that answered prose
despite a schema sent to its provider steps down a mode and is asked afresh.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from bot.llm.calls import Completion, brief
from bot.llm.modes import Mode, ModeBook, with_schema_prompt
from bot.llm.schema import parse_reply
from bot.llm.window import Message

REPAIR_PROMPT = (
    "Your previous reply did not match the required JSON schema. Errors:\n{errors}\n"
    "Reply again with only one JSON object that matches the schema exactly."
)
REPAIR_ECHO_CHARS = 4000
"""At most this much of an invalid reply is shown back to the model with its errors."""
CUT_OFF_PROMPT = (
    "Your previous reply was cut off at the output limit, so it is not valid JSON. Reply again "
    "with the same JSON object, shorter: keep agent_response brief and leave out optional details."
)


def second_attempt(
    book: ModeBook,
    mode: Mode,
    model: str,
    fitted: list[Message],
    prompt: list[Message],
    first: Completion,
    error: ValidationError,
    schema: type[BaseModel],
) -> tuple[list[Message], Mode]:
    """The second attempt's messages and mode.

    A model that answered prose despite a schema sent to its provider ignores that schema (an
    Ollama model without structured output): it steps down and is asked afresh with the schema
    in the prompt. Any other reply is shown its errors, or told it was cut off.
    """
    if mode.sends_schema and not holds_json(first.content) and not first.cut_off:
        book.step_down(model, mode, "it answered prose despite the schema")
        lower = book.mode(model)
        return with_schema_prompt(fitted, schema), lower
    note = CUT_OFF_PROMPT if first.cut_off else REPAIR_PROMPT.format(errors=brief(error))
    retry = [
        *prompt,
        {"role": "assistant", "content": echoed(first.content)},
        {"role": "user", "content": note},
    ]
    return retry, mode


def echoed(content: str) -> str:
    """The invalid reply as it is shown back to the model: a runaway answer is not sent back whole.

    Its start and end are enough for the model to see what it wrote; its errors say the rest.
    """
    if len(content) <= REPAIR_ECHO_CHARS:
        return content
    head, tail = REPAIR_ECHO_CHARS * 3 // 4, REPAIR_ECHO_CHARS // 4
    cut = len(content) - head - tail
    return f"{content[:head]}\n…[{cut:,} characters of this reply left out]…\n{content[-tail:]}"


def holds_json(content: str) -> bool:
    """Whether ``content`` parses as a JSON reply."""
    try:
        parse_reply(content)
    except ValueError:
        return False
    return True
