"""Use cases of `/fm score`.

Requesting and running a scoring, and keeping its one thread message current.
"""
