"""Retrieval: the knowledge service behind the domain's KnowledgePort, over LanceDB.

Uploads become redacted, cited chunks (`chunking`), embedded locally (`embeddings`) and kept in
LanceDB (`store`); searches blend vectors and keywords per strategy, and answers are synthesised
from the excerpts with their citations. It imports the domain, never `bot/`, and is independent of
`storage/`.
"""
