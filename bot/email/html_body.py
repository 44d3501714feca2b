"""The text a reader sees in an HTML e-mail, and the text hidden from them (flagged, never part of the question).

Hidden: elements styled display:none, visibility:hidden, zero font size, zero opacity or collapsed with overflow hidden
(inline or through a class or id rule of the mail's own <style>), the `hidden` attribute, text coloured like its
background, and comments that hold words. Parsed with BeautifulSoup over lxml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLOCK_TAGS = ("p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "section", "article", "header", "footer", "pre")
_QUOTE_SELECTORS = ("blockquote", "div.gmail_quote", "div#divRplyFwdMsg", "div#appendonsend", "div.moz-cite-prefix", "div.yahoo_quoted")
SNIPPET_CHARS = 200
MAX_SNIPPETS = 10
HIDDEN_TEXT = "hidden_text"  # the flag's kind on the message

_HIDING = (
    ("display:none", re.compile(r"(?:^|;|\s)display\s*:\s*none\b", re.IGNORECASE)),
    ("visibility:hidden", re.compile(r"(?:^|;|\s)visibility\s*:\s*(?:hidden|collapse)\b", re.IGNORECASE)),
    ("font-size:0", re.compile(r"(?:^|;|\s)font-size\s*:\s*0*(?:\.0+)?(?:px|pt|em|rem|%|vw|vh)?\s*(?:!important\s*)?(?:;|$)", re.IGNORECASE)),
    ("opacity:0", re.compile(r"(?:^|;|\s)opacity\s*:\s*0*(?:\.0+)?\s*(?:!important\s*)?(?:;|$)", re.IGNORECASE)),
)
_COLLAPSED = re.compile(r"(?:^|;|\s)(?:max-)?(?:height|width)\s*:\s*0+(?:px)?\s*(?:!important\s*)?(?:;|$)", re.IGNORECASE)
_OVERFLOW_HIDDEN = re.compile(r"overflow\s*:\s*hidden", re.IGNORECASE)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_SIMPLE_SELECTOR = re.compile(r"^[a-z]*(?:[.#][\w-]+)+$|^[.#][\w-]+$", re.IGNORECASE)
_COLOR_DECL = re.compile(r"(?:^|;|\s)color\s*:\s*([^;!]+)", re.IGNORECASE)
_BACKGROUND_DECL = re.compile(r"(?:^|;|\s)background(?:-color)?\s*:\s*([^;!]+)", re.IGNORECASE)
_NAMED = {
    "white": (255, 255, 255), "black": (0, 0, 0), "red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
    "gray": (128, 128, 128), "grey": (128, 128, 128), "silver": (192, 192, 192), "whitesmoke": (245, 245, 245), "snow": (255, 250, 250),
    "ivory": (255, 255, 240), "navy": (0, 0, 128), "orange": (255, 165, 0), "transparent": None,
}
_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass
class HtmlText:
    """What a reader sees, and what the mail hid from them (kind and a snippet of each)."""

    text: str
    hidden: list[dict] = field(default_factory=list)


def _color(value: str | None) -> tuple[int, int, int] | None:
    """An RGB triple for a CSS or HTML colour (#rgb, #rrggbb, rgb(), rgba(), a few names), or None."""
    if not value:
        return None
    v = value.strip().lower().split()[0] if value.strip() else ""
    if v in _NAMED:
        return _NAMED[v]
    m = re.fullmatch(r"#?([0-9a-f]{3}|[0-9a-f]{6})", v)
    if m:
        h = m.group(1)
        h = "".join(c * 2 for c in h) if len(h) == 3 else h
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    m = re.match(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)", value.strip().lower())
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _close(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return max(abs(x - y) for x, y in zip(a, b)) <= 12


def _own_color(tag) -> tuple[int, int, int] | None:
    m = _COLOR_DECL.search(tag.get("style") or "")
    return _color(m.group(1)) if m else _color(tag.get("color")) if tag.name == "font" else None


def _background(tag) -> tuple[int, int, int]:
    """The background a tag's text is painted on: its own or its nearest ancestor's, white by default."""
    node = tag
    while node is not None and getattr(node, "name", None) not in (None, "[document]"):
        m = _BACKGROUND_DECL.search(node.get("style") or "")
        found = _color(m.group(1)) if m else _color(node.get("bgcolor"))
        if found is not None:
            return found
        node = node.parent
    return (255, 255, 255)


def _style_rules(soup) -> list[tuple[str, str]]:
    """(selector, declarations) of simple class/id rules in the mail's <style> blocks."""
    rules = []
    for style in soup.find_all("style"):
        css = re.sub(r"/\*.*?\*/", "", style.get_text(), flags=re.DOTALL)
        for selectors, decls in _CSS_RULE.findall(css):
            for selector in selectors.split(","):
                selector = selector.strip()
                if _SIMPLE_SELECTOR.match(selector):
                    rules.append((selector, decls))
    return rules


def _hiding(style: str) -> str | None:
    for kind, pattern in _HIDING:
        if pattern.search(style):
            return kind
    if _COLLAPSED.search(style) and _OVERFLOW_HIDDEN.search(style):
        return "tamaño 0"
    return None


def _snippet(text: str) -> str:
    return " ".join(text.split())[:SNIPPET_CHARS]


def _hide(tag, kind: str, hidden: list[dict]) -> None:
    text = tag.get_text(" ", strip=True)
    if _WORD.search(text):
        hidden.append({"kind": kind, "text": _snippet(text)})
    tag.decompose()


def visible_text(html: str) -> HtmlText:
    """Readable text of an HTML e-mail body (block elements become lines; quoted replies, styles and hidden text dropped)."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(html, "lxml")
    hidden: list[dict] = []
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        body = str(comment).strip()
        if len(_WORD.findall(body)) >= 3 and not body.startswith("[if") and "{" not in body and comment.find_parent(["style", "head", "script"]) is None:
            hidden.append({"kind": "comentario", "text": _snippet(body)})
        comment.extract()
    rules = _style_rules(soup)
    for selector, decls in rules:
        kind = _hiding(decls)
        if kind:
            for tag in soup.select(selector):
                if not tag.decomposed:
                    _hide(tag, f"{kind} (regla {selector})", hidden)
    for tag in soup(["script", "style", "head", "title"]):
        tag.decompose()
    for selector in _QUOTE_SELECTORS:
        for tag in soup.select(selector):
            tag.decompose()
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        kind = _hiding(tag.get("style") or "") or ("hidden" if tag.has_attr("hidden") else None)
        if kind is None:
            color = _own_color(tag)
            if color is not None and _close(color, _background(tag)):
                kind = "mismo color que el fondo"
        if kind:
            _hide(tag, kind, hidden)
    for br in soup.find_all("br"):
        br.replace_with("\n")
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    lines = [re.sub(r"[ \t\u00a0]+", " ", ln).strip() for ln in soup.get_text().splitlines()]
    return HtmlText(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip(), hidden)


def hidden_text_flag(hidden: list[dict]) -> dict:
    """The message flag shown on the review card: «texto oculto en el correo», how it was hidden and what it said."""
    from pipeline.redaction import redact
    from pipeline.texts import t

    kinds = sorted({h["kind"] for h in hidden})
    shown = [{"kind": h["kind"], "text": redact(h["text"]).text} for h in hidden[:MAX_SNIPPETS]]
    return {"kind": HIDDEN_TEXT, "flag": f"{t('hidden_text_flag')} ({', '.join(kinds)})", "hidden": shown}


def html_to_text(html: str) -> str:
    """Readable text of an HTML e-mail body, hidden text left out."""
    return visible_text(html).text
