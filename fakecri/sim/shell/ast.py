"""The syntax tree of a shell script, as fakecri.sim.shell.parser builds it: frozen values,
so one parse of a script serves every process that runs it.

A `Word` is a sequence of parts: literal text (quoted or not), parameter expansions,
command substitutions and arithmetic. A command is a `Simple` command, a `Pipeline`, an
`AndOr` list, a `Sequence` of them (each in the foreground or `&`), or one of the compound
commands, which a `Redirected` wraps when redirections follow it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lit:
    """Literal text; `quoted`: it came from quotes or a backslash (no splitting, no globbing)."""

    text: str
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class Tilde:
    """`~` or `~user` at the start of a word."""

    user: str


@dataclass(frozen=True, slots=True)
class Param:
    """`$name`, `${name}`, `${name OP word}`, `${#name}`; `quoted`: between double quotes."""

    name: str
    op: str = ""  # "", "-", ":-", "=", ":=", "+", ":+", "?", ":?", "#", "##", "%", "%%", "len", ":", "/", "//"
    arg: Word | None = None
    quoted: bool = False
    arg2: Word | None = None  # `${x:off:len}` length, `${x/pat/rep}` replacement


@dataclass(frozen=True, slots=True)
class CmdSub:
    """`$(...)` or a backquoted command."""

    body: Node
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class Arith:
    """`$((expression))`: the expression as a word (its expansions done before it is read)."""

    expr: Word
    quoted: bool = False


Part = Lit | Tilde | Param | CmdSub | Arith


@dataclass(frozen=True, slots=True)
class Word:
    parts: tuple[Part, ...]
    text: str = ""  # the source text, for `set -x`-free uses: reserved words, names, messages

    def literal(self) -> str | None:
        """The word's text when it is all unquoted literal text (a name, a reserved word)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass(slots=True, eq=False)
class HereDoc:
    """A here-document: its body is filled in when the lexer reaches the lines after its `<<`."""

    delimiter: str
    strip_tabs: bool
    expand: bool  # the delimiter was unquoted: the body's $ and ` expand
    body: Word | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Redir:
    """`[fd]op target`. op: < > >> >| <> <& >& &> << <<- (a here-document carries its body)."""

    fd: int
    op: str
    target: Word
    doc: HereDoc | None = None

    def body(self) -> Word:
        if self.doc is None or self.doc.body is None:
            return Word((Lit("", True),))
        return self.doc.body


@dataclass(frozen=True, slots=True)
class Simple:
    assigns: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]
    redirs: tuple[Redir, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class Pipeline:
    commands: tuple[Node, ...]
    negate: bool = False


@dataclass(frozen=True, slots=True)
class AndOr:
    first: Node
    rest: tuple[tuple[str, Node], ...]  # ("&&" | "||", pipeline)


@dataclass(frozen=True, slots=True)
class Sequence:
    items: tuple[tuple[Node, bool], ...]  # (command, in the background)


@dataclass(frozen=True, slots=True)
class Subshell:
    body: Node


@dataclass(frozen=True, slots=True)
class Group:
    body: Node


@dataclass(frozen=True, slots=True)
class If:
    branches: tuple[tuple[Node, Node], ...]  # (condition, body) for if and each elif
    otherwise: Node | None = None


@dataclass(frozen=True, slots=True)
class Loop:
    cond: Node
    body: Node
    until: bool = False


@dataclass(frozen=True, slots=True)
class For:
    name: str
    words: tuple[Word, ...] | None  # None: `for x; do` (the positional parameters)
    body: Node


@dataclass(frozen=True, slots=True)
class Case:
    word: Word
    items: tuple[tuple[tuple[Word, ...], Node | None], ...]


@dataclass(frozen=True, slots=True)
class Test:
    """`[[ ... ]]`: its words, read when it runs (`closed`: its `]]` was there)."""

    words: tuple[Word, ...]
    closed: bool = True


@dataclass(frozen=True, slots=True)
class FuncDef:
    name: str
    body: Node
    source: str = ""  # the definition as written (to define it again in a trap's handler)


@dataclass(frozen=True, slots=True)
class Redirected:
    """A compound command with its redirections."""

    body: Node
    redirs: tuple[Redir, ...]


Node = Simple | Pipeline | AndOr | Sequence | Subshell | Group | If | Loop | For | Case | Test | FuncDef | Redirected
EMPTY = Sequence(())
