"""Out-of-office replies and delivery-failure notices without RFC 3834 headers are skipped with a reason; students who
mention holidays or a failed delivery while asking are not."""

from __future__ import annotations

import pytest

from bot.email.autoreply import automatic_reason
from review import states
from tests.bot.email.test_hostile import intake, mail
from tests.review.databases import temp_engine

OUT_OF_OFFICE = [
    ("Re: Solicitud de constancia", "Buenos días:\n\nMe encuentro de vacaciones hasta el 3 de febrero, con acceso limitado al correo. Para asuntos urgentes, comuníquese con secretaria@ingenieria.example.edu.gt.\n\nLic. Rocío Aldana"),
    ("Respuesta automática: Consulta beca", "Gracias por escribir. Le contestaremos en horario de oficina."),
    ("Estoy fuera de la oficina", "Estaré fuera de la oficina hasta el lunes 12. Responderé su mensaje a mi regreso."),
    ("Ausente: Re: pago de matrícula", "Me reincorporo el 20 de enero."),
    ("De licencia", "Estoy de licencia hasta el 1 de marzo. Durante mi ausencia escriba a coordinacion@example.org."),
    ("RE: horarios", "Hola, en este momento estoy ausente y sin acceso a mi correo. Vuelvo el 5 de agosto."),
]
BOUNCES = [
    ("No se puede entregar: Consulta", "No se pudo entregar el mensaje a estos destinatarios o grupos:\n\nana.perez@example.org\nLa dirección de correo electrónico que especificó no se encontró.\n\nInformación de diagnóstico para administradores:\nRemote Server returned '550 5.1.1 RESOLVER.ADR.RecipNotFound; not found'"),
    ("Delivery Status Notification (Failure)", "Address not found\n\nYour message wasn't delivered to tutorias@example.org because the address couldn't be found.\n\nThe response was:\n550 5.1.1 The email account that you tried to reach does not exist."),
    ("Mensaje no entregado", "Su mensaje no pudo ser entregado al destinatario. Error permanente: buzón lleno."),
    ("Undeliverable: Re: inscripción", "Delivery has failed to these recipients or groups:\nbecas@example.org\nThe recipient's mailbox is full."),
]
STUDENTS = [
    ("Vacaciones: ¿abre la oficina?", "Hola, ¿la oficina atiende durante las vacaciones de julio?"),
    ("Consulta", "Estuve de vacaciones hasta el 10 de enero y no pude inscribirme a los exámenes. ¿Qué puedo hacer?"),
    ("Fuera de la oficina", "Estaré fuera del país hasta el 20; necesito saber si puedo rendir el final después."),
    ("Re: constancia", "Les escribí a bedelia@example.org pero me dice que no se pudo entregar el mensaje. ¿A qué dirección lo mando?"),
    ("De licencia", "Estoy de licencia por maternidad hasta marzo, quisiera saber si puedo mantener la beca."),
    ("Vacaciones de invierno", "Buenas, quería consultar si durante las vacaciones de invierno se puede hacer el trámite del título."),
]


@pytest.mark.parametrize("subject, body", OUT_OF_OFFICE)
def test_spanish_out_of_office_replies_are_auto_replies(subject, body):
    assert (automatic_reason(subject, body) or "").startswith("auto_reply"), (subject, body)


@pytest.mark.parametrize("subject, body", BOUNCES)
def test_delivery_failure_notices_without_a_report_part_are_bounces(subject, body):
    assert (automatic_reason(subject, body) or "").startswith("bounce"), (subject, body)


@pytest.mark.parametrize("subject, body", STUDENTS)
def test_students_mentioning_holidays_or_a_failed_delivery_are_not_skipped(subject, body):
    assert automatic_reason(subject, body) is None


def test_the_skip_is_recorded_with_its_reason_and_listed_for_staff(tmp_path):
    from sqlmodel import Session

    from review import queue

    subject, body = OUT_OF_OFFICE[0]
    with temp_engine("sqlite", tmp_path) as engine:
        skipped = intake(engine, mail(body=body, subject=subject, sender="Rocío Aldana <raldana@example.org>", mid="<ooo1@example.org>"), key="t:ooo")
        bounced = intake(engine, mail(body=BOUNCES[0][1], subject=BOUNCES[0][0], sender="Microsoft Outlook <MicrosoftExchange329e71ec@example.org>", mid="<ndr1@example.org>"), key="t:ndr")
        student = intake(engine, mail(body=STUDENTS[1][1], subject=STUDENTS[1][0], mid="<st1@example.org>"), key="t:student")
        assert (skipped.state, bounced.state, student.state) == (states.SKIPPED, states.SKIPPED, states.RECEIVED)
        assert skipped.reason == "auto_reply: an out-of-office reply" and bounced.reason.startswith("bounce:")
        with Session(engine) as s:
            assert {m.id for m in queue.not_drafted(session=s, state=states.SKIPPED)} == {skipped.id, bounced.id}
