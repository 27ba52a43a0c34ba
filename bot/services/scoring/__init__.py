"""Use cases of `/fm score`.

Requesting and running a scoring; its one thread message is kept current by `bot.thread.scoring`.
"""
