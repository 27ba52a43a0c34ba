"""Integration tests of the retrieval adapter against LanceDB and the local model."""
