"""The database itself: the engine and sessions made from one URL, and SQLite run inline.

`engine` makes the engine and session factory (SQLite with its pragmas, one writer at a time in
order) and the helpers every repository writes with; `sqlite_inline` runs SQLite's statements on the
event loop's own thread. Nothing is re-exported here, so the migrations import only what they need.
"""
