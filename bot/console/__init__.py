"""The office console: server-rendered pages (review queue, documents, approved answers, gaps → FAQ, digests, health) on one ASGI app."""
