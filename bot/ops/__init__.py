"""The operator's edge: health, readiness and metrics endpoint, `doctor`, and the ingestion and evaluation behind the CLI."""
