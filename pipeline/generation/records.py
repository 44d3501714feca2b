"""The records of the whole index by name and code: one course in several curricula, and codes turned into names."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pipeline.chunking import Chunk
from pipeline.generation.course_plan import code_label, code_names, names_by_code, semesters_by_name
from pipeline.generation.lexical import doc_keys, query_keys
from pipeline.text import tokens
from pipeline.generation.selection import units_of
from pipeline.units import Unit, record_code, record_name

Entry = tuple[Chunk, Unit]


def name_key(name: str) -> str:
    return " ".join(tokens(name))


@dataclass
class RecordBook:
    """Records (units with a name field) of every indexed chunk, looked up by folded name and, per document, by code."""

    by_name: dict[str, dict[str, Entry]]  # name -> doc_id -> first record of that name in the document
    by_code: dict[str, dict[str, Entry]]  # doc_id -> code -> record
    labels: dict[str, str]  # doc_id -> how the document names its programme
    distinct: dict[str, set[str]]  # doc_id -> keys that tell this document apart from the others
    plans: dict[str, list[Entry]] = field(default_factory=dict)  # doc_id -> every record, in the document's order (a code may name several)
    prose: dict[str, list[Entry]] = field(default_factory=dict)  # doc_id -> the sentences of a document that has records (what the plan says of the career)
    _words: dict[str, frozenset[str]] | None = None

    @classmethod
    def build(cls, chunks: list[Chunk]) -> "RecordBook":
        by_name: dict[str, dict[str, Entry]] = {}
        by_code: dict[str, dict[str, Entry]] = {}
        headings: dict[str, list[str]] = {}
        titles: dict[str, str] = {}
        plans: dict[str, dict[str, Entry]] = {}  # keyed by the unit's text: overlapping chunks repeat units
        prose: dict[str, dict[str, Entry]] = {}
        for c in chunks:
            titles.setdefault(c.doc_id, c.doc_title)
            for u in units_of(c):
                if u.kind == "heading":
                    headings.setdefault(c.doc_id, []).append(u.text)
                if u.kind == "sentence":
                    prose.setdefault(c.doc_id, {}).setdefault(u.text, (c, u))
                if u.kind != "record":
                    continue
                plans.setdefault(c.doc_id, {}).setdefault(u.text, (c, u))
                name, code = record_name(u), record_code(u)
                if name:
                    by_name.setdefault(name_key(name), {}).setdefault(c.doc_id, (c, u))
                if code:
                    by_code.setdefault(c.doc_id, {}).setdefault(code.lstrip("0") or "0", (c, u))
        docs = sorted(titles)
        freq = Counter(w for d in docs for w in set(tokens(d.replace("_", " "))))
        distinct = {d: {k for w in tokens(d.replace("_", " ")) if freq[w] <= max(1, len(docs) // 3) for k in query_keys(w)} for d in docs}
        labels = {}
        for d in docs:
            label = next((h for h in headings.get(d, []) if len(h.split()) <= 5 and distinct[d] and distinct[d] <= doc_keys(h)), None)
            labels[d] = label or titles[d]
        if len(set(labels.values())) < len(labels):  # titles that do not tell documents apart: use the file names
            labels = {d: labels[d] if list(labels.values()).count(labels[d]) == 1 else d.replace("_", " ") for d in docs}
        plan = {d: sorted(by.values(), key=lambda e: (e[0].position, e[1].offset)) for d, by in plans.items()}
        said = {d: sorted(prose.get(d, {}).values(), key=lambda e: (e[0].position, e[1].offset)) for d in plan}
        return cls(by_name, by_code, labels, distinct, plan, said)

    def names(self, doc_id: str, course: str = "", lang: str = "es") -> dict[str, str]:
        """Code -> name of the records of one document (codes as written, with and without leading zeros). A code the
        plan gives to several courses is named as course_plan.code_names says for `course` (a course of an earlier
        semester, then one sharing its name: Termodinámica 2 needs 0390, Termodinámica 1), else as the plan's own ambiguity
        (course_plan.code_label)."""
        out = {}
        plan = [u for _, u in self.plans.get(doc_id, [])]
        shared, semesters = names_by_code(plan), semesters_by_name(plan)
        for code, (_, u) in self.by_code.get(doc_id, {}).items():
            name = code_label(code_names(shared.get(code, []), course, semesters), lang) or record_name(u)
            if name:
                out[code] = name
                out[record_code(u)] = name
        return out

    def entry(self, doc_id: str, code: str) -> Entry | None:
        return self.by_code.get(doc_id, {}).get(code.lstrip("0") or "0")

    def named_in(self, question: str) -> list[Entry]:
        """Records of every document whose name the question says in full (the longest such names)."""
        from pipeline.generation.selection import name_words

        words = name_words(question)
        if self._words is None:
            self._words = {key: name_words(key) for key in self.by_name}
        found = [key for key, w in self._words.items() if w and w <= words]
        if not found:
            return []
        longest = max(len(self._words[k]) for k in found)
        return [e for k in found if len(self._words[k]) == longest for e in self.by_name[k].values()]

    def same_name(self, unit: Unit) -> dict[str, Entry]:
        """The record of this name in every document that has one."""
        return self.by_name.get(name_key(record_name(unit)), {})

    def programmes_named(self, question: str, doc_ids: list[str], course: str) -> list[str]:
        """Documents whose distinctive words the question says (words of the course name itself do not count)."""
        asked = set(query_keys(question)) - set(query_keys(course))
        scored = []
        for d in doc_ids:
            keys = self.distinct.get(d, set())
            if keys and keys & asked:
                scored.append((len(keys & asked) / len(keys), len(keys & asked), d))
        if not scored:
            return []
        best = max(s[:2] for s in scored)
        return [d for *s, d in scored if tuple(s) == best]
