"""Applying the model's replies to the case: consulting, investigating, text, status changes."""
