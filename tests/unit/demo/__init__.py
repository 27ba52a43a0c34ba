"""Tests of the demo: the Slack thread renderer and the numbers it prints."""
