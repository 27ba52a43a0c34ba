"""Per-program tables of the command-safety classifier (what each subcommand and flag does)."""
