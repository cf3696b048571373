"""The shell grammar (POSIX's Shell Command Language, with ash's `[[ ]]`, `function`,
`&>` and `$'...'`), read by recursive descent into the tree of fakecri.sim.shell.ast.

`parse(script)` is cached: a script is read once however many processes run it. A
script that does not parse raises `ShellSyntaxError` with ash's wording (`unexpected
"fi"`, `unexpected end of file (expecting "done")`); its `at_end` says more text could
complete it (an interactive shell then asks for the next line with `> `).
"""
from __future__ import annotations

import functools

from fakecri.sim.shell.ast import (
    EMPTY,
    AndOr,
    Case,
    For,
    FuncDef,
    Group,
    HereDoc,
    If,
    Lit,
    Loop,
    Node,
    Pipeline,
    Redir,
    Redirected,
    Sequence,
    Simple,
    Subshell,
    Test,
    Tilde,
    Word,
)
from fakecri.sim.shell.io import MAX_NESTING
from fakecri.sim.shell.lexer import (
    REDIRECTIONS,
    Lexer,
    ShellSyntaxError,
    Token,
    is_name,
)

RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
                      "in", "{", "}", "!", "[["})
MAX_DEPTH = MAX_NESTING  # constructs and $(...) inside one another, at most (deeper: an error, never a RecursionError)
ENDS_LIST = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}"})


class Parser:
    def __init__(self, src: str, pos: int = 0, depth: int = 0) -> None:
        self.lexer = Lexer(src, pos, self._sub_parse, self._parse_text)
        self.peeked: Token | None = None
        self.depth = depth
        self.last_end = pos  # where the last token taken ends

    # ------------------------------------------------------------ tokens

    def peek(self) -> Token:
        if self.peeked is None:
            self.peeked = self.lexer.next()
        return self.peeked

    def take(self) -> Token:
        tok = self.peek()
        self.peeked = None
        if tok.end:
            self.last_end = tok.end
        return tok

    def reserved(self, tok: Token) -> str | None:
        if tok.kind == "word" and tok.word is not None and tok.value in RESERVED and tok.word.literal() == tok.value:
            return tok.value
        return None

    def at(self, *words: str) -> bool:
        tok = self.peek()
        return self.reserved(tok) in words or (tok.kind == "op" and tok.value in words)

    def unexpected(self, tok: Token, expecting: str = "") -> ShellSyntaxError:
        if tok.kind == "eof":
            text = "unexpected end of file" + (f" (expecting \"{expecting}\")" if expecting else "")
            return ShellSyntaxError(text, at_end=True)
        if tok.kind == "newline":
            text = "unexpected newline"
        elif tok.kind == "word" and self.reserved(tok) is None:
            text = "unexpected word"
        else:
            text = f"unexpected \"{tok.value}\""
        return ShellSyntaxError(text + (f" (expecting \"{expecting}\")" if expecting else ""))

    def expect(self, word: str) -> None:
        tok = self.take()
        if self.reserved(tok) != word and not (tok.kind == "op" and tok.value == word):
            raise self.unexpected(tok, word)

    def newlines(self) -> None:
        while self.peek().kind == "newline":
            self.take()

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellSyntaxError(f"the script nests constructs or $(...) more than {MAX_DEPTH} deep")

    # ------------------------------------------------------------ lists

    def program(self) -> Node:
        node = self.compound_list(top=True)
        tok = self.peek()
        if tok.kind != "eof":
            raise self.unexpected(tok)
        return node

    def lines(self) -> tuple[list[Node], ShellSyntaxError | None]:
        """The script's top-level lines, parsed one after the other as ash reads them (it runs
        each before it reads the next): those that parse, and the error that stopped it."""
        nodes: list[Node] = []
        try:
            while True:
                self.newlines()
                if self.peek().kind == "eof":
                    return nodes, None
                nodes.append(self.line())
        except ShellSyntaxError as exc:
            exc.line = self.lexer.src.count("\n", 0, self.lexer.pos) + 1
            return nodes, exc

    def line(self) -> Node:
        items: list[tuple[Node, bool]] = []
        while True:
            tok = self.peek()
            if self.reserved(tok) in ENDS_LIST:
                raise self.unexpected(tok)
            node = self.and_or()
            tok = self.peek()
            background = tok.kind == "op" and tok.value == "&"
            items.append((node, background))
            if tok.kind == "op" and tok.value in (";", "&"):
                self.take()
                if self.peek().kind in ("newline", "eof"):
                    break
                continue
            if tok.kind in ("newline", "eof"):
                break
            raise self.unexpected(tok)
        if len(items) == 1 and not items[0][1]:
            return items[0][0]
        return Sequence(tuple(items))

    def compound_list(self, top: bool = False, until: str = "") -> Node:
        """Commands separated by newlines, `;` and `&`, up to a reserved word that ends a list
        (or the end of the text, or `)`)."""
        items: list[tuple[Node, bool]] = []
        self.newlines()
        while True:
            tok = self.peek()
            if tok.kind == "eof" or (tok.kind == "op" and tok.value in (")", ";;")):
                break
            if self.reserved(tok) in ENDS_LIST:
                break
            node = self.and_or()
            tok = self.peek()
            background = tok.kind == "op" and tok.value == "&"
            items.append((node, background))
            if tok.kind == "newline" or (tok.kind == "op" and tok.value in (";", "&")):
                self.take()
                self.newlines()
                continue
            break
        if not items:
            if not top:
                tok = self.peek()
                raise self.unexpected(tok, until) if tok.kind == "eof" else self.unexpected(tok)
            return EMPTY
        if len(items) == 1 and not items[0][1]:
            return items[0][0]
        return Sequence(tuple(items))

    def and_or(self) -> Node:
        first = self.pipeline()
        rest: list[tuple[str, Node]] = []
        while self.peek().kind == "op" and self.peek().value in ("&&", "||"):
            op = self.take().value
            self.newlines()
            rest.append((op, self.pipeline()))
        return AndOr(first, tuple(rest)) if rest else first

    def pipeline(self) -> Node:
        negate = False
        while self.reserved(self.peek()) == "!":
            self.take()
            negate = not negate
        commands = [self.command()]
        while self.peek().kind == "op" and self.peek().value == "|":
            self.take()
            self.newlines()
            commands.append(self.command())
        if len(commands) == 1 and not negate:
            return commands[0]
        return Pipeline(tuple(commands), negate)

    # ------------------------------------------------------------ commands

    def command(self) -> Node:
        tok = self.peek()
        word = self.reserved(tok)
        if tok.kind == "op" and tok.value == "(":
            self.take()
            self.deeper()
            body = self.compound_list(until=")")
            self.expect(")")
            self.depth -= 1
            return self.redirected(Subshell(body))
        if word is not None and word not in ("!", "[["):
            self.take()
            self.deeper()
            node = self.compound(word, tok)
            self.depth -= 1
            return self._collapsed(self.redirected(node))
        if word == "[[":
            self.take()
            return self.redirected(self.double_bracket())
        if tok.kind == "word" and tok.word is not None and tok.value == "function" and tok.word.literal():
            self.take()
            name = self.take()
            if name.kind != "word" or not is_name(name.value):
                raise self.unexpected(name)
            if self.peek().kind == "op" and self.peek().value == "(":
                self.take()
                self.expect(")")
            return self.function_body(name.value)
        return self.simple()

    def compound(self, word: str, tok: Token) -> Node:
        if word == "{":
            body = self.compound_list(until="}")
            self.expect("}")
            return Group(body)
        if word == "if":
            branches = []
            cond = self.compound_list(until="then")
            self.expect("then")
            branches.append((cond, self.compound_list(until="fi")))
            otherwise: Node | None = None
            while True:
                end = self.take()
                kind = self.reserved(end)
                if kind == "elif":
                    cond = self.compound_list(until="then")
                    self.expect("then")
                    branches.append((cond, self.compound_list(until="fi")))
                elif kind == "else":
                    otherwise = self.compound_list(until="fi")
                    self.expect("fi")
                    break
                elif kind == "fi":
                    break
                else:
                    raise self.unexpected(end, "fi")
            return If(tuple(branches), otherwise)
        if word in ("while", "until"):
            cond = self.compound_list(until="do")
            self.expect("do")
            body = self.compound_list(until="done")
            self.expect("done")
            return Loop(cond, body, word == "until")
        if word == "for":
            return self.for_loop()
        if word == "case":
            return self.case()
        raise self.unexpected(tok)

    def for_loop(self) -> Node:
        name = self.take()
        if name.kind != "word" or not is_name(name.value):
            raise ShellSyntaxError("bad for loop variable", at_end=name.kind == "eof")
        words: tuple[Word, ...] | None = None
        self.newlines()
        if self.reserved(self.peek()) == "in":
            self.take()
            found: list[Word] = []
            while self.peek().kind == "word":
                w = self.take().word
                assert w is not None
                found.append(w)
            words = tuple(found)
            tok = self.take()
            if not (tok.kind == "newline" or (tok.kind == "op" and tok.value == ";")):
                raise self.unexpected(tok, "do")
        elif self.peek().kind == "op" and self.peek().value == ";":
            self.take()
        self.newlines()
        self.expect("do")
        body = self.compound_list(until="done")
        self.expect("done")
        return For(name.value, words, body)

    def case(self) -> Node:
        tok = self.take()
        if tok.kind != "word" or tok.word is None:
            raise self.unexpected(tok, "word")
        subject = tok.word
        self.newlines()
        self.expect("in")
        items: list[tuple[tuple[Word, ...], Node | None]] = []
        while True:
            self.newlines()
            if self.reserved(self.peek()) == "esac":
                self.take()
                break
            if self.peek().kind == "op" and self.peek().value == "(":
                self.take()
            patterns: list[Word] = []
            while True:
                tok = self.take()
                if tok.kind != "word" or tok.word is None:
                    raise self.unexpected(tok, ")")
                patterns.append(tok.word)
                tok = self.take()
                if tok.kind == "op" and tok.value == "|":
                    continue
                if tok.kind == "op" and tok.value == ")":
                    break
                raise self.unexpected(tok, ")")
            self.newlines()
            body: Node | None = None
            if not (self.peek().kind == "op" and self.peek().value == ";;") and self.reserved(self.peek()) != "esac":
                body = self.compound_list(until="esac")
            items.append((tuple(patterns), body))
            tok = self.peek()
            if tok.kind == "op" and tok.value == ";;":
                self.take()
                continue
            self.expect("esac")
            break
        return Case(subject, tuple(items))

    def double_bracket(self) -> Node:
        """`[[ ... ]]` as busybox's ash reads it: its words, `&&` and `||` between them; `<` and `>`
        stay redirections (of the whole test) and `(` is a syntax error, as there."""
        words: list[Word] = []
        redirs: list[Redir] = []
        while True:
            tok = self.peek()
            if tok.kind == "io" or (tok.kind == "op" and tok.value in REDIRECTIONS):
                redirs.append(self.redirection())
                continue
            tok = self.take()
            if tok.kind == "word" and tok.value == "]]":
                return Redirected(Test(tuple(words)), tuple(redirs)) if redirs else Test(tuple(words))
            if tok.kind == "word" and tok.word is not None:
                words.append(tok.word)
            elif tok.kind == "op" and tok.value in ("&&", "||"):
                words.append(Word((Lit(tok.value),), tok.value))
            elif tok.kind == "op" and tok.value == "(" and not words:  # (`[[ (`: a function `[[` to ash)
                raise self.unexpected(self.take(), ")")
            elif tok.kind == "op" and tok.value == "(":
                raise self.unexpected(tok)
            else:  # the command ends without its `]]`: ash's `[[` says so when it runs
                self.peeked = tok
                return Test(tuple(words), closed=False)

    def function_body(self, name: str) -> Node:
        self.newlines()
        self.deeper()
        tok = self.peek()
        start = tok.start
        word = self.reserved(tok)
        if tok.kind == "op" and tok.value == "(":
            body = self.command()
        elif word in ("{", "if", "while", "until", "for", "case"):
            body = self.command()
        else:
            raise self.unexpected(tok)
        self.depth -= 1
        return FuncDef(name, body, f"{name}() {self.lexer.src[start:self.last_end]}")

    @staticmethod
    def _collapsed(node: Node) -> Node:
        """`{ (list); } >f` as ash parses it: a group holding one subshell is that subshell, and
        the group's redirections replace the subshell's own (so a subshell's `> x` there is lost)."""
        if isinstance(node, Redirected) and isinstance(node.body, Group):
            inner = node.body.body
            if isinstance(inner, Redirected) and isinstance(inner.body, Subshell):
                inner = inner.body
            if isinstance(inner, Subshell):
                return Redirected(inner, node.redirs)
        return node

    def redirected(self, node: Node) -> Node:
        redirs: list[Redir] = []
        while self.peek().kind == "io" or (self.peek().kind == "op" and self.peek().value in REDIRECTIONS):
            redirs.append(self.redirection())
        return Redirected(node, tuple(redirs)) if redirs else node

    def redirection(self) -> Redir:
        tok = self.take()
        fd = -1
        if tok.kind == "io":
            fd = int(tok.value) if len(tok.value) < 6 else 1 << 20
            tok = self.take()
        op = tok.value
        target = self.take()
        if target.kind in ("op", "io") and target.value in REDIRECTIONS | {"<"} or target.kind == "io":
            raise ShellSyntaxError("unexpected redirection")
        if target.kind != "word" or target.word is None:
            raise self.unexpected(target)
        if fd < 0:
            fd = 0 if op in ("<", "<>", "<&", "<<", "<<-") else 1
        if op in ("<<", "<<-"):
            raw = target.value
            quoted = any(c in raw for c in "'\"\\")
            delim = "".join(p.text for p in target.word.parts if isinstance(p, Lit)) if quoted else raw
            doc = HereDoc(delim, op == "<<-", not quoted)
            self.lexer.pending.append(doc)
            return Redir(fd, op, target.word, doc)
        return Redir(fd, op, target.word)

    def simple(self) -> Node:
        assigns: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirs: list[Redir] = []
        line = self.lexer.src.count("\n", 0, self.peek().start)
        while True:
            tok = self.peek()
            if tok.kind == "io" or (tok.kind == "op" and tok.value in REDIRECTIONS):
                redirs.append(self.redirection())
                continue
            if tok.kind != "word" or tok.word is None:
                break
            self.take()
            if not words:
                split = _assignment(tok.word)
                if split is not None:
                    assigns.append(split)
                    continue
            if not words and not assigns and self.peek().kind == "op" and self.peek().value == "(" \
                    and tok.word.literal() is not None:
                self.take()
                self.expect(")")
                name = tok.value
                if not is_name(name.replace("-", "_").replace(".", "_")):
                    raise ShellSyntaxError("bad function name")
                return self.function_body(name)
            words.append(tok.word)
        if not assigns and not words and not redirs:
            raise self.unexpected(self.peek())
        return Simple(tuple(assigns), tuple(words), tuple(redirs), line)

    # ------------------------------------------------------------ nested parses

    def _sub_parse(self, src: str, pos: int) -> tuple[Node, int]:
        """`$(` at `pos`: its commands up to the `)`, and the position after it."""
        if self.depth >= MAX_DEPTH:
            raise ShellSyntaxError(f"the script nests constructs or $(...) more than {MAX_DEPTH} deep")
        inner = Parser(src, pos, self.depth + 1)
        if inner.peek().kind == "op" and inner.peek().value == ")":
            inner.take()
            return EMPTY, inner.lexer.pos
        body = inner.compound_list(until=")")
        tok = inner.take()
        if not (tok.kind == "op" and tok.value == ")"):
            raise inner.unexpected(tok, ")")
        return body, inner.lexer.pos

    def _parse_text(self, text: str) -> Node:
        if self.depth >= MAX_DEPTH:
            raise ShellSyntaxError(f"the script nests constructs or $(...) more than {MAX_DEPTH} deep")
        return Parser(text, 0, self.depth + 1).program()


def _assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted or "=" not in first.text:
        return None
    name, _, rest = first.text.partition("=")
    if not is_name(name):
        return None
    parts = ((Lit(rest),) if rest else ()) + word.parts[1:]
    if rest.startswith("~") and (len(rest) == 1 or rest[1] == "/" or rest[1:].isalnum()):
        user, _, tail = rest[1:].partition("/")
        parts = (Tilde(user),) + ((Lit("/" + tail),) if "/" in rest else ()) + word.parts[1:]
    return name, Word(parts, word.text[len(name) + 1:])


@functools.lru_cache(maxsize=2048)
def parse(script: str) -> Node:
    """The tree of a whole script; ShellSyntaxError when it does not parse."""
    try:
        return Parser(script).program()
    except RecursionError:
        raise ShellSyntaxError("the script nests too deep") from None


@functools.lru_cache(maxsize=2048)
def parse_lines(script: str) -> tuple[tuple[Node, ...], ShellSyntaxError | None]:
    """The script's lines that parse, in order, and the syntax error after them (None: all parse)."""
    try:
        nodes, error = Parser(script).lines()
    except RecursionError:
        return (), ShellSyntaxError("the script nests too deep")
    return tuple(nodes), error


def parse_incremental(script: str) -> Node:
    """As `parse`, uncached (an interactive shell's growing input)."""
    try:
        return Parser(script).program()
    except RecursionError:
        raise ShellSyntaxError("the script nests too deep") from None
