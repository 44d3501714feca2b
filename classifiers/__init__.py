"""The out-of-domain gate: synthetic data, training, evaluation. Takes an embedder as an argument."""
