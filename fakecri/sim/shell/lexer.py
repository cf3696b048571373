"""Reading a script's characters into tokens: words (with their quoting, parameter
expansions, command substitutions and arithmetic as parts), operators, newlines, and
the bodies of here-documents, which follow the line their `<<` is on.

The parser (fakecri.sim.shell.parser) asks for tokens one at a time and reads a `$(...)`
by parsing from inside the word (`Lexer.sub_parse`), as ash does.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakecri.sim.shell.ast import Arith, CmdSub, HereDoc, Lit, Node, Param, Part, Tilde, Word

METACHARS = frozenset(" \t\n;&|<>()")
OPERATORS = ("&&", "||", ";;", "<<-", "<<", ">>", ">|", "<>", "<&", ">&", "&>", "&", "|", ";", "(", ")", "<", ">")
REDIRECTIONS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "<<", "<<-", "&>"})
SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
DQ_ESCAPES = frozenset('$`"\\\n')
C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\",
             "'": "'", '"': '"', "e": "\x1b", "E": "\x1b", "?": "?"}


class ShellSyntaxError(Exception):
    """A script the shell cannot parse; `at_end`: it ran out of text (more input may finish it)."""

    def __init__(self, message: str, at_end: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.at_end = at_end
        self.line = 1  # the line of the text it was found on (1 first; set by Parser.lines)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "op", "newline", "io" (a descriptor number before a redirection), "eof"
    value: str  # the operator, or the word's source text
    word: Word | None = None
    start: int = 0  # where it is in the script
    end: int = 0


EOF_TOKEN = Token("eof", "")
NEWLINE = Token("newline", "\n")


def is_name(text: str) -> bool:
    return bool(text) and (text[0].isalpha() or text[0] == "_") and all(c.isalnum() or c == "_" for c in text)


class Lexer:
    def __init__(self, src: str, pos: int = 0,
                 sub_parse: Callable[[str, int], tuple[Node, int]] | None = None,
                 parse_text: Callable[[str], Node] | None = None) -> None:
        self.src = src
        self.pos = pos
        self.pending: list[HereDoc] = []
        # parse a command list from `pos` up to its `)`: (the tree, the position after the `)`)
        self.sub_parse = sub_parse
        self.parse_text = parse_text  # parse a whole script (a backquoted command)

    # ------------------------------------------------------------ tokens

    def error(self, message: str) -> ShellSyntaxError:
        return ShellSyntaxError(message, at_end=self.pos >= len(self.src))

    def skip_blanks(self) -> None:
        src, n = self.src, len(self.src)
        while self.pos < n:
            ch = src[self.pos]
            if ch in " \t":
                self.pos += 1
            elif ch == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2  # a line continued
            elif ch == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
            else:
                break

    def next(self) -> Token:
        self.skip_blanks()
        src = self.src
        if self.pos >= len(src):
            if self.pending:
                raise ShellSyntaxError("unexpected end of file (expecting here-document end)", at_end=True)
            return EOF_TOKEN
        ch = src[self.pos]
        if ch == "\n":
            self.pos += 1
            if self.pending:
                self.read_heredocs()
            return NEWLINE
        if ch.isdigit():
            end = self.pos
            while end < len(src) and src[end].isdigit():
                end += 1
            if end < len(src) and src[end] in "<>":
                fd = src[self.pos:end]
                start, self.pos = self.pos, end
                return Token("io", fd, None, start, end)
        for op in OPERATORS:
            if src.startswith(op, self.pos):
                self.pos += len(op)
                return Token("op", op, None, self.pos - len(op), self.pos)
        start = self.pos
        word = self.word()
        return Token("word", src[start:self.pos], word, start, self.pos)

    # ------------------------------------------------------------ words

    def word(self) -> Word:
        start = self.pos
        parts = self.scan(METACHARS, quoted=False, tilde=True)
        return Word(tuple(parts), self.src[start:self.pos])

    def scan(self, stop: frozenset[str] | str, *, quoted: bool, tilde: bool = False,
             brace: bool = False) -> list[Part]:
        """Parts up to (not including) an unquoted character of `stop`. `quoted`: inside double
        quotes (only $ ` \\ are special there). `brace`: inside `${...}` (nested braces count)."""
        src, n = self.src, len(self.src)
        parts: list[Part] = []
        buf: list[str] = []
        buf_quoted = quoted

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), buf_quoted))
                buf.clear()

        def lit(text: str, q: bool) -> None:
            nonlocal buf_quoted
            if buf and buf_quoted != q:
                flush()
            buf_quoted = q
            buf.append(text)

        if tilde and self.pos < n and src[self.pos] == "~":
            end = self.pos + 1
            while end < n and (src[end].isalnum() or src[end] in "_.-"):
                end += 1
            if end >= n or src[end] == "/" or src[end] in stop:
                parts.append(Tilde(src[self.pos + 1:end]))
                self.pos = end
        depth = 0
        while self.pos < n:
            ch = src[self.pos]
            if ch in stop and not (brace and depth):
                if not (quoted and ch != '"' and not brace):
                    break
            if brace and ch == "{" and not quoted:
                depth += 1
            elif brace and ch == "}" and depth:
                depth -= 1
            if ch == "\\":
                nxt = src[self.pos + 1:self.pos + 2]
                if nxt == "\n":
                    self.pos += 2
                    continue
                if not nxt:
                    lit("\\", quoted)
                    self.pos += 1
                    continue
                if quoted and nxt not in DQ_ESCAPES and not (brace and nxt == "}"):
                    lit("\\", True)
                    self.pos += 1
                    continue
                lit(nxt, True)
                self.pos += 2
            elif ch == "'" and not quoted:
                end = src.find("'", self.pos + 1)
                if end < 0:
                    self.pos = n
                    raise ShellSyntaxError("unterminated quoted string", at_end=True)
                lit(src[self.pos + 1:end], True)
                self.pos = end + 1
            elif ch == '"' and quoted and brace:  # "${x-"a b"}": quotes inside the braces
                self.pos += 1
                flush()
                parts.extend(self.scan('"', quoted=True) or [Lit("", True)])
                if self.pos >= n:
                    raise ShellSyntaxError("unterminated quoted string", at_end=True)
                self.pos += 1
            elif ch == '"' and not quoted:
                self.pos += 1
                flush()
                inner = self.scan('"', quoted=True)
                if self.pos >= n:
                    raise ShellSyntaxError("unterminated quoted string", at_end=True)
                self.pos += 1
                parts.extend(inner if inner else [Lit("", True)])
            elif ch == "$":
                part = self.dollar(quoted)
                if isinstance(part, Lit):
                    lit(part.text, part.quoted)
                else:
                    flush()
                    parts.append(part)
            elif ch == "`":
                flush()
                parts.append(self.backquote(quoted))
            else:
                lit(ch, quoted)
                self.pos += 1
        flush()
        return parts

    def dollar(self, quoted: bool) -> Part:
        src, n = self.src, len(self.src)
        i = self.pos + 1
        nxt = src[i:i + 1]
        if src.startswith("((", i):
            return self.arith(quoted)
        if nxt == "(":
            if self.sub_parse is None:
                raise self.error("unexpected \"(\"")
            body, end = self.sub_parse(src, i + 1)
            self.pos = end
            return CmdSub(body, quoted)
        if nxt == "{":
            return self.brace_param(quoted)
        if nxt == "'" and not quoted:
            return self.c_string()
        if nxt and nxt in SPECIAL_PARAMS:
            self.pos = i + 1
            return Param(nxt, quoted=quoted)
        end = i
        while end < n and (src[end].isalnum() or src[end] == "_"):
            if end == i and src[end].isdigit():
                break
            end += 1
        if end == i:
            self.pos = i
            return Lit("$", quoted)
        self.pos = end
        return Param(src[i:end], quoted=quoted)

    def c_string(self) -> Lit:
        """`$'...'` with its C escapes (\\n, \\t, \\xHH, \\0NNN...)."""
        src, n = self.src, len(self.src)
        i = self.pos + 2
        out: list[str] = []
        while i < n and src[i] != "'":
            ch = src[i]
            if ch == "\\" and i + 1 < n:
                e = src[i + 1]
                if e in C_ESCAPES:
                    out.append(C_ESCAPES[e])
                    i += 2
                elif e == "x":
                    j = i + 2
                    while j < n and j < i + 4 and src[j] in "0123456789abcdefABCDEF":
                        j += 1
                    out.append(chr(int(src[i + 2:j], 16)) if j > i + 2 else "\\x")
                    i = j
                elif e in "01234567":
                    j = i + 1
                    while j < n and j < i + 4 and src[j] in "01234567":
                        j += 1
                    out.append(chr(int(src[i + 1:j], 8) & 0xFF))
                    i = j
                else:
                    out.append("\\" + e)
                    i += 2
            else:
                out.append(ch)
                i += 1
        if i >= n:
            self.pos = n
            raise ShellSyntaxError("unterminated quoted string", at_end=True)
        self.pos = i + 1
        return Lit("".join(out), True)

    def brace_param(self, quoted: bool) -> Part:
        src, n = self.src, len(self.src)
        i = self.pos + 2
        length = False
        if src.startswith("#", i) and i + 1 < n and src[i + 1] != "}":
            nxt = src[i + 1]
            if nxt.isalnum() or nxt == "_" or (nxt in SPECIAL_PARAMS and src[i + 2:i + 3] == "}"):
                length, i = True, i + 1
        if i < n and src[i].isdigit():
            end = i
            while end < n and src[end].isdigit():
                end += 1
        elif i < n and src[i] in SPECIAL_PARAMS:
            end = i + 1
        else:
            end = i
            while end < n and (src[end].isalnum() or src[end] == "_"):
                end += 1
            if end > i and src[i].isdigit() and not src[i:end].isdigit():
                end = i
        name = src[i:end]
        if not name:
            self.pos = end
            raise ShellSyntaxError("bad substitution", at_end=end >= n)
        self.pos = end
        if length:
            if not src.startswith("}", end):
                raise ShellSyntaxError("bad substitution", at_end=end >= n)
            self.pos = end + 1
            return Param(name, "len", quoted=quoted)
        if src.startswith("}", end):
            self.pos = end + 1
            return Param(name, quoted=quoted)
        for op in (":-", ":=", ":+", ":?", "##", "%%", "//", "-", "=", "+", "?", "#", "%", "/", ":"):
            if src.startswith(op, end):
                break
        else:
            raise ShellSyntaxError("bad substitution", at_end=end >= n)
        self.pos = end + len(op)
        arg2: Word | None = None
        if op in ("/", "//"):
            arg = Word(tuple(self.scan("/}", quoted=False, brace=True)))
            if src.startswith("/", self.pos):
                self.pos += 1
                arg2 = Word(tuple(self.scan("}", quoted=quoted, brace=True)))
        elif op == ":":
            arg = Word(tuple(self.scan(":}", quoted=quoted, brace=True)))
            if src.startswith(":", self.pos):
                self.pos += 1
                arg2 = Word(tuple(self.scan("}", quoted=quoted, brace=True)))
        elif op in ("#", "##", "%", "%%"):
            arg = Word(tuple(self.scan("}", quoted=False, brace=True)))  # a pattern, even between "..."
        else:
            arg = Word(tuple(self.scan("}", quoted=quoted, brace=True)))
        if not src.startswith("}", self.pos):
            raise ShellSyntaxError("bad substitution", at_end=self.pos >= n)
        self.pos += 1
        return Param(name, op, arg, quoted, arg2)

    def arith(self, quoted: bool) -> Part:
        src, n = self.src, len(self.src)
        start = i = self.pos + 3
        depth = 0
        while i < n:
            ch = src[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    if src.startswith("))", i):
                        break
                    raise ShellSyntaxError("unexpected \")\"")
                depth -= 1
            i += 1
        if i >= n:
            self.pos = n
            raise ShellSyntaxError("missing '))'", at_end=True)
        inner = Lexer(src[start:i], 0, self.sub_parse, self.parse_text)
        parts = inner.scan("", quoted=True)
        self.pos = i + 2
        return Arith(Word(tuple(parts), src[start:i]), quoted)

    def backquote(self, quoted: bool) -> Part:
        src, n = self.src, len(self.src)
        i = self.pos + 1
        out: list[str] = []
        while i < n and src[i] != "`":
            if src[i] == "\\" and i + 1 < n and (src[i + 1] in "$`\\" or (quoted and src[i + 1] == '"')):
                out.append(src[i + 1])
                i += 2
            else:
                out.append(src[i])
                i += 1
        if i >= n:
            self.pos = n
            raise ShellSyntaxError("unterminated quoted string", at_end=True)
        self.pos = i + 1
        if self.parse_text is None:
            raise self.error("unexpected \"`\"")
        return CmdSub(self.parse_text("".join(out)), quoted)

    # ------------------------------------------------------------ here-documents

    def read_heredocs(self) -> None:
        src, n = self.src, len(self.src)
        for doc in self.pending:
            lines: list[str] = []
            while True:
                if self.pos >= n:
                    break  # ash takes the end of the script as the end of the here-document
                end = src.find("\n", self.pos)
                line = src[self.pos:] if end < 0 else src[self.pos:end]
                self.pos = n if end < 0 else end + 1
                check = line.lstrip("\t") if doc.strip_tabs else line
                if check == doc.delimiter:
                    break
                lines.append(check + "\n")
            text = "".join(lines)
            if doc.expand:
                inner = Lexer(text, 0, self.sub_parse, self.parse_text)
                doc.body = Word(tuple(inner.heredoc_parts()), text)
            else:
                doc.body = Word((Lit(text, True),), text)
        self.pending.clear()

    def heredoc_parts(self) -> list[Part]:
        """A here-document's text: $ and ` expand, a backslash quotes only $ ` \\ and a newline."""
        parts: list[Part] = []
        buf: list[str] = []
        src, n = self.src, len(self.src)
        while self.pos < n:
            ch = src[self.pos]
            if ch == "\\" and self.pos + 1 < n and src[self.pos + 1] in "$`\\\n":
                if src[self.pos + 1] != "\n":
                    buf.append(src[self.pos + 1])
                self.pos += 2
            elif ch == "$" or ch == "`":
                part = self.dollar(True) if ch == "$" else self.backquote(True)
                if isinstance(part, Lit):
                    buf.append(part.text)
                    continue
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(part)
            else:
                buf.append(ch)
                self.pos += 1
        if buf:
            parts.append(Lit("".join(buf), True))
        return parts
