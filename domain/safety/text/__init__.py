"""Finding commands inside free text (code blocks, prose, shell prompts) for the command-safety
validator.
"""
