"""The running process.

`fm run`'s HTTP server and Socket Mode runner, the aiohttp app (`/slack/events`, the alert
endpoint, health, readiness and `/metrics`) and the timing of Slack's acknowledgements. It serves a
runtime the wiring built (`bot.wiring`); the console runs one in the terminal (`bot.cli.console`).
"""
