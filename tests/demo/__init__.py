"""`make demo`: the checkout-api incident through the bot, drawn as the Slack thread people see."""
