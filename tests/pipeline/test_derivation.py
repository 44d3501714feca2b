"""Derivation steps: parsing structured and plain-text output, validation, leaves and rendering."""

from __future__ import annotations

import pytest

from pipeline.derivation import Step, leaves, normalise_rule, parse_text, render, steps_from_data, validate
from pipeline.errors import DerivationError


def S(id, rule, premises, conclusion="c", final=False):  # noqa: N802
    return Step(id=id, rule=rule, premises=premises, conclusion=conclusion, is_final=final)


GOOD = [S("s1", "Extract", ["1"]), S("s2", "Extract", ["3"]), S("s3", "Concat", ["s1", "s2"]), S("s4", "Refine", ["s3"], final=True)]


def test_a_valid_tree_returns_its_final_step_and_leaves():
    final = validate(GOOD, n_chunks=3)
    assert final.id == "s4" and leaves(GOOD, final) == {1, 3}


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([], "no steps"),
        ([S("s1", "Extract", ["1", "2"], final=True)], "takes 1 premises"),
        ([S("s1", "Concat", ["1"], final=True)], "takes 2\\+ premises"),
        ([S("s1", "Compose", ["1", "2", "3"], final=True)], "takes 2 premises"),
        ([S("s1", "NoInfo", ["1"], final=True)], "takes 0 premises"),
        ([S("s1", "Extract", ["7"], final=True)], "neither a chunk"),
        ([S("s1", "Refine", ["s2"]), S("s2", "Extract", ["1"], final=True)], "neither a chunk"),  # forward reference
        ([S("s1", "Refine", ["s1"], final=True)], "itself"),
        ([S("s1", "Extract", ["1"]), S("s1", "Refine", ["s1"], final=True)], "used twice"),
        ([S("2", "Extract", ["1"], final=True)], "clashes"),
        ([S("s1", "Extract", ["1"]), S("s2", "Refine", ["s1"])], "found 0"),
        ([S("s1", "Extract", ["1"], final=True), S("s2", "Refine", ["s1"], final=True)], "found 2"),
        ([S("s1", "Guess", ["1"], final=True)], "unknown rule"),
        ([S("s1", "Extract", ["1"], conclusion="  ", final=True)], "empty conclusion"),
    ],
)
def test_invalid_trees_are_rejected_with_a_reason(steps, message):
    with pytest.raises(DerivationError, match=message):
        validate(steps, n_chunks=3)


def test_rule_names_are_normalised():
    assert normalise_rule("no_info") == "NoInfo" and normalise_rule(" EXTRACT ") == "Extract"
    with pytest.raises(DerivationError):
        normalise_rule("Deduce")


def test_structured_output_is_tolerated_in_its_common_variants():
    steps = steps_from_data({"steps": [{"id": "s1", "rule": "extract", "premises": ["h1"], "conclusion": "a", "is_final": "false"}, {"id": "s2", "rule": "Refine", "premises": "s1", "conclusion": "b", "is_final": "sí"}]})
    assert [(s.rule, s.premises, s.is_final) for s in steps] == [("Extract", ["1"], False), ("Refine", ["s1"], True)]
    with pytest.raises(DerivationError, match="no 'steps'"):
        steps_from_data({"pasos": []})
    with pytest.raises(DerivationError, match="not an object"):
        steps_from_data({"steps": ["s1"]})


def test_plain_text_lines_parse_with_or_without_ids():
    text = """Acá va la derivación:
    | id | regla | premisas | conclusión | final |
    s1 | Extract | 1 | La inscripción cierra el 22 de enero. | no
    Extract | h2 | Se hace por el SIGE | no
    s3 | Concat | s1, s2 | Cierra el 22 de enero; por el SIGE. | no
    s4 | Refine | s3 | Te podés inscribir hasta el 22 de enero por el SIGE. | Sí
    """
    steps = parse_text(text)
    assert [s.id for s in steps] == ["s1", "s2", "s3", "s4"]
    assert steps[1].premises == ["2"] and steps[2].premises == ["s1", "s2"] and steps[3].is_final
    assert validate(steps, n_chunks=2).id == "s4"


def test_plain_text_noinfo_and_embedded_json():
    assert parse_text("s1 | NoInfo | - | No hay información. | sí")[0].premises == []
    steps = parse_text('Claro: ```json\n{"steps": [{"id": "s1", "rule": "NoInfo", "premises": [], "conclusion": "x", "is_final": true}]}\n```')
    assert steps[0].rule == "NoInfo" and steps[0].is_final


def test_text_without_steps_is_a_clear_error():
    with pytest.raises(DerivationError, match="no derivation steps"):
        parse_text("Lo siento, no puedo ayudar con eso.")


def test_render_shows_the_tree_root_first_with_flags():
    steps = [S("s1", "Extract", ["1"], "a"), S("s2", "Refine", ["s1"], "b", final=True)]
    steps[1].flags = ["dato nuevo"]
    out = render(steps, ["Exámenes"])
    assert out.splitlines() == ["[s2] Refine: b  ⚠ dato nuevo", "  [s1] Extract: a", "    (h1) Exámenes"]
