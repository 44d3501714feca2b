"""Our own hostile mail set (issue 22, bar 13): each raw message with the outcome it must have after one `run --once`.

Families: Spanish (and English) out-of-office replies and acknowledgements without RFC 3834 headers, delivery-failure
notices without a report part, automatic mail that does carry the headers, students who mention holidays or a failed
delivery while asking (they must be drafted), broken MIME, odd charsets, huge and empty mail, and header attacks.
Written for this benchmark (fresh, not the examples of the issue). `expect`: the message's state ("skipped",
"quarantined", "drafted"); `says`: words the stored question must hold when it is drafted (the text was decoded right).
Used by benchmarks/hostile_mail.py and tests/bot/loop/test_hostile_set.py."""

from __future__ import annotations

import base64
from dataclasses import dataclass

OFFICE = "consultas@ingenieria.example.edu.gt"


@dataclass(frozen=True)
class Case:
    raw: bytes
    expect: str
    says: str | None = None
    family: str = ""


def _head(n: int, subject: str, sender: str, extra: str, date: str) -> str:
    return f"From: {sender}\r\nTo: {OFFICE}\r\nSubject: {subject}\r\nMessage-ID: <hs{n}@example.org>\r\nDate: {date}\r\nMIME-Version: 1.0\r\n{extra}"


def eml(body: str, *, n: int, subject: str = "Consulta", sender: str | None = None, extra: str = "", charset: str = "utf-8",
        encoding: str | None = None, ctype: str = "text/plain", date: str = "Tue, 03 Mar 2026 09:15:00 -0600") -> bytes:
    sender = sender or f"Estudiante {n} <est{n}@example.org>"  # one sender each: the per-sender rate limit is not what is measured
    raw = body.encode(charset.strip('"') if charset not in ("x-unknown-999",) else "utf-8", "surrogatepass")
    cte = ""
    if encoding == "base64":
        raw, cte = base64.encodebytes(raw), "Content-Transfer-Encoding: base64\r\n"
    elif encoding == "8bit":
        cte = "Content-Transfer-Encoding: 8bit\r\n"
    head = _head(n, subject, sender, extra, date) + f"Content-Type: {ctype}; charset={charset}\r\n{cte}\r\n"
    return head.encode("utf-8", "surrogatepass") + raw + b"\r\n"


def multipart(parts: list[tuple[str, bytes]], *, n: int, subject: str = "Consulta", sender: str | None = None, kind: str = "mixed",
              boundary: str = "b0undary", extra: str = "", close: bool = True) -> bytes:
    head = _head(n, subject, sender or f"Estudiante {n} <est{n}@example.org>", extra, "Tue, 03 Mar 2026 09:15:00 -0600") + f"Content-Type: multipart/{kind}; boundary=\"{boundary}\"\r\n\r\n"
    body = b"".join(f"--{boundary}\r\n{h}\r\n\r\n".encode() + payload + b"\r\n" for h, payload in parts)
    return head.encode() + body + (f"--{boundary}--\r\n".encode() if close else b"")


def _text(body: str, charset: str = "utf-8") -> tuple[str, bytes]:
    return f"Content-Type: text/plain; charset={charset}", body.encode(charset)


Q_INSCRIPCION = "¿Hasta qué fecha puedo hacer la asignación de cursos de vacaciones de junio?"
Q_EQUIVALENCIA = "Buenas tardes, ¿qué papeles necesito para pedir la equivalencia de Física Básica?"


def cases() -> dict[str, Case]:
    c: dict[str, Case] = {}
    n = 100

    def add(name: str, raw: bytes, expect: str, says: str | None = None, family: str = "") -> None:
        nonlocal n
        n += 1
        c[name] = Case(raw, expect, says, family)

    # --- Spanish out-of-office replies and acknowledgements, no RFC 3834 headers: skipped
    f = "ooo_es"
    add("ooo_congreso", eml("Gracias por su mensaje. Me encuentro en un congreso fuera del país hasta el viernes 13, con acceso limitado al correo electrónico.\r\n\r\nIng. Marco Tulio Pérez", n=n, subject="RE: Consulta asignación", sender="Marco Pérez <mtperez@example.org>"), "skipped", family=f)
    add("ooo_vacaciones_cierre", eml("Estimado usuario:\r\nPor vacaciones de fin de año estaré fuera de la oficina del 19 de diciembre al 5 de enero. Su correo será atendido a mi regreso.\r\nAtentamente,\r\nSecretaría", n=n, subject="Re: solicitud de constancia", sender="Secretaría <secretaria@example.org>"), "skipped", family=f)
    add("ooo_no_disponible", eml("No estaré disponible del 10 al 14 de marzo. Su mensaje no será reenviado. Para asuntos urgentes llame a la extensión 1121.", n=n, subject="Ausencia", sender="Lucía Morales <lmorales@example.org>"), "skipped", family=f)
    add("ooo_permiso", eml("Hola. Actualmente me encuentro de permiso y me reincorporo el 1 de junio. Durante mi ausencia puede escribir a asistente.academica@example.org.", n=n, subject="Re: cambio de carrera", sender="Coordinación <coord@example.org>"), "skipped", family=f)
    add("ooo_auto_subject", eml("Gracias por comunicarse con nosotros. Le responderemos dentro de las próximas 48 horas hábiles.", n=n, subject="RESPUESTA AUTOMÁTICA: Re: pago de laboratorio", sender="Tesorería <tesoreria@example.org>"), "skipped", family=f)
    add("ooo_acuse_caso", eml("Su mensaje fue recibido correctamente y se le asignó el número de caso 48213. Por favor no responda a este correo.", n=n, subject="Acuse de recibo: Consulta", sender="Mesa de ayuda <ayuda@example.org>"), "skipped", family=f)
    add("ooo_html_only", eml("<html><body><p>Estaré <b>fuera de la oficina</b> hasta el 3 de febrero y no tendré acceso a mi correo.</p><p>Saludos</p></body></html>", n=n, subject="Fuera de la oficina", sender="Raúl Chen <rchen@example.org>", ctype="text/html"), "skipped", family=f)
    add("ooo_latin1_qp", (_head(n, "Respuesta automática: Re: horarios", "Sonia Ixcot <sixcot@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n").encode() + b"Estar=E9 ausente hasta el lunes 9. Responder=E9 su mensaje a mi regreso.\r\n", "skipped", family=f)
    add("ooo_en", eml("I am out of the office until Monday, March 9, with limited access to email. For urgent matters contact registro@example.org.", n=n, subject="Out of Office: Consulta", sender="Ana Ruiz <aruiz@example.org>"), "skipped", family=f)
    add("ooo_licencia_vuelvo", eml("En este momento estoy de licencia y sin acceso al correo. Vuelvo el 20 de abril.", n=n, subject="RE: equivalencias", sender="Julio Batz <jbatz@example.org>"), "skipped", family=f)
    add("ooo_recibimos", eml("Hemos recibido su consulta. Un miembro de nuestro equipo se comunicará con usted a la brevedad.", n=n, subject="Recibimos su mensaje", sender="Atención <atencion@example.org>"), "skipped", family=f)

    # --- delivery-failure notices without a report part: skipped
    f = "ndr"
    add("ndr_exchange_es", eml("Error en la entrega a estos destinatarios o grupos:\r\n\r\nbecas@example.org\r\nEl buzón del destinatario está lleno y no puede aceptar mensajes en este momento.\r\n\r\nInformación de diagnóstico para administradores:\r\nServidor generador: mx1.example.org\r\nRemote Server returned '554 5.2.2 mailbox full'", n=n, subject="No entregado: Consulta beca", sender="Microsoft Outlook <postmaster@example.org>"), "skipped", family=f)
    add("ndr_postfix", eml("This is the mail system at host mx.example.org.\r\n\r\nI'm sorry to have to inform you that your message could not\r\nbe delivered to one or more recipients.\r\n\r\n<orienta@example.net>: host mail.example.net said: 550 5.1.1 User unknown", n=n, subject="Undelivered Mail Returned to Sender", sender="MAILER-DAEMON@mx.example.org (Mail Delivery System)"), "skipped", family=f)
    add("ndr_gmail_es", eml("Dirección no encontrada\r\n\r\nTu mensaje no se entregó a tutorias@example.net porque no se encontró la dirección o esta no puede recibir correo.\r\n\r\nLa respuesta fue:\r\n550 5.1.1 The email account that you tried to reach does not exist.", n=n, subject="Delivery Status Notification (Failure)", sender="Mail Delivery Subsystem <mailer-daemon@googlemail.example>"), "skipped", family=f)
    add("ndr_notificacion", eml("El mensaje no se pudo entregar al destinatario. Error permanente: 552 5.2.2 cuota excedida.", n=n, subject="Notificación de estado de entrega (error)", sender="postmaster@example.org"), "skipped", family=f)
    add("ndr_sendmail", eml("   ----- The following addresses had permanent fatal errors -----\r\n<control@example.net>\r\n    (reason: 550 Host unknown)", n=n, subject="Returned mail: see transcript for details", sender="Mail Delivery Subsystem <MAILER-DAEMON@example.org>"), "skipped", family=f)
    add("ndr_devuelto", eml("No fue posible entregar su mensaje al destinatario: buzón inexistente (550 5.1.1).", n=n, subject="Mensaje devuelto", sender="Postmaster <postmaster@example.org>"), "skipped", family=f)
    add("ndr_retraso", eml("La entrega se ha retrasado a estos destinatarios o grupos:\r\nregistro@example.net\r\nEl servidor seguirá intentando entregar el mensaje durante 48 horas.", n=n, subject="Retraso en la entrega: Consulta", sender="Microsoft Outlook <postmaster@example.org>"), "skipped", family=f)
    add("ndr_report_part", multipart([
        _text("Su mensaje no pudo ser entregado a uno o más destinatarios."),
        ("Content-Type: message/delivery-status", b"Reporting-MTA: dns; mx.example.org\r\n\r\nFinal-Recipient: rfc822; nadie@example.net\r\nAction: failed\r\nStatus: 5.1.1\r\n"),
    ], n=n, subject="Falla en la entrega", sender="MAILER-DAEMON@example.org", kind="report; report-type=delivery-status"), "skipped", family=f)

    # --- automatic mail that says so in its headers: skipped
    f = "auto_headers"
    add("hdr_auto_submitted", eml("Gracias, su solicitud quedó registrada.", n=n, extra="Auto-Submitted: auto-replied\r\n"), "skipped", family=f)
    add("hdr_x_autoreply", eml("Mensaje automático de confirmación.", n=n, extra="X-Autoreply: yes\r\n"), "skipped", family=f)
    add("hdr_precedence_bulk", eml("Boletín semanal de la facultad: actividades de la semana.", n=n, extra="Precedence: bulk\r\n", sender="Boletín <boletin@example.org>"), "skipped", family=f)
    add("hdr_list", eml("Convocatoria a la asamblea estudiantil del jueves.", n=n, extra="List-Id: <estudiantes.example.org>\r\nList-Unsubscribe: <mailto:leave@example.org>\r\n", sender="Lista <estudiantes@example.org>"), "skipped", family=f)
    add("hdr_auto_generated", eml("Su contraseña vence en 5 días.", n=n, extra="Auto-Submitted: auto-generated\r\n", sender="Sistemas <noreply@example.org>"), "skipped", family=f)

    # --- students who mention holidays, absence or a failed delivery while asking: drafted
    f = "student_not_auto"
    add("stu_vacaciones", eml("Hola, durante las vacaciones de junio ¿la oficina atiende en horario normal?", n=n, subject="Vacaciones"), "drafted", "vacaciones", f)
    add("stu_fuera_pais", eml("Voy a estar fuera del país hasta el 15 de julio. ¿Puedo hacer la asignación de cursos desde el extranjero?", n=n, subject="Fuera del país"), "drafted", "asignación", f)
    add("stu_rebote", eml("Mandé mi solicitud a control@example.org y me llegó un aviso de que no se pudo entregar. ¿A qué correo la envío?", n=n, subject="Re: Mensaje no entregado"), "drafted", "correo", f)
    add("stu_licencia", eml("Estoy de licencia laboral hasta mayo; necesito saber si puedo congelar el semestre.", n=n, subject="De licencia"), "drafted", "semestre", f)
    add("stu_respuesta_auto", eml("Recibí una respuesta automática de ustedes pero nadie contestó mi consulta: ¿cuándo abren las inscripciones del segundo semestre?", n=n, subject="Respuesta automática"), "drafted", "inscripciones", f)
    add("stu_ausente", eml("Estuve ausente al parcial por enfermedad. ¿Cómo pido la reposición?", n=n, subject="Ausente al parcial"), "drafted", "reposición", f)

    # --- broken MIME
    f = "broken_mime"
    add("mime_no_closing", multipart([_text(Q_INSCRIPCION)], n=n, close=False), "drafted", "asignación de cursos", f)
    add("mime_wrong_boundary", multipart([_text("nada útil")], n=n, boundary="aaa").replace(b'boundary="aaa"', b'boundary="zzz"'), "quarantined", family=f)
    add("mime_no_parts", _head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600").encode() + b'Content-Type: multipart/mixed; boundary="x"\r\n\r\n--x--\r\n', "quarantined", family=f)
    add("mime_bad_base64", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n").encode() + base64.encodebytes(Q_EQUIVALENCIA.encode())[:-6] + b"!!**\r\n", "drafted", "equivalencia", f)
    add("mime_qp_broken", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n").encode() + b"Buenas tardes, =C2=BFqu=C3=A9 papeles necesito para pedir la equivalencia de F=C3=ADsica B=C3=A1sica?=\r\n=ZZ=\r\n", "drafted", "equivalencia", f)
    add("mime_forward_rfc822", multipart([_text(Q_INSCRIPCION), ("Content-Type: message/rfc822", b"From: otro@example.org\r\nSubject: viejo\r\n\r\nmensaje reenviado\r\n")], n=n), "drafted", "asignación de cursos", f)
    add("mime_html_only_alt", multipart([("Content-Type: text/html; charset=utf-8", f"<div>{Q_EQUIVALENCIA}</div>".encode())], n=n, kind="alternative"), "drafted", "equivalencia", f)
    add("mime_ctype_garbage", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset\r\n\r\n").encode() + Q_INSCRIPCION.encode() + b"\r\n", "drafted", "asignación de cursos", f)
    add("mime_many_parts", multipart([_text(Q_EQUIVALENCIA)] + [(f"Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=f{i}.bin", b"AAAA") for i in range(800)], n=n), "drafted", "equivalencia", f)
    nested = _text(Q_INSCRIPCION)
    inner = f"{nested[0]}\r\n\r\n".encode() + nested[1]
    for depth in range(60):
        inner = f'Content-Type: multipart/mixed; boundary="d{depth}"\r\n\r\n--d{depth}\r\n'.encode() + inner + f"\r\n--d{depth}--".encode()
    add("mime_deep_nesting", _head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600").encode() + inner + b"\r\n", "drafted", "asignación de cursos", f)
    add("mime_no_separator", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-8\r\n").encode() + Q_EQUIVALENCIA.encode() + b"\r\n", "drafted", "equivalencia", f)  # the body line is read as body
    add("mime_only_attachment", multipart([("Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=boleta.pdf", base64.encodebytes(b"%PDF-1.4 no text"))], n=n), "quarantined", family=f)

    # --- odd charsets: drafted, and the text decoded right
    f = "charset"
    add("cs_cp1252", eml("Buenas tardes, ¿qué papeles necesito para pedir la equivalencia de Física Básica? “Gracias”", n=n, charset="windows-1252", encoding="8bit"), "drafted", "Física Básica", f)
    add("cs_latin1", eml(Q_INSCRIPCION, n=n, charset="iso-8859-1", encoding="8bit"), "drafted", "asignación de cursos", f)
    add("cs_latin9_b64", eml("¿Cuánto cuesta el examen de suficiencia? Pagué 150 € por error.", n=n, charset="iso-8859-15", encoding="base64"), "drafted", "suficiencia", f)
    add("cs_latin1_as_utf8", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n").encode() + Q_INSCRIPCION.encode("latin-1") + b"\r\n", "drafted", "cursos de vacaciones", f)
    add("cs_utf8_as_latin1", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n").encode() + Q_INSCRIPCION.encode("utf-8") + b"\r\n", "drafted", "asignación de cursos", f)
    add("cs_utf16_bom", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-16\r\nContent-Transfer-Encoding: base64\r\n\r\n").encode() + base64.encodebytes(Q_EQUIVALENCIA.encode("utf-16")), "drafted", "equivalencia", f)
    add("cs_utf7", (_head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600") + "Content-Type: text/plain; charset=utf-7\r\n\r\n").encode() + Q_EQUIVALENCIA.encode("utf-7") + b"\r\n", "drafted", "equivalencia", f)
    add("cs_alias_utf8", eml(Q_INSCRIPCION, n=n, charset='"UTF8"', encoding="8bit").replace(b'charset="UTF8"', b'charset="UTF8"'), "drafted", "asignación de cursos", f)
    add("cs_koi8_subject", eml(Q_EQUIVALENCIA, n=n, subject="=?koi8-r?B?8NLJ18XU?="), "drafted", "equivalencia", f)
    add("cs_bad_2047_subject", eml(Q_INSCRIPCION, n=n, subject="=?x-nada?Q?Consulta_urgente?="), "drafted", "asignación de cursos", f)
    add("cs_raw_8bit_headers", eml(Q_EQUIVALENCIA, n=n, subject="Equivalencia de Física", sender="José Ñancupil <jose@example.org>"), "drafted", "equivalencia", f)
    add("cs_gb18030", eml("¿Dónde se recoge el carné? 请问", n=n, charset="gb18030", encoding="base64"), "drafted", "carné", f)

    # --- huge and empty
    f = "huge_empty"
    add("empty_headers_only", _head(n, "Consulta", f"Estudiante {n} <est{n}@example.org>", "", "Tue, 03 Mar 2026 09:15:00 -0600").encode() + b"\r\n", "quarantined", family=f)
    add("empty_whitespace", eml(" \r\n\t\r\n   \r\n", n=n), "quarantined", family=f)
    # cleaning leaves nothing of a message that had words: drafted from the original (issue 22), a person reads it
    add("empty_only_signature", eml("--\r\nAna Cifuentes\r\nCarné 202012345", n=n), "drafted", family=f)
    add("empty_only_quote", eml("El mar, 3 mar 2026 a las 9:00, Orientación escribió:\r\n> La asignación cierra el viernes.\r\n> Saludos", n=n, subject="Re: Consulta"), "drafted", family=f)
    add("huge_filler_3mb", eml("Les cuento mi situación con detalle. " * 85000 + Q_EQUIVALENCIA, n=n), "drafted", "equivalencia", f)
    add("huge_attachment", multipart([_text(Q_INSCRIPCION), ("Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=expediente.pdf", base64.encodebytes(b"%PDF" + b"\x00\x01" * 2_500_000))], n=n), "drafted", "asignación de cursos", f)
    add("huge_over_limit", eml("x" * (11 * 1024 * 1024) + Q_INSCRIPCION, n=n), "quarantined", family=f)
    add("huge_one_line", eml("a" * 2_000_000 + " " + Q_EQUIVALENCIA, n=n), "drafted", "equivalencia", f)
    add("huge_header", eml(Q_INSCRIPCION, n=n, extra="X-Relleno: " + "z" * 500_000 + "\r\n"), "drafted", "asignación de cursos", f)
    add("huge_many_headers", eml(Q_EQUIVALENCIA, n=n, extra="".join(f"X-H{i}: v\r\n" for i in range(20000))), "drafted", "equivalencia", f)
    return c
