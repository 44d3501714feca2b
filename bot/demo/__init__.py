"""`orienta demo`: the bundled sample office (`sample_office/`), its simulated reviewer, and the two-week run."""
