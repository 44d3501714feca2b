"""Channel-neutral core: documents, chunking, embeddings, index, retrieval, generation."""
