"""The bot against each model provider's fake: whole investigations, refusals, recorded calls."""
