"""reprolib."""
