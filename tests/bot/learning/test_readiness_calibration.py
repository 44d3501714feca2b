"""The readiness label and answer reuse measured against what staff sent unchanged; a stricter rule only on held-out evidence."""

from __future__ import annotations

import random

import pytest

from bot.learning.readiness_calibration import Case, Rule, calibrate, calibration_report, fit_rule
from pipeline.generation.readiness import NEEDS_REVIEW, READY, READINESS_FLAG
from review import queue
from review.answer_memory import CURATED_FLAG, CURATED_METHOD
from review.db import session_scope
from tests.review.databases import temp_engine
from tests.review.factories import make_drafted


@pytest.fixture
def engine(tmp_path):
    with temp_engine("sqlite", tmp_path) as eng:
        yield eng


def _readiness(label: str, confidence: float, share: float = 1.0) -> list[dict]:
    return [{"kind": READINESS_FLAG, "flag": label, "label": label, "missing": None, "passages": [], "evidence": {"confidence": confidence, "object_share": share}}]


def _draft(session, *, flags, outcome: str, method: str = "extractive", text: str = "La inscripción cierra el 10 de febrero."):
    d, _ = make_drafted(session, method=method, flags=flags, text=text)
    if outcome == "approve":
        queue.approve(session=session, draft_id=d.id, actor="ana")
    elif outcome == "edit":
        queue.edit(session=session, draft_id=d.id, actor="ana", text="La inscripción a exámenes de febrero cierra el 10 de febrero a las 23:59, en el SGAE.")
    else:
        queue.reject(session=session, draft_id=d.id, actor="ana", reason="incorrect")
    return d


def _office(session, *, ready_high: int, ready_low: int, seed: int = 1) -> None:
    """«listo» drafts: those with a confident best passage are sent unchanged, those below 0.6 are nearly always edited."""
    rng = random.Random(seed)
    for i in range(ready_high):
        _draft(session, flags=_readiness(READY, round(rng.uniform(0.65, 0.98), 3)), outcome="approve" if i % 12 else "edit")
    for i in range(ready_low):
        _draft(session, flags=_readiness(READY, round(rng.uniform(0.50, 0.59), 3)), outcome=("edit", "reject", "edit", "edit", "edit", "edit", "edit", "approve")[i % 8])
    for i in range(10):  # «necesita revisión»: mostly rewritten
        _draft(session, flags=_readiness(NEEDS_REVIEW, 0.4), outcome="approve" if i == 0 else "edit")


def test_a_clearly_better_stricter_rule_is_learnt_on_held_out_decisions_and_adopted(engine):
    with session_scope(engine) as session:
        _office(session, ready_high=48, ready_low=24)
        # a draft of another method with a readiness flag is not an offline draft: not counted
        _draft(session, flags=_readiness(READY, 0.1), outcome="edit", method="derivation")
    with session_scope(engine) as session:
        report = calibration_report(session)
    r = report["readiness"]
    assert r["decisions"] == 82 and r["claimed"] == 72 and r["not_claimed"] == 10 and r["not_claimed_sent_unchanged"] == 1
    assert r["claimed_sent_unchanged"] == 44 + 3  # 48 - 4 edited of the confident ones, 3 of the 24 others
    assert r["precision"] == pytest.approx(47 / 72, abs=1e-4)
    lo, hi = r["interval"]
    assert lo < r["precision"] < hi and hi - lo > 0.05
    assert r["adopted"] is True and r["rule"]["feature"] == "confidence" and 0.59 < r["rule"]["minimum"] <= 0.66
    held = r["held_out"]
    assert held["errors_after"] < held["errors_before"] and held["interval"][1] < 0
    assert held["let_through_after"] <= held["let_through_before"]  # never lets more unsendable drafts through
    assert r["precision_after"] > r["precision"] + 0.2
    assert report["reuse"]["decisions"] == 0 and report["reuse"]["adopted"] is False


def test_too_few_decisions_keep_the_label_as_it_is(engine):
    with session_scope(engine) as session:
        _office(session, ready_high=12, ready_low=6)
    with session_scope(engine) as session:
        r = calibration_report(session)["readiness"]
    assert r["claimed"] == 18 and r["adopted"] is False and r["rule"] is None
    assert "too few" in r["reason"] and "held_out" not in r


def test_a_rule_that_only_fits_noise_is_not_adopted():
    rng = random.Random(9)
    cases = [Case(i, rng.random() < 0.55, True, {"confidence": rng.uniform(0.5, 1.0)}) for i in range(80)]
    assert fit_rule(cases, ["confidence"]) is not None  # on the data it was fitted on, a minimum looks better...
    r = calibrate(cases, ["confidence"])
    held = r["held_out"]
    assert held["errors_after"] < held["errors_before"] and held["interval"][0] < 0 < held["interval"][1]  # ...even held out, by chance
    assert r["adopted"] is False and r["rule"] is None and "stays as it is" in r["reason"]  # but not surely: nothing changes


def test_reuse_precision_is_measured_and_the_threshold_kept_without_evidence(engine):
    with session_scope(engine) as session:
        for i in range(40):
            flag = {"kind": CURATED_FLAG, "answer_id": 1, "approved_at": "2026-11-01T10:00:00", "approved_by": "ana", "similarity": 0.94 + (i % 5) / 100, "lexical": 0.5}
            _draft(session, flags=[flag], outcome="edit" if i % 4 == 0 else "approve", method=CURATED_METHOD)
    with session_scope(engine) as session:
        r = calibration_report(session)["reuse"]
    assert r["decisions"] == r["claimed"] == 40 and r["claimed_sent_unchanged"] == 30 and r["precision"] == 0.75
    assert r["interval"][0] < 0.75 < r["interval"][1]
    assert r["adopted"] is False and r["rule"] is None


def test_an_edit_that_changes_nothing_counts_as_sent_unchanged(engine):
    with session_scope(engine) as session:
        d, _ = make_drafted(session, method="extractive", flags=_readiness(READY, 0.9), text="Cierra el 10 de febrero.")
        queue.edit(session=session, draft_id=d.id, actor="ana", text="Cierra el 10 de febrero.")
    with session_scope(engine) as session:
        r = calibration_report(session)["readiness"]
    assert r["claimed"] == 1 and r["claimed_sent_unchanged"] == 1


# --- the adopted rule is stored and applied; a worse one never replaces the rule in use -----------------------------------

def test_a_calibration_worse_than_the_rule_in_use_is_not_adopted():
    rng = random.Random(4)
    cases = []
    for i in range(90):  # staff send a «listo» draft unchanged when its best passage holds the asked object; confidence is noise
        share = rng.choice((0.5, 0.67, 1.0))
        cases.append(Case(i, share == 1.0 if i % 10 else share != 1.0, True, {"top_object_share": share, "confidence": rng.uniform(0.5, 1.0)}))
    in_use = Rule("top_object_share", 1.0)
    r = calibrate(cases, ["confidence"], current=in_use)  # the only rule it can learn is on the noisy measure
    held = r["held_out"]
    assert held["errors_after"] > held["errors_before"]  # worse than the rule in use on held-out decisions...
    assert r["adopted"] is False and r["rule"] is None and "rule in use stays" in r["reason"]  # ...so never adopted
    assert calibrate(cases, ["confidence"])["held_out"]["errors_before"] > held["errors_before"]  # (the raw label is worse still)


@pytest.fixture
def office(settings, tmp_path):
    import shutil

    from bot.demo import sample
    from bot.ops.documents import ingest_documents
    from bot.wiring.services import Services

    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.gate.enabled = False
    svc = Services(settings)
    ingest_documents(svc, [docs])
    yield svc
    svc.close()


READY_PARTLY = "¿Hasta cuándo me inscribo a los exámenes de febrero?"  # «listo», its best passage holds 2 of the 3 asked words
READY_FULLY = "¿Qué horario tiene Bedelía?"  # «listo», every asked word in its best passage


def _label(svc, question: str) -> dict:
    from bot.loop.drafting import draft_for
    from pipeline.generation.readiness import readiness_of

    return readiness_of(draft_for(svc, question)[0].flags)


def test_an_adopted_readiness_rule_is_stored_and_changes_new_drafts_labels(office):
    from bot.learning.readiness_calibration import adopt_calibration, calibration_path, rule_in_use

    assert _label(office, READY_PARTLY)["flag"] == READY and _label(office, READY_FULLY)["flag"] == READY
    assert adopt_calibration(office)["readiness"]["adopted"] is False and not calibration_path(office).exists()  # no decisions yet
    rng = random.Random(2)
    with session_scope(office.engine) as session:  # «listo» drafts whose best passage misses part of the question are mostly edited
        for i in range(60):
            share = rng.choice((0.5, 0.6667, 1.0))
            sent = (share == 1.0) == (i % 10 != 0)
            flags = [{"kind": READINESS_FLAG, "flag": READY, "label": READY, "missing": None, "passages": [], "evidence": {"top_object_share": share, "object_share": 1.0}}]
            _draft(session, flags=flags, outcome="approve" if sent else "edit")
    report = adopt_calibration(office)
    r = report["readiness"]
    assert r["adopted"] and r["stored"] and r["rule"]["feature"] == "top_object_share" and 0.6667 < r["rule"]["minimum"] <= 1.0
    assert rule_in_use(office, "readiness").minimum == r["rule"]["minimum"] and report["reuse"]["stored"] is False
    partly, fully = _label(office, READY_PARTLY), _label(office, READY_FULLY)
    assert partly["flag"] == NEEDS_REVIEW and partly["uncalibrated"] == READY and partly["calibration"] == r["rule"]
    assert "top_object_share 0.67" in partly["missing"]
    assert fully["flag"] == READY and fully["uncalibrated"] == READY  # above the minimum: still «listo»
    again = adopt_calibration(office)["readiness"]  # the same evidence again: the rule in use is not replaced
    assert again["adopted"] is False and again["rule_in_use"] == r["rule"] and again["current_rule"] == r["rule"]


def _reused(svc, question: str):
    from bot.learning.answer_memory import find_reuse

    return find_reuse(svc, question).answer


def test_an_adopted_reuse_minimum_is_stored_and_used_by_the_reuse_step_and_noise_changes_nothing(office):
    from bot.learning.readiness_calibration import adopt_calibration, calibration_path
    from tests.bot.learning.test_answer_memory import QUESTION, _approve, _ask

    _approve(office, _ask(office, QUESTION), text="Hola: la inscripción a febrero va del 11 al 22 de enero de 2027, por el SIGE. Saludos")
    close = "Hola, ¿hasta cuándo me puedo inscribir a los exámenes de febrero?"  # reused at similarity 0.966 (model-free embedder)
    same = "¿hasta cuándo me puedo inscribir a los exámenes de febrero?"  # reused at similarity 1.0
    assert _reused(office, close) is not None and _reused(office, same) is not None
    rng = random.Random(5)

    def decide_reuses(n: int, sent_if) -> None:
        with session_scope(office.engine) as session:
            for i in range(n):
                sim = round(rng.uniform(0.94, 1.0), 4)
                flag = {"kind": CURATED_FLAG, "answer_id": 1, "approved_at": "2026-11-01T10:00:00", "approved_by": "ana", "similarity": sim, "lexical": 0.9}
                _draft(session, flags=[flag], outcome="approve" if sent_if(i, sim) else "edit", method=CURATED_METHOD)

    decide_reuses(40, lambda i, sim: i % 4 != 0)  # edits unrelated to similarity: no stricter minimum is surely better
    r = adopt_calibration(office)["reuse"]
    assert r["claimed"] == 40 and r["adopted"] is False and r["rule_in_use"] is None and not calibration_path(office).exists()
    assert _reused(office, close) is not None  # the reuse step is unchanged
    decide_reuses(80, lambda i, sim: (sim >= 0.975) == (i % 12 != 0))  # reuses below 0.975 are nearly always edited
    r = adopt_calibration(office)["reuse"]
    assert r["adopted"] and r["stored"] and r["rule"]["feature"] == "similarity" and 0.966 < r["rule"]["minimum"] <= 0.98
    assert _reused(office, close) is None  # below the adopted minimum: drafted the normal way
    assert _reused(office, same) is not None


def test_the_weekly_job_calibrates_and_never_raises(office, monkeypatch):
    from bot.learning import readiness_calibration
    from bot.loop.scheduler import calibrate_weekly

    report = calibrate_weekly(office)
    assert report is not None and report["readiness"]["adopted"] is False and report["readiness"]["rule_in_use"] is None
    monkeypatch.setattr(readiness_calibration, "calibration_report", lambda *a, **k: 1 / 0)
    assert calibrate_weekly(office) is None  # a failure keeps the rules in use


def _part(label: str, share: float, missing: str | None = None):
    from pipeline.generation import Answer

    flag = {"kind": READINESS_FLAG, "flag": label, "label": label, "missing": missing, "passages": [], "evidence": {"top_object_share": share, "confidence": 0.8}}
    return Answer(text="Hola:\n\nTexto.\n\nSaludos", method="extractive", model="x", references=[], no_info=False, extra_flags=[flag])


def test_a_calibrated_rule_checks_every_part_of_a_multi_part_reply():
    from pipeline.generation.parts import merged_readiness
    from pipeline.generation.readiness import apply_rule

    rule = {"feature": "top_object_share", "minimum": 0.9}
    # every part «listo», only the third below the minimum: the reply is «necesita revisión» and names that part
    flag = merged_readiness([_part(READY, 1.0), _part(READY, 0.95), _part(READY, 0.5)])
    assert flag["flag"] == READY and flag["evidence"]["top_object_share"] == 0.5  # the reply is as ready as its weakest part
    assert apply_rule([flag], rule) is True
    assert flag["flag"] == NEEDS_REVIEW and flag["uncalibrated"] == READY
    assert flag["missing"].startswith("pregunta 3: top_object_share 0.50") and "pregunta 1" not in flag["missing"]
    assert [p["flag"] for p in flag["parts"]] == [READY, READY, NEEDS_REVIEW]
    # the first part already lacks something: a later «listo» part below the minimum is still seen and named
    flag = merged_readiness([_part(NEEDS_REVIEW, 0.3, "no encontré la fecha de «inscripción»"), _part(READY, 1.0), _part(READY, 0.6)])
    assert flag["flag"] == NEEDS_REVIEW and flag["missing"] == "pregunta 1: no encontré la fecha de «inscripción»"
    assert apply_rule([flag], rule) is True
    assert flag["missing"].startswith("pregunta 1: no encontré la fecha") and "pregunta 3: top_object_share 0.60" in flag["missing"]
    assert "pregunta 2" not in flag["missing"] and [p["flag"] for p in flag["parts"]] == [NEEDS_REVIEW, READY, NEEDS_REVIEW]
    # every part above the minimum: nothing changes
    flag = merged_readiness([_part(READY, 1.0), _part(READY, 0.95)])
    assert apply_rule([flag], rule) is False and flag["flag"] == READY
    # a one-question reply has no parts and is checked as before
    flag = merged_readiness([_part(READY, 0.5)])
    assert "parts" not in flag and apply_rule([flag], rule) is True and flag["missing"].startswith("top_object_share 0.50")
