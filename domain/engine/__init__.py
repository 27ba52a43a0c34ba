"""The investigation engine: prompt contracts, the turn loop and how replies are applied."""
