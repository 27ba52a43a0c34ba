"""The database itself: engine set-up, migrations, and SQLite on the event loop."""
