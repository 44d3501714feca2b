"""What each Claude call of the product sends, and what it costs, from the models table (pipeline/llm/models.toml).

The sample office is indexed (hashing embedder, no model download) and its answerable sample questions are
retrieved as the product does (k=5 plus support chunks). Each generator (rag, derivation, long-context), the
judge and the synthetic-question generator run against the local Messages API stand-in
(tests/servers/anthropic_server/), on the current default models and on the previous default
(claude-sonnet-4-5 for everything). Input tokens are measured on those real prompts by the stand-in's counter
(chars/3.5, which its count_tokens endpoint also answers, so the product's cache decisions see the same figure; RAG's
passages travel as search-result blocks, counted by their title, source and text); the 5.x models' tokenizer
counts ~30% more tokens for the same text (Haiku 5.5 overview:
"approximately 30% more tokens than on Claude Haiku 4.5"), so their counts are multiplied by 1.3. The stand-in
caches prefixes at the model's minimum from the table. Costs are Usage.cost(prices_for(...)), the function the
drafts (and so the digest's cost per answer) use, long-prompt bands included. Output tokens are scripted replies (the derivation prompt's
worked example 3; a ~600-character RAG reply; a ~200-character judge justification); adaptive thinking tokens
(billed as output on the 5.x models) cannot be measured without the real API and are not included.

Writes benchmarks/results/llm_cost.json.  Run: nice -n 10 python benchmarks/llm_cost.py
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

from bot.demo import sample  # noqa: E402
from bot.ops.documents import ingest_documents  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers.llm_synthetic import in_domain_question  # noqa: E402
from pipeline.generation.derivation import DerivationGenerator  # noqa: E402
from pipeline.generation.long_context import LongContextGenerator  # noqa: E402
from pipeline.generation.rag import RAGGenerator  # noqa: E402
from pipeline.llm import AnthropicLLM, Usage  # noqa: E402
from pipeline.llm.models import model_info, prices_for  # noqa: E402
from pipeline.prompts import load_prompt  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from review.judge import Judge  # noqa: E402
from tests.pipeline.claude_rules import refusals  # noqa: E402
from tests.servers.anthropic_server import FakeAnthropicServer  # noqa: E402

RAG_REPLY = ("Podés inscribirte hasta el viernes 22 de enero de 2027 a las 23:59, solo por el SIGE. " * 5)[:520] + "\n\nReferencias:\n- Exámenes: períodos e inscripción (https://ingenieria.example.edu.uy/estudiantes/examenes)"
JUDGE_REPLY = json.dumps({"justificacion": "La respuesta coincide con la referencia en la fecha y el canal; no agrega datos que la referencia no tenga.", "puntaje": 4}, ensure_ascii=False)
CLAIMS_REPLY = json.dumps({"justificacion": "Las dos afirmaciones están en el extracto 1.", "afirmaciones": [{"texto": "La inscripción cierra el 22 de enero de 2027", "respaldada": True}, {"texto": "Se hace por el SIGE", "respaldada": True}]}, ensure_ascii=False)
DEFAULTS = {"draft": "claude-sonnet-5-5", "judge": "claude-haiku-5-5", "synthetic": "claude-haiku-5-5"}
PREVIOUS = {"draft": "claude-sonnet-4-5", "judge": "claude-sonnet-4-5", "synthetic": "claude-sonnet-4-5"}
EFFORT = {"draft": "medium", "judge": "low", "synthetic": "low"}
WEEK = 500


def example_derivation() -> str:
    text = load_prompt("derivation").text
    part = text.split("### Ejemplo 3")[1].split("### Ejemplo 4")[0]
    return json.dumps(json.loads(part[part.index('{"steps"') :].strip()), ensure_ascii=False)


def counter_for(model: str):
    factor = 1.0 if model.startswith(("claude-sonnet-4", "claude-haiku-4", "claude-opus-4")) else 1.3
    return lambda s: math.ceil(len(s) / 3.5 * factor)


def request_fields(body: dict) -> dict:
    """The shape of one request: top-level fields, output_config keys, where the cache breakpoint is."""
    return {
        "fields": sorted(body),
        "output_config": sorted((body.get("output_config") or {}).keys()),
        "effort": (body.get("output_config") or {}).get("effort"),
        "schema": bool((body.get("output_config") or {}).get("format")),
        "cache_breakpoint_after_system": "cache_control" in body["system"][0],
        "sampling": [k for k in ("temperature", "top_p", "top_k") if k in body],
        "refused_by_real_api_rules": refusals(body),
    }


def run(model: str, role: str, cache: bool, calls) -> tuple[list[Usage], list[dict], list[int]]:
    """Run `calls(llm, server)` against a stand-in caching like `model`; usages, request bodies, statuses."""
    info = model_info(model)
    with FakeAnthropicServer(min_cache_tokens=info.min_cache_tokens, token_counter=counter_for(model)) as server:
        llm = AnthropicLLM(api_key="bench", base_url=server.url, model=model, effort=EFFORT[role], cache=cache, max_retries=0)
        usages = calls(llm, server)
        bodies = [r.json for r in server.message_requests]
        statuses = [r.status for r in server.message_requests]
    return usages, bodies, statuses


def mean_usage(usages: list[Usage]) -> dict:
    return {k: round(statistics.mean(getattr(u, k) for u in usages), 1) for k in ("input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens")}


def cost(usages: list[Usage], model: str, *, batch: bool = False) -> float:
    p = prices_for(model, batch=batch)
    return statistics.mean(u.cost(p) for u in usages)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="orienta-llm-cost-"))
    settings = Settings(data_dir=tmp, _env_file=None)  # type: ignore[call-arg]
    settings.embedding.backend = "hashing"
    services = Services(settings)
    ingest_documents(services, [sample.docs_dir()])
    exp = sample.expected()
    questions = [v["question"] for v in exp["emails"].values() if v["outcome"] == "answerable"]
    r = settings.retrieval
    hits_for = {q: services.retriever.retrieve(q, r.k, support=r.support_chunks) for q in questions}
    deriv_reply = example_derivation()
    methods = {
        "rag": (lambda llm: RAGGenerator(llm=llm), RAG_REPLY),
        "derivation": (lambda llm: DerivationGenerator(llm=llm), deriv_reply),
        "long-context": (lambda llm: LongContextGenerator(llm=llm, index=services.index), RAG_REPLY),
    }
    out: dict = {"questions": len(questions), "models": {k: model_info(m).as_dict() for k, m in {**DEFAULTS, "previous": PREVIOUS["draft"]}.items()}, "per_answer": {}, "judge": {}, "synthetic": {}, "note": __doc__}

    for method, (factory, reply) in methods.items():
        row: dict = {}
        for label, model in (("default", DEFAULTS["draft"]), ("previous", PREVIOUS["draft"])):
            per = {}
            for cache in (False, True):
                def calls(llm, server, factory=factory, reply=reply):
                    gen = factory(llm)
                    usages = []
                    for q in questions:
                        server.enqueue_text(reply)
                        usages.append(gen.generate(q, hits_for[q]).usage)
                    return usages

                usages, bodies, statuses = run(model, "draft", cache, calls)
                steady = usages[1:] if cache else usages  # after the first call the prefix is read from the cache
                per["cached" if cache else "uncached"] = {"usage": mean_usage(steady), "usd_per_answer": round(cost(steady, model), 6)}
                if cache:
                    per["first_call_usd"] = round(cost(usages[:1], model), 6)
                    per["request"] = request_fields(bodies[0])
                    per["accepted_by_stand_in"] = all(s == 200 for s in statuses)
            row[f"{label}:{model}"] = per
        out["per_answer"][method] = row

    # The weekly judge: relevance + correctness + faithfulness per answer, measured on the sample answers.
    answers = {q: "Hola:\n\n" + RAG_REPLY + "\n\nSaludos cordiales,\nOrientación Estudiantil" for q in questions}
    for label, model in (("default", DEFAULTS["judge"]), ("previous", PREVIOUS["judge"])):
        def calls(llm, server):
            judge = Judge(llm=llm, retries=0)
            usages = []
            for q in questions:
                chunks = [h.chunk.text for h in hits_for[q]]
                for call, rep in ((judge.relevance_call(question=q, answer=answers[q]), JUDGE_REPLY), (judge.correctness_call(question=q, answer=answers[q], reference=answers[q]), JUDGE_REPLY), (judge.faithfulness_call(answer=answers[q], chunks=chunks), CLAIMS_REPLY)):
                    server.enqueue_text(rep)
                    usages.append(judge.judge(call).usage)
            return usages

        usages, bodies, statuses = run(model, "judge", True, calls)
        per_answer_sync = 3 * cost(usages, model)
        per_answer_batch = 3 * cost(usages, model, batch=True)
        out["judge"][f"{label}:{model}"] = {
            "usage_per_call": mean_usage(usages),
            "usd_per_answer_sync": round(per_answer_sync, 6),
            "usd_per_answer_batch": round(per_answer_batch, 6),
            f"usd_week_{WEEK}_answers_sync": round(WEEK * per_answer_sync, 4),
            f"usd_week_{WEEK}_answers_batch": round(WEEK * per_answer_batch, 4),
            "request": request_fields(bodies[0]),
            "accepted_by_stand_in": all(s == 200 for s in statuses),
            "prefix_cached": any(u.cache_read_tokens for u in usages),
        }

    chunks = [h.chunk for h in hits_for[questions[0]]][:3]
    for label, model in (("default", DEFAULTS["synthetic"]), ("previous", PREVIOUS["synthetic"])):
        def calls(llm, server):
            usages = []
            for style in ("formal", "informal", "breve", "detallado"):
                server.enqueue_text(json.dumps({"question": "¿Cómo pido la beca de apoyo económico y hasta cuándo puedo?", "chunks_used": [1, 2]}, ensure_ascii=False))
                before = len(server.message_requests)
                in_domain_question(llm, chunks, variant="any", style=style)
                r = server.message_requests[before:][0].response["usage"]
                usages.append(Usage(r["input_tokens"], r["output_tokens"], r.get("cache_creation_input_tokens", 0), r.get("cache_read_input_tokens", 0), 1))
            return usages

        usages, bodies, statuses = run(model, "synthetic", True, calls)
        out["synthetic"][f"{label}:{model}"] = {
            "usage_per_question": mean_usage(usages),
            "usd_per_question": round(cost(usages, model), 7),
            "usd_per_600_questions": round(600 * cost(usages, model), 4),
            "request": request_fields(bodies[0]),
            "accepted_by_stand_in": all(s == 200 for s in statuses),
        }
    services.close()

    print(f"per answer over {len(questions)} answerable sample questions (k={r.k}+{r.support_chunks} support); US$ from models.toml")
    print(f"{'method':14} {'model':22} {'uncached':>10} {'cached':>10}  request")
    for method, row in out["per_answer"].items():
        for key, per in row.items():
            req = per["request"]
            print(f"{method:14} {key.split(':')[1]:22} {per['uncached']['usd_per_answer']:10.5f} {per['cached']['usd_per_answer']:10.5f}  {req['fields']} output_config={req['output_config']} cache={req['cache_breakpoint_after_system']}")
    for key, j in out["judge"].items():
        print(f"judge {key:30} per answer sync {j['usd_per_answer_sync']:.6f} batch {j['usd_per_answer_batch']:.6f}; week of {WEEK}: sync US$ {j[f'usd_week_{WEEK}_answers_sync']:.4f} vs batch US$ {j[f'usd_week_{WEEK}_answers_batch']:.4f}; {j['request']['fields']} {j['request']['output_config']}")
    for key, s in out["synthetic"].items():
        print(f"synthetic {key:26} per question US$ {s['usd_per_question']:.7f}; 600 questions US$ {s['usd_per_600_questions']:.4f}; {s['request']['fields']} {s['request']['output_config']}")
    dest = ROOT / "benchmarks" / "results" / "llm_cost.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, ensure_ascii=False, indent=2))
    print(f"\nwrote {dest}")


if __name__ == "__main__":
    main()
