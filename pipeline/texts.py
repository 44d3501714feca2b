"""User-facing text (Spanish by default), kept in one place."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "greeting": "Hola:",
        "closing": "Saludos cordiales,\nOrientación Estudiantil — Facultad de Ingeniería",
        "according_to": "Según la documentación de la Facultad:",
        "no_info": (
            "Gracias por tu consulta. No encontramos información sobre este tema en la documentación "
            "de la Facultad. Un integrante del equipo la revisará y te responderá a la brevedad."
        ),
        "out_of_domain": (
            "Gracias por escribirnos. Este canal atiende consultas sobre trámites y reglamentos de la "
            "Facultad de Ingeniería (inscripciones, exámenes, créditos, becas, títulos, posgrados). "
            "Tu consulta parece estar fuera de ese ámbito, por lo que no podemos ayudarte con ella."
        ),
        "references": "Referencias:",
        "extractive_label": "Borrador extractivo (sin LLM): frases copiadas de los documentos; revisar antes de enviar.",
        "per_programme": "{name} no es igual en todas las carreras:",
        "other_programmes": "Las demás carreras que lo incluyen",
        "which_programme": "{name} figura en {n} carreras con datos distintos ({programmes}). ¿En qué carrera estás inscrito o inscrita? Así te indicamos el dato que te corresponde.",
        "reply_subject_prefix": "Re: ",
        "part": "pregunta",
    },
    "en": {
        "greeting": "Hello,",
        "closing": "Kind regards,\nStudent Services — Faculty of Engineering",
        "according_to": "According to the Faculty's documents:",
        "no_info": "Thank you for your question. We found no information about it in the Faculty's documents. A member of staff will get back to you.",
        "out_of_domain": "Thank you for writing. This channel answers questions about the Faculty of Engineering's procedures and regulations; your question seems to be outside that scope.",
        "references": "References:",
        "extractive_label": "Extractive draft (no LLM): sentences copied from the documents; review before sending.",
        "per_programme": "{name} differs between programmes:",
        "other_programmes": "The other programmes that include it",
        "which_programme": "{name} appears in {n} programmes with different details ({programmes}). Which programme are you enrolled in?",
        "reply_subject_prefix": "Re: ",
        "part": "question",
    },
}


def t(key: str, lang: str = "es") -> str:
    """The user-facing text for `key` in `lang` (falls back to Spanish)."""
    return TEXTS.get(lang, TEXTS["es"]).get(key) or TEXTS["es"][key]


# Slack review UI (bot/slack/blocks.py); English falls back to these.
TEXTS["es"].update(
    {
        "review_card_title": "Borrador #{draft_id} para revisar",
        "review_from": "{channel} · de {sender}",
        "review_channel_email": "📧 Correo",
        "review_channel_slack": "💬 Slack",
        "review_subject": "Asunto",
        "review_question": "Pregunta (limpia)",
        "review_gate": "Gate",
        "review_gate_in": "en dominio",
        "review_gate_out": "FUERA DE DOMINIO",
        "review_gate_none": "sin gate",
        "review_gate_no_info": "en dominio, sin información en los documentos",
        "review_gate_reasons": "motivos",
        "review_method": "Método · modelo",
        "review_conversation": "Conversación ({n} turnos anteriores)",
        "review_turn_student": "Estudiante",
        "review_turn_office": "Oficina",
        "review_query": "Búsqueda (consulta completada con el hilo)",
        "review_parts": "Preguntas del mensaje (respondidas en orden)",
        "review_draft": "Borrador",
        "review_office": "🏢 Oficina: {office}",
        "review_routed": "🔀 Derivado {route} ({by})",
        "review_routed_by_router": "por el ruteador",
        "review_routed_by_staff": "por el equipo",
        "review_routed_by_conversation": "sigue su conversación",
        "review_truncated": "(texto truncado; se ve completo en Editar)",
        "review_references": "Referencias",
        "review_no_references": "sin referencias",
        "review_claim": "↳ «{claim}» — extracto {passage}: “{quote}”",
        "review_uncited": "⚠️ Afirmaciones sin cita ({n}): el modelo no las apoyó en ningún extracto; verificalas antes de aprobar.",
        "review_flags": "⚠️ El verificador marcó {n} paso(s)",
        "review_step": "paso",
        "review_no_info": "Sin información en los documentos: posible hueco de contenido.",
        "review_fallback": "La derivación falló; este borrador se generó con RAG.",
        "review_offline_fallback": "⚠️ Borrador sin modelo: el modelo (o un servicio) no respondía, así que se redactó en modo offline con los documentos; revisalo con más cuidado.",
        "review_foreign_links": "🔗 Enlaces que NO están en los documentos (posible inyección): {links}",
        "review_approve_links": "Aprobar con enlaces",
        "review_confirm_links_title": "¿Enviar enlaces ajenos?",
        "review_confirm_links_text": "El borrador contiene enlaces que no aparecen en los documentos: {links}. ¿Confirmás que son correctos y querés enviarlo?",
        "review_confirm_links_yes": "Sí, enviar",
        "review_links_need_confirmation": "El borrador #{draft_id} contiene enlaces que no están en los documentos ({links}). Usá «Aprobar con enlaces» para confirmarlos, o editá el borrador y quitalos.",
        "review_edit_foreign_links": "La respuesta mantiene enlaces que no están en los documentos ({links}). Quitalos, o cerrá el formulario y usá «Aprobar con enlaces».",
        "review_outcome_refusal": "⛔ El modelo se negó a responder: no hay borrador; escribí la respuesta (Editar) o rechazá.",
        "review_outcome_truncated": "✂️ Respuesta truncada: el modelo se cortó antes de terminar; revisá el final antes de aprobar.",
        "review_outcome_paused": "⏸️ Respuesta incompleta: el modelo pausó el turno antes de terminar; revisá antes de aprobar.",
        "review_approve": "Aprobar",
        "review_edit": "Editar",
        "review_reject": "Rechazar",
        "review_derivation": "Ver derivación",
        "review_edit_title": "Editar borrador",
        "review_edit_label": "Respuesta que recibirá el estudiante",
        "review_edit_submit": "Aprobar y enviar",
        "review_cancel": "Cancelar",
        "review_edit_empty": "La respuesta no puede quedar vacía.",
        "review_edit_unchanged": "No hiciste cambios: usá Aprobar para enviar el borrador tal cual.",
        "review_edit_too_long": "La respuesta es demasiado larga para Slack (máximo {n} caracteres).",
        "review_edit_in_terminal": "El borrador #{draft_id} supera los {n} caracteres que admite un formulario de Slack: editalo con `orienta review edit {draft_id}`.",
        "review_reject_title": "Rechazar borrador",
        "review_reject_reason": "Motivo",
        "review_reject_placeholder": "Elegí un motivo",
        "review_reject_comment": "Comentario (opcional)",
        "review_reject_submit": "Rechazar",
        "review_reject_no_reason": "Elegí un motivo de rechazo.",
        "review_derivation_title": "Derivación",
        "review_no_derivation": "Este borrador no tiene derivación (método {method}).",
        "review_close": "Cerrar",
        "review_done_approve": "✅ Aprobado por {who} · {when}",
        "review_done_edit": "✏️ Editado y aprobado por {who} · {when}",
        "review_done_reject": "🚫 Rechazado por {who} · {when} · motivo: {reason}",
        "review_sent_text": "Texto enviado",
        "review_comment": "Comentario",
        "review_already": "Este borrador ya fue decidido por {who} ({action}).",
        "review_not_authorised": "No estás autorizado/a para revisar borradores. Pedile acceso al equipo de orientación.",
        "review_missing_draft": "No encontré el borrador #{draft_id}.",
        "review_error": "No se pudo registrar la decisión: {error}",
        "review_action_approve": "aprobado",
        "review_action_edit": "editado",
        "review_action_reject": "rechazado",
        "review_home_title": "Cola de revisión",
        "review_home_pending": "Pendientes",
        "review_home_oldest": "Más antiguo",
        "review_home_mine": "Mis decisiones hoy",
        "review_home_empty": "No hay borradores pendientes. 🎉",
        "review_home_next": "Próximos en la cola",
        "review_home_open": "Ver tarjeta",
        "review_age_minutes": "hace {n} min",
        "review_age_hours": "hace {n} h",
        "review_age_days": "hace {n} días",
    }
)

# the approved-answer memory (review card, buttons, notes)
TEXTS["es"].update(
    {
        "answer_based_on": "♻️ basada en la respuesta aprobada #{answer_id} del {date}",
        "answer_checked_by": " · comprobada por {model}: «{reason}»",
        "answer_suggested": "💡 Parecida a la respuesta aprobada #{answer_id} del {date}: «{question}»",
        "answer_use": "Editar desde la respuesta #{answer_id}",
        "answer_personal": " ⚠️ Contiene datos personales de otro estudiante ({found}): no está lista para enviar; quitalos al editar.",
        "answer_not_usable": "La respuesta #{answer_id} ya no está activa o sus documentos cambiaron: editá el borrador.",
        "answer_save": "Guardar como respuesta estándar",
        "answer_retire": "Retirar respuesta #{answer_id}",
        "answer_saved": "Respuesta estándar #{answer_id} guardada: se reutilizará para preguntas parecidas mientras no cambien los documentos que cita.",
        "answer_retired": "Respuesta #{answer_id} retirada: ya no se usará como borrador.",
        "answer_error": "No se pudo completar la acción sobre la respuesta: {error}",
    }
)
TEXTS["en"].update(
    {
        "answer_based_on": "♻️ based on approved answer #{answer_id} of {date}",
        "answer_checked_by": " · checked by {model}: “{reason}”",
        "answer_suggested": "💡 Close to approved answer #{answer_id} of {date}: “{question}”",
        "answer_use": "Edit from answer #{answer_id}",
        "answer_personal": " ⚠️ Holds another student's personal data ({found}): not ready to send; remove it when editing.",
        "answer_not_usable": "Answer #{answer_id} is no longer active or its documents changed: edit the draft.",
        "answer_save": "Save as standard answer",
        "answer_retire": "Retire answer #{answer_id}",
        "answer_saved": "Standard answer #{answer_id} saved: it will be reused for similar questions while the documents it cites are unchanged.",
        "answer_retired": "Answer #{answer_id} retired: it will no longer be used as a draft.",
        "answer_error": "The action on the answer failed: {error}",
    }
)

# messages set aside without a draft (acknowledged, skipped, quarantined) and the "necesita respuesta" action
TEXTS["es"].update(
    {
        "set_aside_title": "Mensajes sin borrador",
        "set_aside_acknowledged": "cierre (sin respuesta)",
        "set_aside_skipped": "omitido",
        "set_aside_quarantined": "en cuarentena",
        "set_aside_action": "Necesita respuesta",
        "set_aside_sent_back": "Mensaje {message_id}: vuelve a redactarse; el borrador aparece en la cola en el próximo `orienta run`.",
        "set_aside_done": "↩️ {who} lo marcó como «necesita respuesta»: vuelve a redactarse.",
        "set_aside_error": "No se pudo enviar el mensaje a redactar: {error}",
        "set_aside_none": "Ningún mensaje quedó sin borrador.",
        "review_turn_acknowledged": "cierre, sin respuesta",
        "hidden_text_flag": "texto oculto en el correo",
    }
)
# readiness of an offline draft (pipeline/generation/readiness.py, the review card and `review show`)
TEXTS["es"].update(
    {
        "ready": "listo",
        "needs_review": "necesita revisión",
        "readiness_title": "Estado del borrador",
        "readiness_passages": "Pasajes más cercanos (para redactar la respuesta):",
        "missing_type": "no encontré {what}: «{object}»",
        "missing_object": "no encontré un pasaje sobre «{object}»",
        "list_in_article": "(la lista completa está en el artículo {n} del documento citado)",
        "list_in_document": "(la lista completa está en el documento citado)",
        "missing_list": "el borrador no incluye la lista que anuncia el pasaje elegido",
        "missing_confidence": "los pasajes elegidos podrían no responder a «{object}»",
        "missing_calibrated": "{feature} {value} por debajo de {minimum}: con esa medida el equipo suele corregir el borrador (regla aprendida de sus decisiones)",
        "missing_open": "la pregunta es abierta («{object}»): confirmá que el pasaje la responde",
        "missing_definition": "no encontré qué es «{object}»: el pasaje no lo define",
        "missing_other_question": "el pasaje responde otra pregunta: empieza con «{opening}» y no se preguntó sí o no",
        "missing_garbled": "el texto viene desordenado del PDF (encabezados pegados, restos de tablas o de listas): hay que redactarlo",
        "missing_long": "el borrador es largo: conviene dejar solo la parte que responde",
        "missing_sources": "el borrador junta pasajes de documentos distintos: confirmá cuál responde y quitá el otro",
        "claim_readiness": "«listo»: {sent} de {claimed} enviados sin cambios (IC 95% {lo}–{hi})",
        "claim_reuse": "respuestas aprobadas reutilizadas: {sent} de {claimed} enviadas sin cambios (IC 95% {lo}–{hi})",
        "claim_none_readiness": "«listo»: ningún borrador «listo» decidido todavía",
        "claim_none_reuse": "respuestas aprobadas reutilizadas: ninguna decidida todavía",
        "calibration_adopted": "regla más estricta, mejor en decisiones no vistas: {feature} ≥ {minimum} (errores {before} → {after} de {n}; precisión con la regla {precision})",
        "calibration_kept": "sin cambios: ninguna regla más estricta es claramente mejor en decisiones no vistas (errores {before} → {after} de {n}, cambio IC 95% {lo} a {hi})",
        "calibration_thin": "sin cambios: pocas decisiones ({claimed}; hacen falta {minimum}) para proponer una regla más estricta",
        "calibration_stored": "regla adoptada y guardada ({path}): se aplica a los borradores nuevos",
        "calibration_in_use": "regla en uso: {feature} ≥ {minimum}",
        "what_date": "la fecha o el plazo",
        "what_time": "el horario",
        "what_amount": "el costo",
        "what_yes_no": "si está permitido o no",
        "what_procedure": "los pasos",
        "what_place": "el lugar o el enlace",
        "what_role": "quién se encarga",
        "what_count": "la cantidad",
        "what_consequence": "qué consecuencia tiene",
        "what_requirement": "los requisitos",
        "yes": "Sí.",
        "no": "No.",
        "plan_code": "El plan de estudios lista {name} con el código {code} (no {asked}).",
    }
)
TEXTS["en"].update(
    {
        "set_aside_title": "Messages without a draft",
        "set_aside_acknowledged": "closing (no reply)",
        "set_aside_skipped": "skipped",
        "set_aside_quarantined": "quarantined",
        "set_aside_action": "Needs a reply",
        "set_aside_sent_back": "Message {message_id}: back to drafting; the draft reaches the queue on the next `orienta run`.",
        "set_aside_done": "↩️ {who} marked it as needing a reply: it is drafted again.",
        "set_aside_error": "Could not send the message to drafting: {error}",
        "set_aside_none": "No message was left without a draft.",
        "review_turn_acknowledged": "closing, no reply",
        "hidden_text_flag": "hidden text in the e-mail",
        "ready": "ready",
        "needs_review": "needs review",
        "readiness_title": "Draft status",
        "readiness_passages": "Closest passages (to write the answer from):",
        "missing_type": "I did not find {what}: “{object}”",
        "missing_object": "I did not find a passage about “{object}”",
        "list_in_article": "(the full list is in article {n} of the cited document)",
        "list_in_document": "(the full list is in the cited document)",
        "missing_list": "the draft lacks the list that the chosen passage announces",
        "missing_confidence": "the chosen passages may not answer “{object}”",
        "missing_calibrated": "{feature} {value} below {minimum}: staff usually correct drafts measuring this (a rule learnt from their decisions)",
        "missing_definition": "I did not find what “{object}” is: the passage does not define it",
        "missing_other_question": "the passage answers another question: it opens with “{opening}” and no yes/no was asked",
        "yes": "Yes.",
        "no": "No.",
        "plan_code": "The study plan lists {name} with code {code} (not {asked}).",
    }
)
