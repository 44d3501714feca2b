"""The campus router: whose business is a message — one of the offices, or none (out of domain).

Two parts, both trained from the offices' documents only: a campus gate (the ordinary gate, fitted on every office's
chunks) says whether the message is any office's business; an office scorer says whose, from how close the message is
to each office's own documents, with weights shared by all offices and learnt from synthetic questions and staff moves.
The evidence for an office: its best and top-k dense and lexical similarities, how far its best is behind the best
office's (the offices compete for a message: what matters is which one's documents fit it best, not how well in
absolute terms), and how much of the message's wording (idf-weighted terms) one of its passages, and its documents
as a whole, contain: a course code or a subject's name found only in the study plans says more than many passages that
share the message's common words; and which office's questions its words are like (`Wording`: a per-office word model
fitted on the offices' synthetic questions, the one feature that learns which words belong to which office; it also
reads the character n-grams within words, so a student's spelling, plural or verb form the documents do not use still
points to the office whose questions share its pieces). A message that asks about the world rather than about anyone's
studies (`GeneralKnowledge`: "¿En qué año…?", "¿Quién fue…?", "¿Cuál es la capital…?") must clear a higher bar of the
campus gate, halfway from its threshold to certainty, as a message naming another institution must at an office's gate.
Persisted as JSON + NumPy arrays (no pickle)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from classifiers.errors import GateError, GateNotTrained
from classifiers.gate import Gate, halfway_bar
from classifiers.general_knowledge import GeneralKnowledge
from classifiers.tfidf import tfidf_rows
from pipeline.embeddings import Embedder

FORMAT_VERSION = 8  # 8: the general-knowledge model stores the words the offices' questions often use (the rest of the documents' words read as a second placeholder); 7: the general-knowledge model is stored with the router; 5: `coverage_behind` replaces the passage and office coverage features (a router saved before has 10 columns); 6: the word model reads character n-grams too
TOP_K = 3
WORDING_C = 4.0  # inverse regularisation of the word model (chosen by grouped cross-validation on the synthetic questions)
WORDING_FOLDS = 5
WORDING_CHARS = True  # the word model also reads character n-grams within words (students' spellings are not the documents')
WORDING_CHAR_NGRAMS = (3, 4)  # (3, 5) routed every dev and fresh question the same, with 45% more features and a slower fit
GENERAL_KNOWLEDGE_MIN = 0.5  # a message the general-knowledge model gives at least this must clear the campus gate's higher bar
OFFICE_GATE_MIN_PROBABILITY = 0.2  # an office the scorer gives less than this is not offered a message its betters' gates refused


class RouterNotTrained(GateNotTrained):
    """No router is stored yet."""


@dataclass(slots=True)
class RouteDecision:
    """The router's verdict on one message."""

    office: str | None  # None: no office's business (out of domain)
    probabilities: dict[str, float]  # office -> probability that it is its business (given that it is someone's)
    in_domain_score: float  # the campus gate's probability that some office handles it
    latency_ms: float = 0.0
    refused_by: list[str] = field(default_factory=list)  # offices the router would have chosen whose own gate refused the message
    general_knowledge: float = 0.0  # the probability that it asks about the world rather than anyone's studies
    barred: bool = False  # the campus gate's threshold alone would have let it in; the higher bar for general knowledge did not

    def margin_over(self, office: str) -> float:
        """How much more likely the chosen office is than `office`."""
        if self.office is None:
            return 0.0
        return self.probabilities.get(self.office, 0.0) - self.probabilities.get(office, 0.0)


FEATURES = ("dense_best", "dense_top", "lexical_best", "lexical_top", "dense_behind", "lexical_behind", "coverage_behind", "wording", "wording_behind")
N_FEATURES = len(FEATURES)  # per office


def _top(sims: np.ndarray, k: int) -> np.ndarray:
    """(n, 2): the best value and the mean of the top-k of each row."""
    if sims.shape[1] == 0:
        return np.zeros((sims.shape[0], 2), dtype=np.float32)
    kk = min(k, sims.shape[1])
    top = -np.partition(-sims, kk - 1, axis=1)[:, :kk]
    return np.column_stack([top.max(axis=1), top.mean(axis=1)])


def office_similarities(query_vecs: np.ndarray, office_vectors: Sequence[np.ndarray], k: int = TOP_K) -> np.ndarray:
    """Per query and office: the best cosine to the office's chunks and the mean of its top-k."""
    return np.hstack([_top(query_vecs @ v.T if v.size else np.zeros((len(query_vecs), 0)), k) for v in office_vectors]).astype(np.float32)


@dataclass
class Lexicon:
    """Word TF-IDF (unigrams and bigrams, accents folded) fitted on the offices' documents, with each office's chunk rows."""

    vocabulary: dict[str, int]
    idf: np.ndarray
    office_rows: list  # scipy CSR matrices, one per office
    _vectorizer: object = field(default=None, repr=False)

    @staticmethod
    def _new_vectorizer():
        from sklearn.feature_extraction.text import TfidfVectorizer

        from pipeline.text import fold

        return TfidfVectorizer(preprocessor=fold, sublinear_tf=True, ngram_range=(1, 2), dtype=np.float32)

    @classmethod
    def fit(cls, office_texts: Sequence[Sequence[str]]) -> "Lexicon":
        vec = cls._new_vectorizer()
        vec.fit([t for texts in office_texts for t in texts])
        lex = cls(vocabulary={k: int(v) for k, v in vec.vocabulary_.items()}, idf=vec.idf_.astype(np.float32), office_rows=[])
        lex._vectorizer = vec
        lex.office_rows = [lex.transform(texts) for texts in office_texts]
        return lex

    @property
    def vectorizer(self):
        if self._vectorizer is None:
            vec = self._new_vectorizer()
            vec.vocabulary_ = dict(self.vocabulary)
            vec.idf_ = np.asarray(self.idf, dtype=np.float64)
            self._vectorizer = vec
        return self._vectorizer

    def transform(self, texts: Sequence[str]):
        return tfidf_rows(self.vectorizer, list(texts))

    def coverage(self, texts: Sequence[str], *, rows=None) -> tuple[np.ndarray, np.ndarray]:
        """Per text: the idf-weighted share of its terms found in each chunk (all offices' chunks, in order), and in each
        office's documents as a whole. `rows`: the texts' `transform`, when already computed."""
        from scipy.sparse import csr_matrix, vstack

        cached = self.__dict__.get("_presence")
        if cached is None:
            presence = vstack(self.office_rows).tocsr().astype(np.float32)
            presence.data[:] = 1.0
            owner = np.concatenate([np.full(r.shape[0], i) for i, r in enumerate(self.office_rows)]) if self.office_rows else np.zeros(0, dtype=int)
            owners = csr_matrix((np.ones(len(owner), dtype=np.float32), (owner, np.arange(len(owner)))), shape=(len(self.office_rows), len(owner)))
            union = (owners @ presence).tocsr()
            union.data[:] = 1.0
            only = np.asarray(union.sum(axis=0)).ravel() == 1  # terms that one office's documents alone contain
            exclusive = union.multiply(only[None, :].astype(np.float32)).tocsr()
            cached = self.__dict__["_presence"] = (presence.T.tocsc(), union.T.tocsc(), exclusive.T.tocsc())
        q = (self.transform(texts) if rows is None else rows).tocsr().astype(np.float32)  # a copy: its data is replaced
        q.data = np.asarray(self.idf, dtype=np.float32)[q.indices]
        total = np.asarray(q.sum(axis=1)).ravel() + 1e-6
        self.__dict__["_exclusive"] = (q @ cached[2]).toarray() / total[:, None]  # read by `exclusive_coverage`, right after
        return (q @ cached[0]).toarray() / total[:, None], (q @ cached[1]).toarray() / total[:, None]

    def exclusive_coverage(self, texts: Sequence[str]) -> np.ndarray:
        """Per text and office: the idf-weighted share of its terms found in that office's documents and in no other
        office's (a course code, a subject's name): the wording only one office's documents share with the message."""
        self.coverage(texts)
        return self.__dict__.pop("_exclusive")

    def similarities(self, texts: Sequence[str], k: int = TOP_K) -> np.ndarray:
        """Per text and office: the best TF-IDF cosine to the office's chunks and the mean of its top-k."""
        q = self.transform(texts)
        return np.hstack([_top((q @ rows.T).toarray(), k) for rows in self.office_rows]).astype(np.float32)


@dataclass
class Wording:
    """Which office's questions a message's words are like: word TF-IDF and a multinomial logistic regression fitted on
    the offices' synthetic questions (per-office word weights, which the shared feature weights cannot learn)."""

    vocabulary: dict[str, int]
    idf: np.ndarray
    coef: np.ndarray  # (n_offices, n_terms): the word terms' columns, then the character n-grams'
    intercept: np.ndarray  # (n_offices,)
    char_vocabulary: dict[str, int] | None = None  # character n-grams within words (None: words only)
    char_idf: np.ndarray | None = None
    _vectorizer: object = field(default=None, repr=False)
    _char_vectorizer: object = field(default=None, repr=False)

    @staticmethod
    def _new_char_vectorizer(min_df: int = 1):
        from sklearn.feature_extraction.text import TfidfVectorizer

        from pipeline.text import fold

        return TfidfVectorizer(preprocessor=fold, analyzer="char_wb", ngram_range=WORDING_CHAR_NGRAMS, sublinear_tf=True, min_df=min_df, dtype=np.float32)

    @classmethod
    def fit(cls, texts: Sequence[str], labels: Sequence[str], offices: Sequence[str], *, c: float = WORDING_C, chars: bool | None = None, seed: int = 7) -> "Wording":
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        from pipeline.text import fold

        min_df = 2 if len(texts) >= 50 else 1
        vec = TfidfVectorizer(preprocessor=fold, sublinear_tf=True, ngram_range=(1, 2), min_df=min_df, dtype=np.float32)
        x = vec.fit_transform(list(texts))
        char_vec = None
        if WORDING_CHARS if chars is None else chars:  # a word spelt otherwise (a doubled letter, a plural, a verb's other form) still shares most of its pieces
            char_vec = cls._new_char_vectorizer(min_df)
            x = hstack([x, char_vec.fit_transform(list(texts))]).tocsr()
        y = np.array([list(offices).index(label) for label in labels])
        clf = LogisticRegression(C=c, max_iter=2000, class_weight="balanced", random_state=seed).fit(x, y)
        coef = np.full((len(offices), x.shape[1]), 0.0, dtype=np.float32)
        intercept = np.full(len(offices), -30.0, dtype=np.float32)  # an office without questions is never its words' office
        if len(clf.classes_) == 2:  # one row for two classes: log-odds of the second, as a softmax over (0, z)
            coef[clf.classes_[1]], intercept[clf.classes_[1]] = clf.coef_[0], clf.intercept_[0]
            intercept[clf.classes_[0]] = 0.0
        else:
            coef[clf.classes_], intercept[clf.classes_] = clf.coef_, clf.intercept_
        out = cls(vocabulary={k: int(v) for k, v in vec.vocabulary_.items()}, idf=vec.idf_.astype(np.float32), coef=coef, intercept=intercept)
        if char_vec is not None:
            out.char_vocabulary, out.char_idf = {k: int(v) for k, v in char_vec.vocabulary_.items()}, char_vec.idf_.astype(np.float32)
            out._char_vectorizer = char_vec
        out._vectorizer = vec
        return out

    def log_probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """(n, n_offices) log-probabilities over the offices from the words alone."""
        if self._vectorizer is None:
            vec = Lexicon._new_vectorizer()
            vec.vocabulary_, vec.idf_ = dict(self.vocabulary), np.asarray(self.idf, dtype=np.float64)
            self._vectorizer = vec
        x = tfidf_rows(self._vectorizer, list(texts))
        if self.char_vocabulary is not None:
            from scipy.sparse import hstack

            if self._char_vectorizer is None:
                vec = self._new_char_vectorizer()
                vec.vocabulary_, vec.idf_ = dict(self.char_vocabulary), np.asarray(self.char_idf, dtype=np.float64)
                self._char_vectorizer = vec
            x = hstack([x, tfidf_rows(self._char_vectorizer, list(texts))]).tocsr()
        z = np.asarray(x @ self.coef.T) + self.intercept
        z = z - z.max(axis=1, keepdims=True)
        return (z - np.log(np.exp(z).sum(axis=1, keepdims=True))).astype(np.float32)


def wording_out_of_fold(texts: Sequence[str], labels: Sequence[str], offices: Sequence[str], groups: Sequence[str], *, folds: int = WORDING_FOLDS) -> np.ndarray:
    """Each question's `Wording` log-probabilities from a model fitted without its group (its chunk): the feature as it
    is for a question the model never saw, so the office scorer does not learn to trust an overfitted one."""
    from sklearn.model_selection import GroupKFold

    out = np.zeros((len(texts), len(offices)), dtype=np.float32)
    k = min(folds, len(set(groups)))
    if k < 2:
        return Wording.fit(texts, labels, offices).log_probabilities(texts)
    for tr, te in GroupKFold(k).split(np.zeros(len(texts)), groups=list(groups)):
        if len({labels[i] for i in tr}) < 2:
            continue  # the left-out fold holds every other office: no model to judge it, the feature stays neutral
        out[te] = Wording.fit([texts[i] for i in tr], [labels[i] for i in tr], offices).log_probabilities([texts[i] for i in te])
    return out


def _split_top(sims: np.ndarray, bounds: Sequence[int], k: int = TOP_K) -> np.ndarray:
    """(n, n_offices, 2) from one similarity matrix over every office's chunks, cut at `bounds`."""
    return np.stack([_top(sims[:, a:b], k) for a, b in zip(bounds[:-1], bounds[1:])], axis=1)


def coverage_behind(whole: np.ndarray) -> np.ndarray:
    """(n, n_offices): how far behind the best office's each office's coverage of the message is (0 for the best, < 0
    for the others). `whole`: per message and office, the idf-weighted share of the message's terms its documents
    contain. A term every office's documents contain adds the same to each office's share and cancels out, so what
    counts is the rare wording (a course code, a subject's name, "toga", "protocolo") only some offices share with the
    message, weighted by its rarity, like an idf over the offices; the absolute shares, which grow with an office's
    size and the message's common words, do not enter."""
    whole = np.asarray(whole, dtype=np.float32)
    if whole.shape[1] == 0:
        return whole
    return whole - whole.max(axis=1, keepdims=True)


def office_features(query_vecs: np.ndarray, texts: Sequence[str], office_vectors: Sequence[np.ndarray], lexicon: Lexicon, *, stacked: np.ndarray | None = None, wording: np.ndarray | None = None) -> np.ndarray:
    """(n, n_offices, N_FEATURES): the evidence that each message is each office's business (see FEATURES); `wording`:
    the messages' `Wording` log-probabilities (None: no word model, both wording features 0).

    One product over all offices' chunks (dense, then sparse), cut per office: the cost grows with the chunks, not the offices."""
    from scipy.sparse import vstack

    bounds = np.cumsum([0, *(len(v) for v in office_vectors)]).tolist()
    dense = _split_top(query_vecs @ (np.vstack(office_vectors).T if stacked is None else stacked), bounds)
    lexical_bounds = np.cumsum([0, *(r.shape[0] for r in lexicon.office_rows)]).tolist()
    rows = lexicon.__dict__.get("_stacked")
    if rows is None:
        rows = lexicon.__dict__["_stacked"] = vstack(lexicon.office_rows).tocsr().T.tocsc()
    q = lexicon.transform(texts)  # once: the similarities and the coverage both read it
    lexical = _split_top((q @ rows).toarray(), lexical_bounds)
    behind = np.stack([dense[:, :, 0] - dense[:, :, 0].max(axis=1, keepdims=True), lexical[:, :, 0] - lexical[:, :, 0].max(axis=1, keepdims=True)], axis=2)
    coverage = coverage_behind(lexicon.coverage(texts, rows=q)[1])
    lexicon.__dict__.pop("_exclusive", None)  # `Lexicon.exclusive_coverage`: measured as a 9th feature, it did not help (0.903 vs 0.908)
    words = np.zeros((len(texts), len(office_vectors)), dtype=np.float32) if wording is None else np.asarray(wording, dtype=np.float32)
    words = np.stack([words, words - words.max(axis=1, keepdims=True)], axis=2)
    return np.concatenate([dense, lexical, behind, coverage[:, :, None], words], axis=2).astype(np.float32)


@dataclass
class Router:
    """Campus gate + office scorer: one weight per feature, shared by every office (a conditional logit), so that every
    office, a new one included, is scored the same way and none is favoured for how many examples it had."""

    offices: list[str]
    office_vectors: list[np.ndarray]  # each office's own chunk vectors (L2-normalised; shared campus documents left out)
    lexicon: Lexicon
    gate: Gate | None  # None: every message is some office's business (no out-of-domain decision)
    mean: np.ndarray  # (N_FEATURES,) standardisation of the features
    scale: np.ndarray
    weights: np.ndarray  # (N_FEATURES,)
    bias: np.ndarray  # (n_offices,)
    meta: dict = field(default_factory=dict)
    memory: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))  # vectors of messages staff gave an office
    memory_offices: list[str] = field(default_factory=list)  # ... and the office each was given to
    memory_message_ids: list[int] = field(default_factory=list)  # ... and the message each came from (retention forgets it)
    memory_similarity: float = 0.92  # a message this close to one of them goes where staff sent that one
    wording: Wording | None = None  # the word model over the offices (None: its features are 0)
    general: GeneralKnowledge | None = None  # general knowledge: such a message must clear a higher campus-gate bar (None: no bar)

    # ------------------------------------------------------------ scores
    def office_probabilities(self, query_vecs: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """(n, n_offices) probabilities over the offices."""
        if "_stacked" not in self.__dict__:
            self.__dict__["_stacked"] = np.ascontiguousarray(np.vstack(self.office_vectors).T)
        words = None if self.wording is None else self.wording.log_probabilities(texts)
        f = (office_features(query_vecs, texts, self.office_vectors, self.lexicon, stacked=self.__dict__["_stacked"], wording=words) - self.mean) / self.scale
        z = f @ self.weights + self.bias
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def remembered(self, query_vecs: np.ndarray) -> list[str | None]:
        """For each message, the office staff gave a message this close to (None: no such message)."""
        if self.memory.size == 0:
            return [None] * len(query_vecs)
        sims = query_vecs @ self.memory.T
        best = sims.argmax(axis=1)
        return [self.memory_offices[int(j)] if sims[i, j] >= self.memory_similarity else None for i, j in enumerate(best)]

    def forget_messages(self, message_ids: set[int]) -> int:
        """Drop these messages from the staff memory (all of it when the memory does not say which message each vector
        came from); how many vectors went."""
        n = len(self.memory_offices)
        if n == 0:
            return 0
        if len(self.memory_message_ids) != n:
            keep: list[int] = []
        else:
            keep = [i for i, m in enumerate(self.memory_message_ids) if m not in message_ids]
        if len(keep) == n:
            return 0
        idx = np.asarray(keep, dtype=np.int64)
        self.memory = self.memory[idx] if keep else np.zeros((0, 0), dtype=np.float32)
        self.memory_offices = [self.memory_offices[i] for i in keep]
        self.memory_message_ids = [self.memory_message_ids[i] for i in keep]
        return n - len(keep)

    def choose(self, query_vecs: np.ndarray, texts: Sequence[str]) -> list[str]:
        """The office for each message that is someone's business: as staff decided for a near-identical message, else the best scored."""
        probs = self.office_probabilities(query_vecs, texts)
        return [m or self.offices[int(np.argmax(p))] for m, p in zip(self.remembered(query_vecs), probs)]

    def route_many(self, texts: Sequence[str], embedder: Embedder, *, query_vecs: np.ndarray | None = None, office_gates: Mapping[str, Gate | None] | None = None, min_probability: float = OFFICE_GATE_MIN_PROBABILITY) -> list[RouteDecision]:
        """One decision per message; `query_vecs` (the questions' embeddings) are reused when given.

        With `office_gates` (office -> its own gate; None or absent: no gate, it accepts), an office whose own gate
        refuses the message does not take it: the next best office with at least `min_probability` whose gate accepts
        does, and a message every such office refuses is no office's business. Gates are asked lazily, best office
        first, so a message its best office accepts costs one gate."""
        start = time.perf_counter()
        if query_vecs is None:
            query_vecs = embedder.embed_queries(list(texts))
        probs = self.office_probabilities(np.asarray(query_vecs, dtype=np.float32), texts)
        if self.gate is not None:  # the whole message, with the vector just computed (its sentences are the office gate's job)
            dense, sparse = self.gate.space.transform(list(texts), embedder=embedder, query_vecs=query_vecs)
            in_scores, threshold = self.gate.probabilities_from_features(dense, sparse), self.gate.threshold
        else:
            in_scores, threshold = np.ones(len(texts)), 0.0
        general = self.general.probabilities(texts) if self.general is not None and self.gate is not None else np.zeros(len(texts), dtype=np.float32)
        in_scores, barred = general_knowledge_bar(in_scores, general, threshold)
        remembered = self.remembered(np.asarray(query_vecs, dtype=np.float32))
        out = []
        for i, (p, score, memo) in enumerate(zip(probs, in_scores, remembered)):
            office = memo or (self.offices[int(np.argmax(p))] if score >= threshold else None)  # staff said whose it is: it is someone's
            refused: list[str] = []
            if memo:
                p = np.array([1.0 if o == memo else 0.0 for o in self.offices])
            elif office is not None and office_gates:
                office, refused = self._office_gate_choice(texts[i], np.asarray(query_vecs[i]), p, office_gates, embedder, min_probability)
            out.append(RouteDecision(office=office, probabilities={o: float(v) for o, v in zip(self.offices, p)}, in_domain_score=float(score), refused_by=refused,
                                     general_knowledge=float(general[i]), barred=bool(barred[i]) and not memo))
        elapsed = (time.perf_counter() - start) * 1000 / max(1, len(texts))
        for d in out:
            d.latency_ms = elapsed
        return out

    def _office_gate_choice(self, text: str, vec: np.ndarray, p: np.ndarray, gates: Mapping[str, Gate | None], embedder: Embedder, floor: float) -> tuple[str | None, list[str]]:
        """The best office (by the scorer) whose own gate accepts `text`, among those with probability >= `floor` (the
        best one always considered); None when every one of them refuses. Also the offices that refused."""
        refused = []
        for rank, j in enumerate(np.argsort(-p)):
            office = self.offices[int(j)]
            if rank and p[j] < floor:
                break
            gate = gates.get(office)
            if gate is None or float(gate.probabilities([text], embedder, query_vecs=vec.reshape(1, -1))[0]) >= gate.threshold:
                return office, refused
            refused.append(office)
        return None, refused

    def route(self, text: str, embedder: Embedder, *, query_vec: np.ndarray | None = None, office_gates: Mapping[str, Gate | None] | None = None) -> RouteDecision:
        """The decision for one message (its embedding reused when given; see `route_many` for `office_gates`)."""
        return self.route_many([text], embedder, query_vecs=None if query_vec is None else np.asarray(query_vec).reshape(1, -1), office_gates=office_gates)[0]

    # ------------------------------------------------------------ persistence
    def save(self, directory: Path) -> Path:
        """router.json + router.npz (no pickle); the campus gate in gate/."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        arrays = {"mean": self.mean, "scale": self.scale, "weights": self.weights, "bias": self.bias, "idf": self.lexicon.idf, "memory": self.memory}
        for i, (v, rows) in enumerate(zip(self.office_vectors, self.lexicon.office_rows)):
            arrays |= {f"office_{i}": v, f"lex_{i}_data": rows.data, f"lex_{i}_indices": rows.indices, f"lex_{i}_indptr": rows.indptr, f"lex_{i}_shape": np.array(rows.shape)}
        (directory / "vocabulary.json").write_text(json.dumps(self.lexicon.vocabulary, ensure_ascii=False), encoding="utf-8")
        if self.wording is not None:
            arrays |= {"wording_idf": self.wording.idf, "wording_coef": self.wording.coef, "wording_intercept": self.wording.intercept}
            (directory / "wording_vocabulary.json").write_text(json.dumps(self.wording.vocabulary, ensure_ascii=False), encoding="utf-8")
            if self.wording.char_vocabulary is not None:
                arrays |= {"wording_char_idf": self.wording.char_idf}
                (directory / "wording_char_vocabulary.json").write_text(json.dumps(self.wording.char_vocabulary, ensure_ascii=False), encoding="utf-8")
        if self.general is not None:
            arrays |= self.general.arrays()
            (directory / "general_knowledge.json").write_text(json.dumps(self.general.vocabularies(), ensure_ascii=False), encoding="utf-8")
        np.savez(directory / "router.npz", **arrays)
        if self.gate is not None:
            self.gate.save(directory / "gate")
        meta = {**self.meta, "format": FORMAT_VERSION, "offices": self.offices, "has_gate": self.gate is not None, "has_wording": self.wording is not None, "has_general": self.general is not None, "memory_offices": self.memory_offices, "memory_message_ids": self.memory_message_ids, "memory_similarity": self.memory_similarity}
        (directory / "router.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return directory / "router.json"

    @classmethod
    def load(cls, directory: Path) -> "Router":
        from scipy.sparse import csr_matrix

        directory = Path(directory)
        path = directory / "router.json"
        if not path.exists():
            raise RouterNotTrained(f"no router in {directory}: run `orienta offices train-router`")
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.pop("format", None) != FORMAT_VERSION:
            raise RouterNotTrained(f"the router in {directory} has an old format: run `orienta offices train-router`")
        a = np.load(directory / "router.npz", allow_pickle=False)
        offices = meta.pop("offices")
        memory_offices, memory_similarity = meta.pop("memory_offices", []), float(meta.pop("memory_similarity", 0.92))
        memory_message_ids = [int(m) for m in meta.pop("memory_message_ids", [])]
        rows = [csr_matrix((a[f"lex_{i}_data"], a[f"lex_{i}_indices"], a[f"lex_{i}_indptr"]), shape=tuple(a[f"lex_{i}_shape"])) for i in range(len(offices))]
        vocabulary = json.loads((directory / "vocabulary.json").read_text(encoding="utf-8"))
        gate = Gate.load(directory / "gate") if meta.pop("has_gate") else None
        wording = None
        if meta.pop("has_wording", False):
            words = json.loads((directory / "wording_vocabulary.json").read_text(encoding="utf-8"))
            wording = Wording(vocabulary=words, idf=a["wording_idf"], coef=a["wording_coef"], intercept=a["wording_intercept"])
            if "wording_char_idf" in a.files:
                wording.char_vocabulary = json.loads((directory / "wording_char_vocabulary.json").read_text(encoding="utf-8"))
                wording.char_idf = a["wording_char_idf"]
        general = None
        if meta.pop("has_general", False):
            general = GeneralKnowledge.from_stored(json.loads((directory / "general_knowledge.json").read_text(encoding="utf-8")), a)
        return cls(
            offices=offices, office_vectors=[a[f"office_{i}"] for i in range(len(offices))], lexicon=Lexicon(vocabulary=vocabulary, idf=a["idf"], office_rows=rows),
            gate=gate, mean=a["mean"], scale=a["scale"], weights=a["weights"], bias=a["bias"], meta=meta,
            memory=a["memory"], memory_offices=memory_offices, memory_message_ids=memory_message_ids, memory_similarity=memory_similarity, wording=wording, general=general,
        )


def general_knowledge_bar(score: np.ndarray, general: np.ndarray, threshold: float, *, floor: float = GENERAL_KNOWLEDGE_MIN) -> tuple[np.ndarray, np.ndarray]:
    """(scores, where the bar decided): a message that asks about the world (`general` >= `floor`) passes the campus
    gate only with in-domain evidence halfway from the threshold to certainty; below that its score is scaled under the
    threshold (order kept). Its frame is the frame of many office questions and its topic is no office's, so a score
    just above the threshold is weak evidence for it (`classifiers.gate.halfway_bar`, the rule `elsewhere_bar` uses too)."""
    score = np.asarray(score, dtype=float).copy()
    barred = np.zeros(len(score), dtype=bool)
    hit = np.asarray(general) >= floor
    score[hit], barred[hit] = halfway_bar(score[hit], threshold)
    return score, barred


def fit_offices(
    features: np.ndarray,
    labels: Sequence[str],
    *,
    offices: Sequence[str],
    weights: Sequence[float] | None = None,
    c: float = 1.0,
    seed: int = 7,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fit the office scorer on (n, n_offices, N_FEATURES) features of labelled questions: (mean, scale, weights, bias).

    One row per (question, office), positive for the right office: the weights are shared by every office."""
    from sklearn.linear_model import LogisticRegression

    if len(set(labels)) < 2:
        raise GateError("routing needs questions of at least two offices")
    unknown = set(labels) - set(offices)
    if unknown:
        raise GateError(f"examples labelled with unknown offices: {sorted(unknown)}")
    n, k, d = features.shape
    flat = features.reshape(-1, d)
    mean, scale = flat.mean(axis=0), flat.std(axis=0) + 1e-6
    x = (flat - mean) / scale
    y_index = np.array([list(offices).index(label) for label in labels])
    y = (np.arange(k)[None, :] == y_index[:, None]).reshape(-1).astype(int)
    w = None if weights is None else np.repeat(np.asarray(weights, dtype=np.float64), k)
    clf = LogisticRegression(C=c, max_iter=3000, random_state=seed).fit(x, y, sample_weight=w)
    return mean.astype(np.float32), scale.astype(np.float32), np.asarray(clf.coef_[0], dtype=np.float32), np.zeros(k, dtype=np.float32)


def routing_report(truth: Sequence[str | None], predicted: Sequence[str | None], *, offices: Sequence[str]) -> dict:
    """Macro-F1 over the offices plus "out of domain" (the classes present in the truth), accuracy, confusion matrix."""
    from sklearn.metrics import f1_score

    none = "(fuera de dominio)"
    t = [none if x is None else x for x in truth]
    p = [none if x is None else x for x in predicted]
    labels = [o for o in offices if o in set(t)] + ([none] if none in set(t) else [])
    extra = sorted(set(t) - set(labels))  # offices in the file the deployment does not know
    labels += extra
    macro = float(f1_score(t, p, labels=labels, average="macro", zero_division=0)) if labels else 0.0
    per_class = f1_score(t, p, labels=labels, average=None, zero_division=0) if labels else []
    columns = labels + sorted(set(p) - set(labels))
    confusion = {a: {b: sum(1 for x, y in zip(t, p) if x == a and y == b) for b in columns} for a in labels}
    return {
        "macro_f1": macro,
        "accuracy": float(np.mean([a == b for a, b in zip(t, p)])) if t else 0.0,
        "f1": {label: float(v) for label, v in zip(labels, per_class)},
        "confusion": confusion,
        "n": len(t),
    }
