"""Unit tests of the retrieval adapter: decoding, redaction, chunking, filters, fusion."""
