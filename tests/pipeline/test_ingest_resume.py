"""Resumable, atomic ingestion: a document is indexed whole or not at all, and a killed ingest resumes to the same index."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.embed_cache import CachedEmbedder, EmbeddingCache
from pipeline.embeddings import HashingEmbedder
from pipeline.index import PENDING, ChunkIndex
from pipeline.ingest import ingest

ROOT = Path(__file__).resolve().parents[2]
WORDS = "beca inscripción examen reválida trámite constancia pago cuota plazo requisito carné título equivalencia horario aula laboratorio".split()


def write_corpus(folder: Path, n_docs: int, sections: int, seed: int = 7) -> Path:
    """Markdown documents with `sections` headed sections of varied sentences each (many chunks and units)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(n_docs):
        parts = [f"# Documento {d}\n"]
        for s in range(sections):
            sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + f" (caso {d}-{s}-{k})." for k in range(rng.randint(4, 9))]
            parts.append(f"## Sección {s}\n\n" + " ".join(sentences) + "\n\n- Paso uno del trámite {s}.\n- Paso dos: presentar la constancia.\n")
        (folder / f"doc{d:03d}.md").write_text("\n".join(parts), encoding="utf-8")
    return folder


def snapshot(qdrant_dir: Path) -> dict:
    """Every point: id -> (dense vector, sparse vector, payload without the ingestion time)."""
    idx = ChunkIndex(path=qdrant_dir)
    try:
        out = {}
        offset = None
        while True:
            points, offset = idx.client.scroll(idx.collection, limit=512, offset=offset, with_payload=True, with_vectors=True)
            for p in points:
                payload = {k: v for k, v in (p.payload or {}).items() if k != "ingested_at"}
                sparse = p.vector.get("sparse")
                out[str(p.id)] = (np.asarray(p.vector["dense"], dtype=np.float32), (list(sparse.indices), list(sparse.values)) if sparse else None, payload)
            if offset is None:
                return out
    finally:
        idx.close()


def assert_same_index(a: dict, b: dict) -> None:
    assert a.keys() == b.keys(), f"{len(a.keys() - b.keys())} points only in the first, {len(b.keys() - a.keys())} only in the second"
    for pid, (dense, sparse, payload) in a.items():
        d2, s2, p2 = b[pid]
        # equal up to float32 rounding: qdrant-client's local mode re-normalises a cosine vector written over a deleted
        # point's slot (a redone document) and the last bit may differ; the embeddings themselves are the same
        assert np.allclose(dense, d2, rtol=0, atol=1e-6), pid
        assert sparse == s2, pid
        assert payload == p2, pid


class Interrupted(BaseException):
    """Stands for the process dying (not an Exception: nothing in ingestion may catch it)."""


def test_a_document_cut_short_is_invisible_and_discarded_then_redone(tmp_path):
    docs = write_corpus(tmp_path / "docs", 3, 6)
    clean = ChunkIndex(path=tmp_path / "clean")
    ingest([docs], index=clean, embedder=HashingEmbedder(dim=64))
    clean.close()

    idx = ChunkIndex(path=tmp_path / "cut", batch_size=4)
    real_upsert, calls = idx.client.upsert, {"n": 0}

    def dying_upsert(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:  # the first document's points are all written, the second's are half written
            raise Interrupted
        return real_upsert(*args, **kwargs)

    idx.client.upsert = dying_upsert
    with pytest.raises(Interrupted):
        ingest([docs], index=idx, embedder=HashingEmbedder(dim=64))
    idx.close()

    idx = ChunkIndex(path=tmp_path / "cut")
    written = idx.client.count(idx.collection, exact=True).count
    docs_seen = idx.documents()
    pending = [c for c, _ in idx.all_chunks()]
    assert written > sum(d["chunks"] for d in docs_seen.values())  # hidden points of the half-written document exist
    assert len(docs_seen) == 1 and len(pending) == next(iter(docs_seen.values()))["chunks"]  # ... but nothing shows them
    hits = idx.search_dense(HashingEmbedder(dim=64).embed_queries(["trámite constancia"])[0], 1000)
    assert {h.chunk.doc_id for h in hits} == set(docs_seen)
    report = ingest([docs], index=idx, embedder=HashingEmbedder(dim=64))
    assert len(report.recovered["discarded"]) == 1 and not report.recovered["completed"]
    assert sorted(report.added) == sorted({f"doc{i:03d}" for i in range(3)} - set(docs_seen)) and report.unchanged == list(docs_seen)
    idx.close()
    assert_same_index(snapshot(tmp_path / "clean"), snapshot(tmp_path / "cut"))


def test_a_version_written_whole_but_not_yet_flipped_is_completed(tmp_path):
    docs = write_corpus(tmp_path / "docs", 2, 4)
    clean = ChunkIndex(path=tmp_path / "clean")
    ingest([docs], index=clean, embedder=HashingEmbedder(dim=64))
    clean.close()

    idx = ChunkIndex(path=tmp_path / "cut")

    def dying_flip(*args, **kwargs):
        raise Interrupted

    idx._flip = dying_flip
    with pytest.raises(Interrupted):
        ingest([docs], index=idx, embedder=HashingEmbedder(dim=64))
    idx.close()
    idx = ChunkIndex(path=tmp_path / "cut")
    assert idx.documents() == {} and idx.count() > 0
    again = ingest([docs], index=idx, embedder=HashingEmbedder(dim=64))
    # the first document's version was whole: recover() made it live; the second was never written: written now
    assert len(again.recovered["completed"]) == 1 and not again.recovered["discarded"]
    assert len(again.unchanged) == 1 and len(again.added) == 1
    idx.close()
    assert_same_index(snapshot(tmp_path / "clean"), snapshot(tmp_path / "cut"))


def _env(data_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORIENTA_", "ANTHROPIC_"))}
    env.update(ORIENTA_EMBEDDING__BACKEND="hashing", ORIENTA_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT))
    return env


def _orienta(data_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from bot.cli import main; main()", *args], capture_output=True, text=True, env=_env(data_dir), cwd=cwd, timeout=600)


def _job(db: Path) -> dict | None:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute("SELECT state, pid, docs_total, docs_done, chunks_total, chunks_done FROM ingest_job ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    return dict(zip(("state", "pid", "docs_total", "docs_done", "chunks_total", "chunks_done"), row)) if row else None


N_DOCS = 12  # enough documents that the kill lands between some written and some not (three processes run in turn)


@pytest.mark.timeout(900)  # three CLI processes one after another: under a loaded machine this takes minutes
def test_sigkill_mid_ingest_then_rerun_gives_the_same_index_as_an_uninterrupted_run(tmp_path):
    """A real `orienta ingest --background` process, killed with SIGKILL while writing; the rerun resumes it."""
    docs = write_corpus(tmp_path / "docs", N_DOCS, 20)
    clean = _orienta(tmp_path / "clean", "ingest", str(docs), "--json", cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr
    import json

    clean_report = json.loads(clean.stdout)
    assert len(clean_report["added"]) == N_DOCS

    data = tmp_path / "killed"
    started = _orienta(data, "ingest", str(docs), "--background", "--json", cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    deadline, job = time.monotonic() + 600, None
    while time.monotonic() < deadline:
        job = _job(data / "orienta.db")
        if job and job["chunks_total"] and job["chunks_done"] >= job["chunks_total"] // 3:
            break
        time.sleep(0.05)
    assert job and job["state"] == "running" and job["chunks_done"] < job["chunks_total"], job
    os.kill(job["pid"], signal.SIGKILL)
    for _ in range(100):
        try:
            os.kill(job["pid"], 0)
            if Path(f"/proc/{job['pid']}/stat").read_text().split()[2] == "Z":
                break
        except (ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.05)

    status = json.loads(_orienta(data, "ingest", "--status", "--json", cwd=tmp_path).stdout)
    assert status[0]["state"] == "interrupted" and 0 < status[0]["docs_done"] < N_DOCS
    cached_before = EmbeddingCache(data / "cache").count()
    assert cached_before > 0
    resumed = _orienta(data, "ingest", str(docs), "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["unchanged"] and len(report["unchanged"]) + len(report["added"]) == N_DOCS
    # nothing embedded twice: what the killed run embedded plus what the rerun embedded is what one clean run embeds
    assert cached_before + report["embedding"]["embedded"] == clean_report["embedding"]["embedded"]
    assert_same_index(snapshot(tmp_path / "clean" / "qdrant"), snapshot(data / "qdrant"))
    idx = ChunkIndex(path=data / "qdrant")
    try:
        assert idx.client.count(idx.collection, count_filter=None, exact=True).count == sum(d["chunks"] for d in idx.documents().values())
        assert not any((p.payload or {}).get(PENDING) for p in idx._scroll(with_vectors=False))
    finally:
        idx.close()
