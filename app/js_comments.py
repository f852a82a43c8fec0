"""The page's modules without their whole-line comments, for the single-file page (app/offline.py):
a fifth of the page's code is comments, and a saved page carries every byte of it.

Only lines that are nothing but a comment go (``// ...``, and ``/* ... */`` blocks that start a
line and end one); a line of code keeps its trailing comment. A small lexer follows strings,
template literals (with their ``${...}`` nesting), regular expressions and comments, so a line
inside a template literal that happens to start with ``//`` is text and stays.
"""

from __future__ import annotations

# after these (ignoring spaces) a "/" starts a regular expression, not a division
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {""}


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
            else:
                if c == "\n":
                    line_start = i + 1
                i += 1
            continue
        if c == "\n":
            line_start = i + 1
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        at_line_start = not text[line_start:i].strip()
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if at_line_start:
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
            if at_line_start and not text[end:rest_end].strip():
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
        last = c if not (c.isalnum() or c in "_$") else "a"
        if last == "a" and _keyword_before(text, i):
            last = "("  # return /re/, typeof /re/ ...: a regular expression follows
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


def _keyword_before(text: str, i: int) -> bool:
    """Does a keyword after which an expression starts (``return``, ``typeof``...) end at ``i``?"""
    for word in ("return", "typeof", "case", "in", "of", "void", "delete", "throw", "yield", "await"):
        start = i - len(word) + 1
        if start >= 0 and text[start:i + 1] == word and (start == 0 or not (text[start - 1].isalnum()
                                                                               or text[start - 1] in "_$")):
            return True
    return False
