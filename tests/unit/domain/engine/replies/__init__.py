"""What the engine asks and says: prompts, the reply view, typed intents, deliverables."""
