"""The turn loop: typed answers, faults, buttons, turns without a model, concurrency, properties."""
