"""The durable queue's vocabulary, shared by every layer of the bot.

Typed work payloads (one model per kind of item, and the Slack threads, messages and files they
name) and the retry policy: the queue's own bookkeeping retried with backoff, and `RetryLater` for
work that something passing cut short. What runs the queue is `bot.worker`.
"""
