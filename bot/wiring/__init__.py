"""The composition root, and the start-up of what it builds.

Builds settings into ports, services, the Slack app and the alert pipeline (`runtime`, `services`,
`slack_app`, `stores`, `alerts`); nothing else constructs anything. Once the bot listens, the
runtime's warm-up (`warmup`) loads the heavy libraries, `readiness` says what is still loading,
and `model_copy` makes the embedding model's ONNX copy. `StartupError` says what to change when
the settings cannot start a bot.
"""

from bot.wiring.errors import StartupError

__all__ = ["StartupError"]
