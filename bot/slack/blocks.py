"""Block Kit builders for the review UI: pure functions from queue records to Slack JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pipeline.derivation import tree_rows
from pipeline.generation import outcome_of
from pipeline.generation.citations import UNCITED
from pipeline.generation.readiness import READY, readiness_of, readiness_text
from pipeline.texts import t
from review.models import Decision, Draft, InboundMessage
from review.answer_memory import CURATED_FLAG, suggestions_of
from review.queue import REJECT_REASONS
from review.retries import OFFLINE_FLAG

# action ids and callback ids shared with the listeners
APPROVE, EDIT, REJECT, DERIVATION = "review_approve", "review_edit", "review_reject", "review_derivation"
APPROVE_LINKS = "review_approve_links"
ANSWER_SAVE, ANSWER_RETIRE, ANSWER_USE = "answer_save", "answer_retire", "answer_use"
NEEDS_REPLY = "review_needs_reply"  # one per listed message: f"{NEEDS_REPLY}_{message id}" (action ids are unique in a view)
EDIT_CALLBACK, REJECT_CALLBACK, DERIVATION_CALLBACK = "review_edit_submit", "review_reject_submit", "review_derivation_view"
ACTIONS_BLOCK = "review_actions"
ANSWER_BLOCK = "answer_actions"
EDIT_BLOCK, EDIT_INPUT = "draft_text", "text"
REASON_BLOCK, REASON_INPUT = "reason", "reason"
COMMENT_BLOCK, COMMENT_INPUT = "comment", "comment"

SECTION_LIMIT = 3000  # Slack: section text max 3000 characters
INPUT_LIMIT = 3000  # plain_text_input max_length
HEADER_LIMIT = 150
MODAL_BLOCK_LIMIT = 100


@dataclass(frozen=True)
class CardRef:
    """Where a review card lives, carried through modals in private_metadata."""

    draft_id: int
    channel: str | None = None
    ts: str | None = None

    def dumps(self) -> str:
        return json.dumps({"draft_id": self.draft_id, "channel": self.channel, "ts": self.ts})

    @classmethod
    def loads(cls, raw: str) -> "CardRef":
        data = json.loads(raw or "{}")
        return cls(draft_id=int(data["draft_id"]), channel=data.get("channel"), ts=data.get("ts"))


# ---------------------------------------------------------------- small helpers
def escape(text: str | None) -> str:
    """Escape Slack's control characters in user text (mrkdwn)."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int, note: str = "") -> str:
    """`text` cut to `limit` characters, with `note` appended when cut."""
    if len(text) <= limit:
        return text
    suffix = f"…\n_{note}_" if note else "…"
    return text[: max(0, limit - len(suffix))] + suffix


def quote(text: str) -> str:
    return "\n".join(f"&gt; {line}" if line.strip() else "&gt;" for line in escape(text).splitlines() or [""])


def who(actor: str) -> str:
    """A Slack mention for Slack reviewers, the plain name otherwise."""
    if actor.startswith("slack:"):
        return f"<@{actor.removeprefix('slack:')}>"
    return escape(actor.removeprefix("cli:") + (" (terminal)" if actor.startswith("cli:") else ""))


def when(at: datetime) -> str:
    """A Slack date token (rendered in the reader's time zone) with a UTC fallback."""
    at = at if at.tzinfo else at.replace(tzinfo=timezone.utc)
    fallback = at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"


def age(delta_seconds: float, lang: str = "es") -> str:
    minutes = int(delta_seconds // 60)
    if minutes < 120:
        return t("review_age_minutes", lang).format(n=max(minutes, 0))
    if minutes < 48 * 60:
        return t("review_age_hours", lang).format(n=minutes // 60)
    return t("review_age_days", lang).format(n=minutes // (60 * 24))


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT)}}


def _plain(text: str, limit: int = 75) -> dict[str, Any]:
    return {"type": "plain_text", "text": clip(text, limit), "emoji": True}


def _button(label: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    button = {"type": "button", "text": _plain(label), "action_id": action_id, "value": value}
    if style:
        button["style"] = style
    return button


# ---------------------------------------------------------------- the review card
def _sender(message: InboundMessage) -> str:
    if message.channel == "slack" and message.sender and message.sender.startswith(("U", "W")) and " " not in message.sender:
        return f"<@{message.sender}>"
    return escape(message.sender or "?")


def _gate(message: InboundMessage, draft: Draft, lang: str) -> str:
    in_domain = draft.gate_in_domain if draft.gate_in_domain is not None else message.gate_in_domain
    score = draft.gate_score if draft.gate_score is not None else message.gate_score
    if in_domain is None:
        return t("review_gate_none", lang)
    label = t("review_gate_in", lang) if in_domain else f"*{t('review_gate_out', lang)}*"
    if in_domain and draft.gate_outcome == "no_info":
        label = f"*{t('review_gate_no_info', lang)}*"
    label = f"{label} ({score:.2f})" if score is not None else label
    if draft.gate_reasons:
        label += f"\n_{t('review_gate_reasons', lang)}:_ " + escape("; ".join(draft.gate_reasons[:3]))
    return label


CLAIM_LIMIT = 160


def references_text(references: list[dict[str, Any]], lang: str = "es") -> str:
    """References as Slack links (title only when a document has no URL), each followed by the claims it supports and the passage cited."""
    if not references:
        return f"_{t('review_no_references', lang)}_"
    lines = []
    for ref in references:
        title = escape(ref.get("title") or ref.get("doc_id") or "?").replace("|", "¦")
        url = ref.get("url")
        lines.append(f"• <{url}|{title}>" if url else f"• {title}")
        lines += [
            "    " + t("review_claim", lang).format(claim=escape(clip(c.get("claim") or "", CLAIM_LIMIT)), passage=c.get("passage"), quote=escape(clip(c.get("quote") or "", CLAIM_LIMIT)))
            for c in ref.get("claims") or []
        ]
    return "\n".join(lines)


def message_flags_text(flags: list[dict[str, Any]]) -> str:
    """What intake noticed about the message (e.g. «texto oculto en el correo» and what the hidden text said), escaped."""
    lines = []
    for flag in flags:
        lines.append(f"⚠️ *{escape(str(flag.get('flag') or flag.get('kind')))}*")
        lines += [f"&gt; _{escape(str(h.get('kind')))}:_ {escape(clip(str(h.get('text') or ''), 200))}" for h in flag.get("hidden") or []]
    return clip("\n".join(lines), SECTION_LIMIT)


def uncited_text(flags: list[dict[str, Any]], lang: str = "es") -> str:
    """The claims of the draft that cite no passage ("" when every claim is cited)."""
    claims = [f.get("flag") or "" for f in flags if f.get("kind") == UNCITED]
    if not claims:
        return ""
    return "\n".join([t("review_uncited", lang).format(n=len(claims))] + [f"• {escape(clip(c, CLAIM_LIMIT))}" for c in claims])


def foreign_links_of(flags: list[dict[str, Any]]) -> list[str]:
    return [str(f.get("link")) for f in flags if f.get("kind") == "foreign_link"]


def flags_text(flags: list[dict[str, Any]], lang: str = "es") -> str:
    flags = [f for f in flags if f.get("kind") != "foreign_link"]
    lines = [t("review_flags", lang).format(n=len({f.get('step') for f in flags}))]
    lines += [f"• {t('review_step', lang)} {escape(str(f.get('step')))} ({escape(str(f.get('rule', '')))}): {escape(str(f.get('flag', '')))}" for f in flags]
    return "\n".join(lines)


TURN_LIMIT = 400


def conversation_text(context: dict[str, Any], lang: str = "es") -> str:
    """The earlier turns a follow-up was drafted with, the standalone query and the question parts (empty when none)."""
    lines: list[str] = []
    turns = context.get("turns") or []
    if turns:
        lines.append(f"*{t('review_conversation', lang).format(n=len(turns))}:*")
        for turn in turns:
            who = t("review_turn_office" if turn.get("role") == "office" else "review_turn_student", lang)
            if turn.get("acknowledged"):
                who += f" ({t('review_turn_acknowledged', lang)})"
            lines.append(f"&gt; *{who}:* " + escape(clip(" ".join(str(turn.get("text") or "").split()), TURN_LIMIT)))
    if context.get("query"):
        lines.append(f"*{t('review_query', lang)}:* {escape(clip(' '.join(context['query'].split()), TURN_LIMIT))}")
    if context.get("parts"):
        lines.append(f"*{t('review_parts', lang)}:*")
        lines += [f"{i}. {escape(clip(' '.join(p.split()), TURN_LIMIT))}" for i, p in enumerate(context["parts"], start=1)]
    return "\n".join(lines)


def office_text(context: dict[str, Any], lang: str = "es") -> str:
    """Campus mode: the office drafting the message and, when it was moved, the route it took (empty for one office)."""
    office = context.get("office")
    if not office:
        return ""
    text = t("review_office", lang).format(office=escape(office))
    route = context.get("route") or []
    if len(route) > 1:
        by = t(f"review_routed_by_{context.get('routed_by') or 'router'}", lang)
        text += " · " + t("review_routed", lang).format(route=" → ".join(escape(r) for r in route), by=by)
    return text


def office_blocks(context: dict[str, Any], lang: str = "es") -> list[dict[str, Any]]:
    text = office_text(context, lang)
    return [{"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}] if text else []


def conversation_blocks(context: dict[str, Any], lang: str = "es") -> list[dict[str, Any]]:
    text = conversation_text(context, lang)
    return [_section(clip(text, SECTION_LIMIT - 40, t("review_truncated", lang)))] if text else []


def _card_body(draft: Draft, message: InboundMessage, lang: str, *, text: str | None = None, label: str = "review_draft") -> list[dict[str, Any]]:
    channel = t(f"review_channel_{message.channel}", lang) if message.channel in ("email", "slack") else escape(message.channel)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": _plain(t("review_card_title", lang).format(draft_id=draft.id), HEADER_LIMIT)},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": t("review_from", lang).format(channel=channel, sender=_sender(message)) + f" · {when(message.created_at)}"}]},
        _section(f"*{t('review_subject', lang)}:* {escape(message.subject) or '—'}"),
        _section(f"*{t('review_question', lang)}:*\n{quote(clip(message.cleaned_text or '', SECTION_LIMIT - 200))}"),
        *conversation_blocks(draft.context or {}, lang),
        *office_blocks(draft.context or {}, lang),
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": f"*{t('review_gate', lang)}:*\n{_gate(message, draft, lang)}"},
                {"type": "mrkdwn", "text": f"*{t('review_method', lang)}:*\n{escape(draft.method)} · {escape(draft.model)}"},
            ],
        },
        {"type": "divider"},
        _section(f"*{t(label, lang)}:*\n" + clip(escape(text if text is not None else draft.text), SECTION_LIMIT - 40, t("review_truncated", lang))),
        _section(clip(f"*{t('review_references', lang)}:*\n{references_text(draft.references, lang)}", SECTION_LIMIT - 40, t("review_truncated", lang))),
    ]
    uncited = uncited_text(draft.flags or [], lang)
    if uncited:
        blocks.append(_section(clip(uncited, SECTION_LIMIT - 40, t("review_truncated", lang))))
    links = foreign_links_of(draft.flags or [])
    if links:
        blocks.append(_section(t("review_foreign_links", lang).format(links=", ".join(f"`{escape(x)}`" for x in links))))
    step_flags = [f for f in draft.flags or [] if not f.get("kind")]  # the verifier's steps; draft-level flags (with a kind) are shown on their own
    if step_flags:
        blocks.append(_section(flags_text(step_flags, lang)))
    ready = readiness_of(draft.flags)
    if ready is not None:
        mark = "✅" if ready.get("flag") == READY else "⚠️"
        blocks.insert(blocks.index(next(b for b in blocks if b.get("type") == "divider")) + 1, _section(clip(f"{mark} " + escape(readiness_text(ready, lang)), SECTION_LIMIT - 40, t("review_truncated", lang))))
    if message.reason and message.reason.startswith("reused_message_id"):
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"⚠️ {escape(message.reason)}"}]})
    if message.flags:
        blocks.append(_section(message_flags_text(message.flags)))
    outcome = outcome_of(draft.flags)
    if outcome != "ok":
        blocks.insert(blocks.index(next(b for b in blocks if b.get("type") == "divider")) + 1, _section(f"*{t(f'review_outcome_{outcome}', lang)}*"))
    curated = curated_flag(draft)
    if curated:
        blocks.insert(blocks.index(next(b for b in blocks if b.get("type") == "divider")) + 1, {"type": "context", "elements": [{"type": "mrkdwn", "text": escape(based_on_text(curated, lang))}]})
    suggested = suggestions_of(draft)
    if suggested:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": escape(suggestion_text(f, lang))} for f in suggested]})
    notes = [t("review_no_info", lang)] if draft.no_info else []
    notes += [t("review_fallback", lang)] if draft.fallback else []
    notes += [t("review_offline_fallback", lang)] if any(f.get("kind") == OFFLINE_FLAG for f in draft.flags or []) else []
    if notes:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": n} for n in notes]})
    return blocks


def suggestion_text(flag: dict[str, Any], lang: str = "es") -> str:
    """'💡 Parecida a la respuesta aprobada #N del 21/11/2026: «…»', and what personal data it still holds, if any."""
    at = datetime.fromisoformat(str(flag.get("approved_at")))
    text = t("answer_suggested", lang).format(answer_id=flag["answer_id"], date=at.strftime("%d/%m/%Y"), question=clip(str(flag.get("question") or ""), 200))
    if flag.get("personal"):  # a text still holding someone's data is never offered as ready: say what was found
        text += t("answer_personal", lang).format(found=", ".join(map(str, flag["personal"])))
    return text


def curated_flag(draft: Draft) -> dict[str, Any] | None:
    """The curated answer a draft was made from (its flag), if any."""
    return next((f for f in draft.flags or [] if f.get("kind") == CURATED_FLAG), None)


def based_on_text(flag: dict[str, Any], lang: str = "es") -> str:
    """'basada en la respuesta aprobada #N del 21/11/2026', and the model that checked the reuse, with its reason."""
    at = datetime.fromisoformat(str(flag.get("approved_at")))
    text = t("answer_based_on", lang).format(answer_id=flag.get("answer_id"), date=at.strftime("%d/%m/%Y"))
    if flag.get("checked_by"):
        text += t("answer_checked_by", lang).format(model=flag["checked_by"], reason=flag.get("check_reason") or "")
    return text


def answer_buttons(draft: Draft, decision: Decision | None, lang: str = "es") -> list[dict[str, Any]]:
    """Save the sent reply as a standard answer (after an approval) and retire the curated answer the draft came from."""
    out = []
    if decision is not None and decision.action in ("approve", "edit"):
        out.append(_button(t("answer_save", lang), ANSWER_SAVE, str(draft.id)))
    if decision is None:  # undecided: start the edit from a close approved answer
        out += [_button(t("answer_use", lang).format(answer_id=f["answer_id"]), f"{ANSWER_USE}_{f['answer_id']}", f"{draft.id}:{f['answer_id']}") for f in suggestions_of(draft)]
    curated = curated_flag(draft)
    if curated and curated.get("answer_id") is not None:
        out.append(_button(t("answer_retire", lang).format(answer_id=curated["answer_id"]), ANSWER_RETIRE, str(curated["answer_id"]), "danger"))
    return out


def card_text(draft: Draft, message: InboundMessage, lang: str = "es") -> str:
    """The notification fallback text of a card."""
    return clip(f"{t('review_card_title', lang).format(draft_id=draft.id)}: {message.subject or message.cleaned_text or ''}", 300)


def review_card(draft: Draft, message: InboundMessage, *, lang: str = "es") -> dict[str, Any]:
    """The card posted to the review channel: everything needed to decide, and the four buttons."""
    value = str(draft.id)
    links = foreign_links_of(draft.flags or [])
    approve = _button(t("review_approve", lang), APPROVE, value, "primary")
    if links:  # approving needs an explicit confirmation: another action and Slack's confirm dialog
        approve = _button(t("review_approve_links", lang), APPROVE_LINKS, value, "danger")
        approve["confirm"] = {
            "title": _plain(t("review_confirm_links_title", lang), 100),
            "text": {"type": "mrkdwn", "text": clip(t("review_confirm_links_text", lang).format(links=", ".join(f"`{escape(x)}`" for x in links)), 300)},
            "confirm": _plain(t("review_confirm_links_yes", lang), 30),
            "deny": _plain(t("review_cancel", lang), 30),
            "style": "danger",
        }
    actions = {
        "type": "actions",
        "block_id": ACTIONS_BLOCK,
        "elements": [
            approve,
            _button(t("review_edit", lang), EDIT, value),
            _button(t("review_reject", lang), REJECT, value, "danger"),
            _button(t("review_derivation", lang), DERIVATION, value),
            *answer_buttons(draft, None, lang),
        ],
    }
    return {"text": card_text(draft, message, lang), "blocks": [*_card_body(draft, message, lang), actions]}


def decision_line(decision: Decision, lang: str = "es") -> str:
    """Who did what, when: '✅ Aprobado por @ana · 21 nov 10:32'."""
    reason = REJECT_REASONS.get(decision.reason or "", decision.reason or "")
    return t(f"review_done_{decision.action}", lang).format(who=who(decision.actor), when=when(decision.created_at), reason=reason)


def decided_card(draft: Draft, message: InboundMessage, decision: Decision, *, lang: str = "es") -> dict[str, Any]:
    """The card after a decision: the same facts, no buttons, and who decided what and when."""
    edited = decision.action == "edit"
    blocks = _card_body(draft, message, lang, text=decision.final_text if edited else None, label="review_sent_text" if edited else "review_draft")
    blocks.append({"type": "divider"})
    blocks.append(_section(decision_line(decision, lang)))
    if decision.comment:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"*{t('review_comment', lang)}:* {escape(decision.comment)}"}]})
    buttons = answer_buttons(draft, decision, lang)
    if buttons:
        blocks.append({"type": "actions", "block_id": ANSWER_BLOCK, "elements": buttons})
    return {"text": f"{card_text(draft, message, lang)} — {decision_line(decision, lang)}", "blocks": blocks}


def already_decided_text(actor: str | None, action: str | None, lang: str = "es") -> str:
    action = {"approved": "approve", "edited": "edit", "rejected": "reject"}.get(action or "", action)
    label = t(f"review_action_{action}", lang) if action in ("approve", "edit", "reject") else (action or "?")
    return t("review_already", lang).format(who=who(actor) if actor else "?", action=label)


# ---------------------------------------------------------------- modals
def _modal(title: str, blocks: list[dict[str, Any]], *, callback_id: str, ref: CardRef, submit: str | None, lang: str) -> dict[str, Any]:
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": callback_id,
        "private_metadata": ref.dumps(),
        "title": _plain(title, 24),
        "close": _plain(t("review_cancel" if submit else "review_close", lang), 24),
        "blocks": blocks[:MODAL_BLOCK_LIMIT],
    }
    if submit:
        view["submit"] = _plain(submit, 24)
    return view


def edit_modal(draft: Draft, ref: CardRef, *, lang: str = "es", text: str | None = None) -> dict[str, Any]:
    """The edit modal, prefilled with the draft (or with `text`: an approved answer the reviewer starts from)."""
    field = {"type": "plain_text_input", "action_id": EDIT_INPUT, "multiline": True, "initial_value": (draft.text if text is None else text)[:INPUT_LIMIT], "max_length": INPUT_LIMIT}
    blocks = [{"type": "input", "block_id": EDIT_BLOCK, "label": _plain(t("review_edit_label", lang), 2000), "element": field}]
    return _modal(t("review_edit_title", lang), blocks, callback_id=EDIT_CALLBACK, ref=ref, submit=t("review_edit_submit", lang), lang=lang)


def reject_modal(draft: Draft, ref: CardRef, *, lang: str = "es") -> dict[str, Any]:
    """The reject modal: one reason (required) and an optional comment."""
    options = [{"text": _plain(label), "value": key} for key, label in REJECT_REASONS.items()]
    blocks = [
        _section(f"*{t('review_card_title', lang).format(draft_id=draft.id)}*"),
        {
            "type": "input",
            "block_id": REASON_BLOCK,
            "label": _plain(t("review_reject_reason", lang), 2000),
            "element": {"type": "static_select", "action_id": REASON_INPUT, "placeholder": _plain(t("review_reject_placeholder", lang)), "options": options},
        },
        {
            "type": "input",
            "block_id": COMMENT_BLOCK,
            "optional": True,
            "label": _plain(t("review_reject_comment", lang), 2000),
            "element": {"type": "plain_text_input", "action_id": COMMENT_INPUT, "multiline": True, "max_length": 2000},
        },
    ]
    return _modal(t("review_reject_title", lang), blocks, callback_id=REJECT_CALLBACK, ref=ref, submit=t("review_reject_submit", lang), lang=lang)


def derivation_blocks(draft: Draft, lang: str = "es") -> list[dict[str, Any]]:
    """The derivation tree, root first, one block per step; flagged steps marked ⚠️ with the verifier's note."""
    rows = tree_rows(draft.derivation or [], [c.get("doc_id", "") for c in draft.chunks or []])
    if not rows:
        return [_section(t("review_no_derivation", lang).format(method=escape(draft.method)))]
    blocks: list[dict[str, Any]] = []
    for row in rows:
        indent = "\u2003" * row["depth"] + ("└ " if row["depth"] else "")
        mark = "⚠️ " if row["flags"] else ""
        premises = ", ".join(escape(p) for p in row["premises"])
        text = f"{indent}{mark}*[{escape(row['id'])}] {escape(str(row['rule']))}*" + (f" ← {premises}" if premises else "") + f"\n{indent}{escape(str(row['conclusion']))}"
        if row["flags"]:
            text += "\n" + "\n".join(f"{indent}> ⚠️ _{escape(str(f))}_" for f in row["flags"])
        blocks.append(_section(text))
    return blocks


def derivation_modal(draft: Draft, ref: CardRef, *, lang: str = "es") -> dict[str, Any]:
    """A read-only modal with the derivation tree."""
    return _modal(t("review_derivation_title", lang), derivation_blocks(draft, lang), callback_id=DERIVATION_CALLBACK, ref=ref, submit=None, lang=lang)


# ---------------------------------------------------------------- messages set aside without a draft
SET_ASIDE_LIMIT = 15


def set_aside_blocks(messages: list[InboundMessage], lang: str = "es") -> list[dict[str, Any]]:
    """Acknowledged, skipped and quarantined messages with their reason, each with a «Necesita respuesta» button."""
    blocks: list[dict[str, Any]] = [_section(f"*{t('set_aside_title', lang)}* ({len(messages)})")]
    if not messages:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": t("set_aside_none", lang)}]})
        return blocks
    for message in messages[:SET_ASIDE_LIMIT]:
        text = clip(" ".join((message.cleaned_text or message.redacted_text or message.body_text or message.subject or "").split()), 200)
        line = f"*{t('set_aside_' + message.state, lang)}* · {_sender(message)} · msg {message.id}\n&gt; {escape(text)}\n_{escape(clip(message.reason or '', 300))}_"
        section = _section(line)
        section["accessory"] = _button(t("set_aside_action", lang), f"{NEEDS_REPLY}_{message.id}", str(message.id))
        blocks.append(section)
    return blocks


# ---------------------------------------------------------------- App Home
def home_view(
    *, pending: int, oldest_at: datetime | None, mine_today: int, now: datetime, upcoming: list[tuple[Draft, InboundMessage]] = (), set_aside: list[InboundMessage] | None = None, lang: str = "es"
) -> dict[str, Any]:
    """The App Home tab: pending count, oldest pending age, my decisions today, the next drafts in line and the messages set aside."""
    oldest = age((now - oldest_at).total_seconds(), lang) if oldest_at is not None else "—"
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": _plain(t("review_home_title", lang), HEADER_LIMIT)},
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": f"*{t('review_home_pending', lang)}:*\n{pending}"},
                {"type": "mrkdwn", "text": f"*{t('review_home_oldest', lang)}:*\n{oldest}"},
                {"type": "mrkdwn", "text": f"*{t('review_home_mine', lang)}:*\n{mine_today}"},
            ],
        },
        {"type": "divider"},
    ]
    if not pending:
        blocks.append(_section(t("review_home_empty", lang)))
    else:
        blocks.append(_section(f"*{t('review_home_next', lang)}:*"))
        for draft, message in list(upcoming)[:20]:
            line = f"*#{draft.id}* · {escape(message.subject or '')} — {escape(clip((message.cleaned_text or '').replace(chr(10), ' '), 120))}"
            blocks.append(_section(line))
    if set_aside is not None:
        blocks += [{"type": "divider"}, *set_aside_blocks(set_aside, lang)]
    return {"type": "home", "blocks": blocks}
