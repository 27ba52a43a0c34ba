"""The running process.

The HTTP server and Socket Mode runner, the aiohttp app, the warm-up and the embedding model's
background copy.
"""
