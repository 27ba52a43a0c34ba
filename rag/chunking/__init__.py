"""From uploaded bytes to redacted, cited chunks.

Decoding, log windows with line numbers and timestamps, markdown and config chunking, severity and
template signatures.
"""
