"""A case's conversation in its thread: opening, turns, buttons, confirmations, uploads."""
