"""The text a reader sees in an HTML e-mail, and the text hidden from them (flagged, never part of the question).

Hidden: elements styled display:none, visibility:hidden, zero font size, zero opacity, collapsed with overflow hidden or
moved off the screen (inline, or by any rule of the mail's own <style>, inside @media too, with the cascade's !important,
specificity and order), the `hidden` attribute, text coloured like the background under it, and comments that hold
words. HTML parsed with BeautifulSoup over lxml, CSS with tinycss2, selectors matched with soupsieve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLOCK_TAGS = ("p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "section", "article", "header", "footer", "pre")
_QUOTE_SELECTORS = ("blockquote", "div.gmail_quote", "div#divRplyFwdMsg", "div#appendonsend", "div.moz-cite-prefix", "div.yahoo_quoted")
SNIPPET_CHARS = 200
MAX_SNIPPETS = 10
HIDDEN_TEXT = "hidden_text"  # the flag's kind on the message

_WORD = re.compile(r"[^\W\d_]{2,}")
_SCREEN_MEDIA = re.compile(r"\b(?:print|speech|aural|braille|embossed|tty|tv|projection|handheld)\b")  # media a mail reader never is


@dataclass
class HtmlText:
    """What a reader sees, and what the mail hid from them (kind and a snippet of each)."""

    text: str
    hidden: list[dict] = field(default_factory=list)


@dataclass
class _Style:
    """One element's cascaded declarations (lower-cased property -> (tokens, priority)); priority: !important, inline
    over the <style> sheet, specificity, then source order."""

    props: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)  # property -> the rule's selector ("" inline)

    def put(self, decl, priority: tuple, selector: str) -> None:
        name = decl.lower_name
        if name not in self.props or priority >= self.props[name][1]:
            self.props[name] = (decl.value, priority)
            self.origin[name] = selector

    def get(self, name: str) -> list | None:
        found = self.props.get(name)
        return found[0] if found else None


def _declarations(css: str) -> list:
    """The declarations of a style attribute or a rule's block (tinycss2), comments and errors skipped."""
    import tinycss2

    return [d for d in tinycss2.parse_blocks_contents(css, skip_comments=True, skip_whitespace=True) if d.type == "declaration"]


def _tokens(value) -> list:
    return [t for t in value or [] if t.type not in ("whitespace", "comment")]


def _ident(value) -> str | None:
    toks = _tokens(value)
    return toks[0].lower_value if toks and toks[0].type == "ident" else None


def _length(token) -> float | None:
    """A number, length or percentage token's value (None for anything else: keywords, calc())."""
    return float(token.value) if token.type in ("number", "dimension", "percentage") else None


def _zero(value) -> bool:
    toks = _tokens(value)
    return len(toks) == 1 and _length(toks[0]) == 0


def _color(value) -> tuple[int, int, int] | None:
    """An RGB triple for a CSS colour value (any syntax tinycss2 reads: names, #hex, rgb(), hsl()); None for none,
    transparent or currentColor."""
    from tinycss2.color3 import parse_color

    if isinstance(value, str):
        found = parse_color(value.strip()) if value.strip() else None
    else:
        toks = _tokens(value)
        found = next((c for c in (parse_color(t) for t in toks) if c is not None), None)  # "background: #fff url(x) no-repeat"
    if found is None or isinstance(found, str) or found.alpha == 0:
        return None
    return round(found.red * 255), round(found.green * 255), round(found.blue * 255)


def _specificity(selector: str) -> tuple[int, int, int]:
    """(ids, classes/attributes/pseudo-classes, types) of one selector, read from its tinycss2 tokens."""
    import tinycss2

    ids = classes = types = 0
    toks = tinycss2.parse_component_value_list(selector)
    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else None
        if tok.type == "hash":
            ids += 1
        elif tok.type == "[] block":
            classes += 1
        elif tok.type == "ident" and prev is not None and prev.type == "literal" and prev.value in (".", ":"):
            classes += 1
        elif tok.type == "ident" and (prev is None or prev.type in ("whitespace", "literal") and prev.value not in (".", ":")):
            types += 1
    return ids, classes, types


def _style_rules(soup) -> list[tuple[str, list]]:
    """(selector, declarations) of every rule of the mail's <style> blocks that a reader's screen applies: top-level
    rules and those inside @media (not print-only) and @supports, in source order (tinycss2)."""
    import tinycss2

    rules: list[tuple[str, list]] = []

    def walk(nodes) -> None:
        for rule in nodes:
            if rule.type == "qualified-rule":
                decls = _declarations(rule.content)
                for selector in tinycss2.serialize(rule.prelude).split(","):
                    if selector.strip():
                        rules.append((selector.strip(), decls))
            elif rule.type == "at-rule" and rule.lower_at_keyword in ("media", "supports", "document", "layer") and rule.content is not None:
                query = tinycss2.serialize(rule.prelude).lower()
                if rule.lower_at_keyword == "media" and _SCREEN_MEDIA.search(query) and not re.search(r"\b(?:screen|all)\b", query):
                    continue
                walk(tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True))

    for style in soup.find_all("style"):
        walk(tinycss2.parse_stylesheet(style.get_text(), skip_comments=True, skip_whitespace=True))
    return rules


def _cascade(soup) -> dict[int, _Style]:
    """id(tag) -> its cascaded style: the <style> rules that match it (soupsieve selectors), then its style attribute."""
    styles: dict[int, _Style] = {}
    for order, (selector, decls) in enumerate(_style_rules(soup)):
        try:
            matched = soup.select(selector)
        except Exception:  # noqa: BLE001  (a selector soupsieve does not support, e.g. :hover: it hides nothing a reader sees at rest)
            continue
        spec = _specificity(selector)
        for tag in matched:
            style = styles.setdefault(id(tag), _Style())
            for decl in decls:
                style.put(decl, (decl.important, 0, spec, order), selector)
    for tag in soup.find_all(style=True):
        style = styles.setdefault(id(tag), _Style())
        for decl in _declarations(tag.get("style") or ""):
            style.put(decl, (decl.important, 1, (0, 0, 0), 0), "")
    return styles


def _hiding(style: _Style) -> str | None:
    """How a style hides its element's text from the reader, or None."""
    if _ident(style.get("display")) == "none":
        return "display:none"
    if _ident(style.get("visibility")) in ("hidden", "collapse"):
        return "visibility:hidden"
    if style.get("font-size") is not None and _zero(style.get("font-size")):
        return "font-size:0"
    font = _tokens(style.get("font"))
    if font and any(_length(t) == 0 and t.type in ("dimension", "number", "percentage") for t in font[:-1]):  # "font: 0/0 a"
        return "font-size:0"
    if style.get("opacity") is not None and _zero(style.get("opacity")):
        return "opacity:0"
    if _ident(style.get("overflow")) == "hidden" and any(style.get(p) is not None and _zero(style.get(p)) for p in ("height", "max-height", "width", "max-width")):
        return "tamaño 0"
    for prop in ("text-indent", "left", "top", "margin-left", "margin-top"):
        toks = _tokens(style.get(prop))
        if len(toks) == 1 and toks[0].type == "dimension" and toks[0].value <= -999:
            return "fuera de la pantalla"
    clip = _tokens(style.get("clip-path"))
    if clip and clip[0].type == "function" and clip[0].lower_name == "inset" and any(t.type == "percentage" and t.value >= 50 for t in _tokens(clip[0].arguments)):
        return "tamaño 0"
    return None


def _own_color(tag, style: _Style | None) -> tuple[int, int, int] | None:
    if style is not None and style.get("color") is not None:
        return _color(style.get("color"))
    return _color(tag.get("color")) if tag.name == "font" and tag.get("color") else None


def _own_background(tag, style: _Style | None) -> tuple[int, int, int] | None:
    for prop in ("background-color", "background"):
        if style is not None and style.get(prop) is not None:
            found = _color(style.get(prop))
            if found is not None:
                return found
    return _color(tag.get("bgcolor")) if tag.get("bgcolor") else None


def _inherited(tag, styles: dict[int, _Style], own) -> tuple[tuple[int, int, int] | None, object]:
    """The nearest value `own` gives for the tag or an ancestor, and the node that gave it."""
    node = tag
    while node is not None and getattr(node, "name", None) not in (None, "[document]"):
        found = own(node, styles.get(id(node)))
        if found is not None:
            return found, node
        node = node.parent
    return None, None


def _close(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return max(abs(x - y) for x, y in zip(a, b)) <= 12


def _snippet(text: str) -> str:
    return " ".join(text.split())[:SNIPPET_CHARS]


def _hide(tag, kind: str, hidden: list[dict]) -> None:
    text = tag.get_text(" ", strip=True)
    if _WORD.search(text):
        hidden.append({"kind": kind, "text": _snippet(text)})
    tag.decompose()


def _same_colour_text(soup, styles: dict[int, _Style], hidden: list[dict]) -> None:
    """Text painted in (nearly) the colour of the background under it: each text node's inherited colour against the
    nearest background of it or an ancestor (white by default); the text goes, one flag per element that coloured it."""
    from bs4 import NavigableString

    by_tag: dict[int, tuple[object, list]] = {}
    for node in soup.find_all(string=True):
        if not isinstance(node, NavigableString) or type(node) is not NavigableString or not _WORD.search(str(node)) or node.parent is None:
            continue
        colour, painter = _inherited(node.parent, styles, _own_color)
        if colour is None:
            continue
        background, _ = _inherited(node.parent, styles, _own_background)
        if _close(colour, background or (255, 255, 255)):
            by_tag.setdefault(id(painter), (painter, []))[1].append(node)
    for painter, nodes in by_tag.values():
        hidden.append({"kind": "mismo color que el fondo", "text": _snippet(" ".join(str(n) for n in nodes))})
        for node in nodes:
            node.extract()


def visible_text(html: str) -> HtmlText:
    """Readable text of an HTML e-mail body (block elements become lines; quoted replies, styles and hidden text dropped).

    What hides text is read from the cascaded style of each element: its style attribute and the rules of the mail's
    own <style> blocks (inside @media too), parsed with tinycss2 and matched with soupsieve."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(html, "lxml")
    hidden: list[dict] = []
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        body = str(comment).strip()
        if len(_WORD.findall(body)) >= 3 and not body.startswith("[if") and "{" not in body and comment.find_parent(["style", "head", "script"]) is None:
            hidden.append({"kind": "comentario", "text": _snippet(body)})
        comment.extract()
    styles = _cascade(soup)
    for tag in soup(["script", "style", "head", "title"]):
        tag.decompose()
    for selector in _QUOTE_SELECTORS:
        for tag in soup.select(selector):
            tag.decompose()
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        style = styles.get(id(tag))
        kind = (_hiding(style) if style is not None else None) or ("hidden" if tag.has_attr("hidden") else None)
        if kind:
            rule = style.origin.get(kind.split(":")[0]) if style is not None else None
            _hide(tag, f"{kind} (regla {rule})" if rule else kind, hidden)
    _same_colour_text(soup, styles, hidden)
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
