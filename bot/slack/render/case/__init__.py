"""What a case thread shows: its summary, replies and their cards, questions, the findings of
shared files, tool runs and their charts, a past case it repeats, and feedback on a conclusion."""
