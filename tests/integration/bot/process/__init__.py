"""The bot as a process: `fm run` as a user starts it, the console, the model copy at warm-up."""
