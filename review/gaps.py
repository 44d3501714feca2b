"""Content gaps: cluster the questions orienta could not answer, with representative examples."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

STOP = frozenset(
    "a al algo como con cual cuales cuando de del donde el ella en es esa ese eso esta este esto estoy fue ha hay la las le les lo los me mi mis muy no o para pero por que qué quien se ser si sin sobre su sus te tengo tiene un una uno y ya yo hola buenas buenos dias tardes gracias saludos quisiera quiero saber consulta puedo debo hacer favor".split()
)
MAX_QUESTIONS = 2000  # clustering is quadratic; a larger week is sampled evenly


_ACCENTS = str.maketrans("áéíóúüàèìòù", "aeiouuaeiou")


def _fold(text: str) -> str:
    """Lower case without vowel accents (ñ stays ñ: 'año' is not 'ano')."""
    return unicodedata.normalize("NFC", text.lower()).translate(_ACCENTS)


def cluster_questions(questions: Sequence[str], *, threshold: float = 0.85, examples: int = 3, max_clusters: int = 10) -> list[dict]:
    """Groups of similar questions, largest first: {size, examples, terms}."""
    qs = [q.strip() for q in questions if q and q.strip()]
    if not qs:
        return []
    step = max(1, len(qs) // MAX_QUESTIONS)
    sample = qs[::step][:MAX_QUESTIONS]
    weight = len(qs) / len(sample)
    if len(sample) == 1:
        return [{"size": len(qs), "examples": sample[:examples], "terms": []}]
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(preprocessor=_fold, stop_words=sorted(STOP), ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"(?u)\b\w\w+\b")
    try:
        X = vec.fit_transform(sample).toarray()
    except ValueError:  # nothing but stop words
        return [{"size": len(qs), "examples": sample[:examples], "terms": []}]
    empty = ~X.any(axis=1)
    X[empty] = 1e-9  # cosine needs a non-zero vector; stop-word-only questions form their own group
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average", distance_threshold=threshold).fit_predict(X)
    vocab = np.array(vec.get_feature_names_out())
    out = []
    for label in set(labels.tolist()):
        idx = np.flatnonzero(labels == label)
        centroid = X[idx].mean(axis=0)
        norms = np.linalg.norm(X[idx], axis=1) * (np.linalg.norm(centroid) or 1.0)
        closeness = (X[idx] @ centroid) / np.where(norms == 0, 1.0, norms)
        order = idx[np.argsort(-closeness, kind="stable")]
        terms = [str(vocab[i]) for i in np.argsort(-centroid) if centroid[i] > 0 and " " not in vocab[i]][:3]
        out.append({"size": int(round(len(idx) * weight)), "examples": [sample[i] for i in order[:examples]], "terms": terms})
    out.sort(key=lambda c: (-c["size"], c["examples"][0]))
    return out[:max_clusters]
