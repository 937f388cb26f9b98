"""The part of YAML that Raspberry Pi Imager writes in a card's cloud-init files, read strictly (pure).

The card has no YAML library (neither its Debian packages nor the program's locked libraries hold one), and a
full YAML reader would take far more than Imager ever writes: anchors, tags, flow mappings, many documents.
This reader takes block mappings and sequences (Imager's `users:` list sits at its key's own indentation), plain,
single- and double-quoted scalars, `|` literal blocks (Imager's apt setting) and one-line flow sequences of
scalars (Imager's `runcmd` entries). Anything else is refused by name with its line, never guessed.
Every scalar stays text; the reader of each setting decides what it may be.

>>> read("users:\\n- name: ann\\n  ssh_authorized_keys:\\n    - ssh-ed25519 AAAA ann@home\\n", "user-data")
{'users': [{'name': 'ann', 'ssh_authorized_keys': ['ssh-ed25519 AAAA ann@home']}]}
>>> read('a: [ sh, -c, "x \\\\"y\\\\"" ]\\nb: |\\n  one\\n  two\\n', "f")
{'a': ['sh', '-c', 'x "y"'], 'b': 'one\\ntwo\\n'}
>>> read("a: &x 1\\n", "f")
Traceback (most recent call last):
companion.errors.BadInput: f:1: an anchor (&) is not read here: write the value itself
"""

from companion.errors import BadInput
from companion.fields import line as text_line

SIZE_LIMIT = 65536  # Imager's files are a few dozen lines; a few long public keys fit many times over
DEPTH_LIMIT = 8  # Imager nests five deep (network: wifis: wlan0: access-points: "name":)
REFUSED_STARTS = {"&": "an anchor (&)", "*": "an alias (*)", "!": "a tag (!)", "{": "a flow mapping ({)",
                  ">": "a folded block (>)", "?": "a complex key (?)", "%": "a directive (%)", "@": "a reserved @",
                  "`": "a reserved `"}
ESCAPES = {'"': '"', "\\": "\\", "/": "/"}  # what Imager's quoting needs; \n, \t and the like are not text here


def _refuse(source: str, number: int, problem: str) -> BadInput:
    return BadInput(f"{source}:{number}", problem, code="errors.imager.format")


class _Reader:
    def __init__(self, text: str, source: str):
        if len(text) > SIZE_LIMIT:
            raise BadInput(source, f"longer than {SIZE_LIMIT} characters", code="errors.file.too_long",
                           params={"limit": SIZE_LIMIT})
        self.source = source
        self.lines = text.lstrip("\ufeff").split("\n")
        for number, raw in enumerate(self.lines, 1):
            text_line(raw, f"{source}:{number}", SIZE_LIMIT, keep="\r", empty=True)  # no control character
            self.lines[number - 1] = raw.rstrip("\r")
            indent = raw[:len(raw) - len(raw.lstrip(" \t"))]
            if "\t" in indent:
                raise _refuse(source, number, "a tab in the indentation (YAML indents with spaces)")
            if raw.startswith(("---", "...")):
                raise _refuse(source, number, "a document marker: one document is read")
        self.at = 0

    def _next(self) -> int | None:
        """The index of the next line that holds something (not blank, not a comment), or None."""
        while self.at < len(self.lines):
            stripped = self.lines[self.at].strip()
            if stripped and not stripped.startswith("#"):
                return self.at
            self.at += 1
        return None

    def _indent(self, index: int) -> int:
        raw = self.lines[index]
        return len(raw) - len(raw.lstrip(" "))

    def document(self):
        if self._next() is None:
            return {}
        value = self.block(self._indent(self.at), 1)
        if self._next() is not None:
            raise _refuse(self.source, self.at + 1, "unexpected indentation")
        return value

    def block(self, indent: int, depth: int):
        if depth > DEPTH_LIMIT:
            raise _refuse(self.source, self.at + 1, f"nested more than {DEPTH_LIMIT} deep")
        content = self.lines[self.at].strip()
        if content == "-" or content.startswith("- "):
            return self.sequence(indent, depth)
        return self.mapping(indent, depth)

    def sequence(self, indent: int, depth: int) -> list:
        items = []
        while (index := self._next()) is not None and self._indent(index) == indent:
            raw = self.lines[index]
            content = raw.strip()
            if not (content == "-" or content.startswith("- ")):
                break
            rest = content[1:].lstrip(" ")
            if not rest:
                self.at += 1
                items.append(self.nested(indent, depth, index))
            elif _key_split(rest) is not None:
                # `- name: ann` opens a mapping whose keys line up with `name`: read the line as if indented so.
                self.lines[index] = " " * (len(raw) - len(rest)) + rest
                items.append(self.mapping(len(raw) - len(rest), depth + 1))
            else:
                self.at += 1
                items.append(self.scalar(rest, index + 1))
        return items

    def mapping(self, indent: int, depth: int) -> dict:
        found: dict = {}
        while (index := self._next()) is not None and self._indent(index) == indent:
            content = self.lines[index].strip()
            if content == "-" or content.startswith("- "):
                break
            split = _key_split(content)
            if split is None:
                raise _refuse(self.source, index + 1, "expected key: value")
            key, rest = split
            key = self.scalar(key, index + 1) if key.startswith(("'", '"')) else key
            if key in found:
                raise _refuse(self.source, index + 1, f"{key!r} given twice")
            self.at += 1
            if rest in ("|", "|-"):
                found[key] = self.literal(indent, keep_last=rest == "|")
            elif rest:
                found[key] = self.scalar(rest, index + 1)
            else:
                found[key] = self.nested(indent, depth, index, compact=True)
        if (index := self._next()) is not None and self._indent(index) > indent:
            raise _refuse(self.source, index + 1, "unexpected indentation")
        return found

    def nested(self, indent: int, depth: int, opened: int, compact: bool = False):
        """The value under a key or a `-` with nothing after it: a deeper block, Imager's `users:` list at the
        key's own indentation, or nothing (an empty value)."""
        index = self._next()
        if index is None:
            return ""
        deeper = self._indent(index)
        starts_list = self.lines[index].strip() == "-" or self.lines[index].strip().startswith("- ")
        if deeper > indent or (compact and deeper == indent and starts_list):
            return self.block(deeper, depth + 1)
        return ""

    def literal(self, indent: int, keep_last: bool) -> str:
        taken = []
        while self.at < len(self.lines):
            raw = self.lines[self.at]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
                break
            taken.append(raw)
            self.at += 1
        while taken and not taken[-1].strip():
            taken.pop()
        margin = min((len(r) - len(r.lstrip(" ")) for r in taken if r.strip()), default=0)
        text = "\n".join(r[margin:] for r in taken)
        return text + "\n" if keep_last and text else text

    def scalar(self, text: str, number: int):
        text = text.strip()
        if text[:1] in REFUSED_STARTS:
            raise _refuse(self.source, number,
                          f"{REFUSED_STARTS[text[0]]} is not read here: write the value itself")
        if text.startswith("["):
            return self.flow(text, number)
        if text.startswith(('"', "'")):
            value, rest = _quoted(text, self.source, number)
            if rest.strip() and not rest.strip().startswith("#"):
                raise _refuse(self.source, number, "text after a closing quote")
            return value
        if " #" in text:  # a comment after a plain value
            text = text[:text.index(" #")].rstrip()
        return text

    def flow(self, text: str, number: int) -> list:
        items, rest = [], text[1:].strip()
        while True:
            if rest.startswith("]"):
                tail = rest[1:].strip()
                if tail and not tail.startswith("#"):
                    raise _refuse(self.source, number, "text after a closing ]")
                return items
            if rest.startswith(('"', "'")):
                value, rest = _quoted(rest, self.source, number)
            else:
                end = min((rest.find(c) for c in ",]" if c in rest), default=-1)
                if end < 0:
                    raise _refuse(self.source, number, "a [ list not closed on its line")
                value, rest = rest[:end].strip(), rest[end:]
                if value[:1] in REFUSED_STARTS or value[:1] == "[":
                    raise _refuse(self.source, number, "a nested value in a [ list is not read here")
            items.append(value)
            rest = rest.strip()
            if rest.startswith(","):
                rest = rest[1:].strip()
            elif not rest.startswith("]"):
                raise _refuse(self.source, number, "a [ list not closed on its line")


def _key_split(content: str) -> tuple[str, str] | None:
    """`key: rest` split at the colon that ends the key (a quoted key may hold colons), or None."""
    if content.startswith(('"', "'")):
        try:
            _, rest = _quoted(content, "", 0)
        except BadInput:
            return None
        key = content[:len(content) - len(rest)]
    else:
        key, rest = "", content
        for i, ch in enumerate(content):
            if ch == ":" and (i + 1 == len(content) or content[i + 1] == " "):
                key, rest = content[:i], content[i:]
                break
        if not key:
            return None
    if not rest.startswith(":") or (len(rest) > 1 and rest[1] != " "):
        return None
    return key.strip(), rest[1:].strip()


def _quoted(text: str, source: str, number: int) -> tuple[str, str]:
    """A quoted scalar at the start of `text`, and what follows its closing quote."""
    quote, out, i = text[0], [], 1
    while i < len(text):
        ch = text[i]
        if quote == "'" and ch == "'":
            if text[i + 1:i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1:]
        if quote == '"' and ch == "\\":
            escaped = text[i + 1:i + 2]
            if escaped not in ESCAPES:
                raise _refuse(source, number, f"the escape \\{escaped} is not read here (only \\\" and \\\\)")
            out.append(ESCAPES[escaped])
            i += 2
            continue
        if quote == '"' and ch == '"':
            return "".join(out), text[i + 1:]
        out.append(ch)
        i += 1
    raise _refuse(source, number, "a quoted value not closed on its line")


def read(text: str, source: str):
    """The document in `text` as mappings, lists and text; BadInput naming `source` and the line otherwise."""
    return _Reader(text, source).document()
