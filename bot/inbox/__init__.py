"""The durable work queue seen from the bot.

Typed work payloads, the claim-and-run worker, and the router that hands each item to one service.
"""
