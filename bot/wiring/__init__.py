"""The wiring: every component built from Settings on first use (`Services`), and how they are observed (metrics, logs)."""
