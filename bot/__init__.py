"""The edges: email and Slack adapters, the long-running app, and the `orienta` CLI."""
