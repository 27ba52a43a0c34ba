"""The Alertmanager edge: the webhook endpoint and the payload models it parses."""
