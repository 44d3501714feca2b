"""Persistence and the human loop: models, the state machine, the queue, the judge, the digest."""
