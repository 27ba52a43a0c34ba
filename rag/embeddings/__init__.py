"""The embedding model.

Where it lives, the ONNX copy and torch fallback that run it, and the embedder the store uses.
"""
