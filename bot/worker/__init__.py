"""The durable queue at work: the worker claims recorded items and the router runs each one.

The worker takes items oldest first, one per case at a time, coalesces a case's waiting messages
into one turn, keeps what it holds alive with a heartbeat and queues work cut short again; the
router hands each kind of item to the one service that does it and tells the thread when it fails.
What the items carry, and the retry policy, are the queue's vocabulary (`bot.inbox`).
"""
