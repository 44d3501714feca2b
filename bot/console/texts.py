"""The console's Spanish texts: notices after an action, errors, labels (one place)."""

from __future__ import annotations

TEXTS: dict[str, str] = {
    "login_failed": "Nombre o contraseña incorrectos.",
    "login_required": "Tenés que iniciar sesión.",
    "forbidden": "Tu cuenta (revisor) no puede ver ni cambiar esto: es tarea de quien coordina la oficina.",
    "csrf_failed": "El formulario venció o no trae su código de seguridad (CSRF). Volvé a la página y enviálo de nuevo.",
    "not_found": "No existe.",
    "approved": "Aprobado: la respuesta sale en el próximo envío.",
    "edited": "Editado y aprobado: la respuesta sale en el próximo envío.",
    "rejected": "Rechazado: no se envía nada.",
    "moved": "Pasado a la otra oficina: se redacta de nuevo con sus documentos y queda en su cola.",
    "upload_started": "Archivo recibido: se está indexando (ver el progreso abajo).",
    "replace_started": "Archivo recibido: se está reindexando en lugar del anterior.",
    "reindex_started": "Indexación iniciada: su avance (documentos, fragmentos, tiempo restante) se ve abajo.",
    "activated": "Documento activado: la recuperación vuelve a usarlo.",
    "deactivated": "Documento desactivado: queda en el índice pero no se usa.",
    "deleted": "Documento borrado del índice.",
    "retrain_started": "Reentrenando el gate (ver el progreso abajo).",
    "answer_saved": "Respuesta guardada: nueva versión (la anterior queda en la auditoría).",
    "answer_unchanged": "El texto no cambió.",
    "answer_standard": "Marcada como respuesta estándar.",
    "answer_retired": "Respuesta retirada: ya no se reutiliza.",
    "faq_started": "Entrada de FAQ guardada como documento: se está indexando.",
    "staff_disabled": "Cuenta deshabilitada: sus sesiones terminaron.",
    "logged_out": "Sesión cerrada.",
    "gate_stale": "El gate está desactualizado: los documentos cambiaron desde que se entrenó. Hasta reentrenarlo, los mensajes se redactan sin el filtro.",
    "gate_missing": "No hay un gate entrenado: los mensajes se redactan sin el filtro de fuera de dominio.",
}


def t(key: str) -> str:
    return TEXTS.get(key, key)


def notice(code: str | None) -> str | None:
    """The text of a notice code passed after a redirect (unknown codes show nothing: no text comes from the URL)."""
    return TEXTS.get(code) if code else None
