"""The page's modules without their whole-line comments, for the single-file page (app/offline.py):
a fifth of the page's code is comments, and a saved page carries every byte of it.

Only lines that are nothing but a comment go (``// ...``, and ``/* ... */`` blocks that start a
line and end one); a line of code keeps its trailing comment. A small lexer follows strings,
template literals (with their ``${...}`` nesting), regular expressions and comments, so a line
inside a template literal that happens to start with ``//`` is text and stays.
"""

from __future__ import annotations

import re

# after these (ignoring spaces) a "/" starts a regular expression, not a division
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {""}
# after these words an expression starts: ``return /re/``, ``typeof /re/`` ...
_KEYWORDS = frozenset(("return", "typeof", "case", "in", "of", "void", "delete", "throw", "yield", "await"))
# a name, a keyword or a number, read whole (the lexer's time was in looking at it a character at a time)
_WORD = re.compile(r"[\w$]+")
# in a template literal's text: the next character that may end it, open a ${...} or a line
_TEMPLATE_STOP = re.compile(r"[\\`$\n]")


def strip_comment_lines(text: str) -> str:
    """``text`` (an ES module) without the lines that hold only a comment (blank lines stay as they
    are, so line numbers shift but no statement changes)."""
    out, i, n = [], 0, len(text)
    templates: list[int] = []  # per open template literal: the depth of ${ braces inside it
    last = ""  # the last significant character of code (for regex vs division)
    line_start = 0
    keep_from = 0
    while i < n:
        c = text[i]
        in_template = bool(templates) and templates[-1] == 0
        if in_template:
            if c == "\\":
                i += 2
            elif c == "`":
                templates.pop()
                last = "`"
                i += 1
            elif text.startswith("${", i):
                templates[-1] += 1
                i += 2
                last = "{"
            elif c == "\n":
                line_start = i + 1
                i += 1
            elif c == "$":
                i += 1
            else:
                stop = _TEMPLATE_STOP.search(text, i)
                i = stop.start() if stop else n
            continue
        if c == "\n":
            line_start = i + 1
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c.isalnum() or c in "_$":
            word = _WORD.match(text, i)
            end = word.end() if word else i + 1
            last = "(" if text[i:end] in _KEYWORDS else "a"
            i = end
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if not text[line_start:i].strip():
                out.append(text[keep_from:line_start])
                keep_from = end + 1 if end < n else n
                i = keep_from
                line_start = i
            else:
                i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            rest_end = text.find("\n", end)
            rest_end = n if rest_end < 0 else rest_end
            if not text[line_start:i].strip() and not text[end:rest_end].strip():
                out.append(text[keep_from:line_start])
                keep_from = rest_end + 1 if rest_end < n else n
                i = keep_from
                line_start = i
            else:
                i = end
            continue
        if c in "'\"":
            i = _string_end(text, i, c)
            last = c
            continue
        if c == "`":
            templates.append(0)
            i += 1
            continue
        if c == "/" and last in _BEFORE_REGEX:
            i = _regex_end(text, i)
            last = "/"
            continue
        if templates and c == "{":
            templates[-1] += 1
        elif templates and c == "}":
            templates[-1] -= 1
            if templates[-1] == 0:
                i += 1  # back inside the template literal's text
                continue
        last = c
        i += 1
    out.append(text[keep_from:])
    return "".join(out)


def _string_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _regex_end(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text) and text[j] != "\n":
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            return j + 1
        j += 1
    return j
