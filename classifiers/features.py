"""Gate features: query embedding, similarity to the indexed corpus, TF-IDF character n-grams, lexical overlap, intent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from classifiers.errors import GateError
from classifiers.intent import NAMES as INTENT_NAMES
from classifiers.intent import IntentModel
from classifiers.tfidf import tfidf_rows
from pipeline.embeddings import Embedder
from pipeline.text import content_terms, fold

KINDS = ("embedding", "similarity", "tfidf", "lexical", "intent")
TOP_K = 5


def parse_kinds(spec: str) -> tuple[str, ...]:
    """'embedding+similarity' -> ('embedding', 'similarity'), validated and in canonical order."""
    parts = {p.strip() for p in spec.replace(",", "+").split("+") if p.strip()}
    unknown = parts - set(KINDS)
    if unknown or not parts:
        raise GateError(f"unknown feature set {spec!r}; combine {', '.join(KINDS)} with '+'")
    return tuple(k for k in KINDS if k in parts)


def similarity_features(query_vecs: np.ndarray, corpus: np.ndarray, k: int = TOP_K) -> np.ndarray:
    """Per query: max cosine to the corpus, mean of the top-k, and the max's margin over the corpus mean."""
    if corpus.size == 0:
        return np.zeros((len(query_vecs), 3), dtype=np.float32)
    sims = query_vecs @ corpus.T
    k = min(k, sims.shape[1])
    top = -np.sort(-sims, axis=1)[:, :k]
    return np.column_stack([top[:, 0], top.mean(axis=1), top[:, 0] - sims.mean(axis=1)]).astype(np.float32)


def _char_vectorizer():
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), preprocessor=fold, sublinear_tf=True, min_df=2, max_features=30000, dtype=np.float32)


@dataclass
class FeatureSpace:
    """Everything needed to turn a message into the gate's feature vector, fitted on the corpus."""

    kinds: tuple[str, ...]
    corpus_vectors: np.ndarray  # dense chunk vectors (L2-normalised)
    vocabulary: dict[str, int] = field(default_factory=dict)  # char n-gram -> column
    idf: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    term_weights: dict[str, float] = field(default_factory=dict)  # corpus content term -> idf-like weight
    intent: IntentModel = field(default_factory=IntentModel)
    _vectorizer: object = field(default=None, repr=False)
    _corpus_tfidf: object = field(default=None, repr=False)

    @classmethod
    def fit(cls, kinds: str | Sequence[str], *, chunk_texts: Sequence[str], chunk_vectors: np.ndarray) -> "FeatureSpace":
        """Fit the lexical parts on the corpus chunks."""
        kinds = parse_kinds(kinds) if isinstance(kinds, str) else tuple(kinds)
        space = cls(kinds=kinds, corpus_vectors=np.asarray(chunk_vectors, dtype=np.float32))
        vec = _char_vectorizer()
        vec.fit(list(chunk_texts))
        space.vocabulary = {k: int(v) for k, v in vec.vocabulary_.items()}
        space.idf = vec.idf_.astype(np.float32)
        df: dict[str, int] = {}
        for text in chunk_texts:
            for term in set(content_terms(text)):
                df[term] = df.get(term, 0) + 1
        n = max(1, len(chunk_texts))
        space.term_weights = {t: float(np.log((1 + n) / (1 + c)) + 1) for t, c in df.items()}
        if "intent" in kinds:
            space.intent = IntentModel.fit(chunk_texts)
        return space

    @property
    def name(self) -> str:
        return "+".join(self.kinds)

    # ------------------------------------------------------------ lexical parts
    @property
    def vectorizer(self):
        if self._vectorizer is None:
            vec = _char_vectorizer()
            vec.vocabulary_ = dict(self.vocabulary)
            vec.idf_ = np.asarray(self.idf, dtype=np.float64)
            self._vectorizer = vec
        return self._vectorizer

    def tfidf(self, texts: Sequence[str]):
        """Sparse char n-gram TF-IDF rows (L2-normalised), without sklearn's per-call validation (classifiers.tfidf)."""
        return tfidf_rows(self.vectorizer, list(texts))

    def lexical(self, texts: Sequence[str]) -> np.ndarray:
        """Per text: share of its content terms found in the corpus (plain and idf-weighted) and its length in terms."""
        rows = []
        for text in texts:
            terms = content_terms(text)
            if not terms:
                rows.append((0.0, 0.0, 0.0))
                continue
            known = [t in self.term_weights for t in terms]
            w = [self.term_weights.get(t, 0.0) for t in terms]
            rare_unknown = sum(1 for t, k in zip(terms, known) if not k)
            rows.append((float(np.mean(known)), float(np.mean(w)) / 5.0, float(np.log1p(rare_unknown))))
        return np.asarray(rows, dtype=np.float32)

    # ------------------------------------------------------------ the matrix
    def dense_block(self, texts: Sequence[str], query_vecs: np.ndarray | None, *, rows: np.ndarray | None = None, rules: bool = True) -> np.ndarray:
        """Every dense feature the kinds ask for (everything but the sparse TF-IDF block).

        With `rows`, `texts` are distinct texts and the matrix has one row per entry of `rows` (the text each row is of);
        `query_vecs` has one row per entry of `rows` too: the text features are computed once per distinct text, the
        vector ones on the whole matrix as without `rows`, so every value is the same as computing each row on its own."""
        parts = []
        if "embedding" in self.kinds:
            parts.append(query_vecs)
        if "similarity" in self.kinds:
            parts.append(similarity_features(query_vecs, self.corpus_vectors))
        if "lexical" in self.kinds:
            parts.append(self.lexical(texts) if rows is None else self.lexical(texts)[rows])
        if "intent" in self.kinds:
            intent = self.intent.transform(texts, rules=rules)
            parts.append(intent if rows is None else intent[rows])
        if not parts:
            return np.zeros((len(texts) if rows is None else len(rows), 0), dtype=np.float32)
        return np.hstack(parts).astype(np.float32)

    def dense_names(self) -> list[str]:
        """The name of every column of the dense block, in order (for explanations)."""
        names: list[str] = []
        if "embedding" in self.kinds:
            names += [f"embedding_{i}" for i in range(self.corpus_vectors.shape[1])]
        if "similarity" in self.kinds:
            names += ["similarity_max", "similarity_top", "similarity_margin"]
        if "lexical" in self.kinds:
            names += ["lexical_known", "lexical_weight", "lexical_unknown"]
        if "intent" in self.kinds:
            names += list(INTENT_NAMES)
        return names

    @property
    def needs_embedding(self) -> bool:
        return "embedding" in self.kinds or "similarity" in self.kinds

    def transform(self, texts: Sequence[str], *, embedder: Embedder | None = None, query_vecs: np.ndarray | None = None, rules: bool = True):
        """(dense, sparse-or-None) features for `texts`; pass query_vecs to reuse embeddings. `rules=False` (fitting the
        classifier) leaves out the intent cues that only serve the structure's decision (see IntentModel.row)."""
        if self.needs_embedding and query_vecs is None:
            if embedder is None:
                raise GateError("these gate features need an embedder")
            query_vecs = embedder.embed_queries(list(texts))
        dense = self.dense_block(texts, query_vecs, rules=rules)
        sparse = self.tfidf(texts) if "tfidf" in self.kinds else None
        return dense, sparse

    # ------------------------------------------------------------ persistence
    def save(self, directory: Path) -> None:
        np.savez(directory / "features.npz", corpus_vectors=self.corpus_vectors, idf=self.idf)
        data = {"kinds": list(self.kinds), "vocabulary": self.vocabulary, "term_weights": self.term_weights, "intent": self.intent.as_dict()}
        (directory / "features.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> "FeatureSpace":
        data = json.loads((directory / "features.json").read_text(encoding="utf-8"))
        arrays = np.load(directory / "features.npz", allow_pickle=False)
        return cls(
            kinds=tuple(data["kinds"]), corpus_vectors=arrays["corpus_vectors"], vocabulary=data["vocabulary"], idf=arrays["idf"],
            term_weights=data["term_weights"], intent=IntentModel.from_dict(data.get("intent", {})),
        )
