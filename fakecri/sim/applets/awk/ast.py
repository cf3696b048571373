"""The syntax tree of an awk program: expressions, statements, and the program's parts
(BEGIN and END actions, pattern-action items, functions)."""
from __future__ import annotations

from dataclasses import dataclass, field


class Expr:
    __slots__ = ()


@dataclass(slots=True)
class Num(Expr):
    value: float


@dataclass(slots=True)
class Str(Expr):
    value: str


@dataclass(slots=True)
class Regex(Expr):
    """`/ERE/`: against $0 where it stands alone, the pattern where a match takes one."""

    source: str


@dataclass(slots=True)
class Var(Expr):
    name: str


@dataclass(slots=True)
class Local(Expr):
    """A function's parameter (or extra parameter used as a local), by position."""

    index: int
    name: str


@dataclass(slots=True)
class Field(Expr):
    index: Expr


@dataclass(slots=True)
class Index(Expr):
    """`array[subscripts]`; the array is a Var or a Local."""

    array: Var | Local
    subscripts: list[Expr]


@dataclass(slots=True)
class Assign(Expr):
    op: str  # "=" or "+=" etc.
    target: Expr
    value: Expr


@dataclass(slots=True)
class Cond(Expr):
    test: Expr
    yes: Expr
    no: Expr


@dataclass(slots=True)
class Logical(Expr):
    op: str  # "&&" or "||"
    left: Expr
    right: Expr


@dataclass(slots=True)
class Not(Expr):
    operand: Expr


@dataclass(slots=True)
class Binary(Expr):
    op: str  # + - * / % ^ and " " (concatenation)
    left: Expr
    right: Expr


@dataclass(slots=True)
class Compare(Expr):
    op: str  # < <= == != > >=
    left: Expr
    right: Expr


@dataclass(slots=True)
class Match(Expr):
    negate: bool
    subject: Expr
    pattern: Expr


@dataclass(slots=True)
class In(Expr):
    subscripts: list[Expr]
    array: Var | Local


@dataclass(slots=True)
class Unary(Expr):
    op: str  # "-" or "+"
    operand: Expr


@dataclass(slots=True)
class IncDec(Expr):
    op: str  # "++" or "--"
    prefix: bool
    target: Expr


@dataclass(slots=True)
class Call(Expr):
    name: str
    args: list[Expr]
    line: int


@dataclass(slots=True)
class Builtin(Expr):
    name: str
    args: list[Expr]
    line: int


@dataclass(slots=True)
class Getline(Expr):
    """`getline [var]`, `getline [var] < file`, `cmd | getline [var]`."""

    target: Expr | None
    file: Expr | None = None
    command: Expr | None = None


@dataclass(slots=True)
class Group(Expr):
    """A parenthesised expression (kept so `print (a) > f` and `(a) (b)` parse as awk's)."""

    inner: Expr


LVALUES = (Var, Local, Field, Index)


class Stmt:
    __slots__ = ()


@dataclass(slots=True)
class ExprStmt(Stmt):
    expr: Expr
    line: int


@dataclass(slots=True)
class Print(Stmt):
    printf: bool
    args: list[Expr]
    redirect: str  # "", ">", ">>" or "|"
    dest: Expr | None
    line: int


@dataclass(slots=True)
class If(Stmt):
    test: Expr
    then: Stmt
    otherwise: Stmt | None


@dataclass(slots=True)
class While(Stmt):
    test: Expr
    body: Stmt


@dataclass(slots=True)
class DoWhile(Stmt):
    body: Stmt
    test: Expr


@dataclass(slots=True)
class For(Stmt):
    init: Expr | None
    test: Expr | None
    step: Expr | None
    body: Stmt


@dataclass(slots=True)
class ForIn(Stmt):
    var: Expr
    array: Var | Local
    body: Stmt


@dataclass(slots=True)
class Block(Stmt):
    body: list[Stmt] = field(default_factory=list)


@dataclass(slots=True)
class Simple(Stmt):
    """next, nextfile, break, continue."""

    word: str
    line: int


@dataclass(slots=True)
class Exit(Stmt):
    value: Expr | None
    line: int


@dataclass(slots=True)
class Return(Stmt):
    value: Expr | None
    line: int


@dataclass(slots=True)
class Delete(Stmt):
    array: Var | Local
    subscripts: list[Expr] | None
    line: int


@dataclass(slots=True)
class Item:
    """`pattern { action }`: no pattern (every record), one, or a range of two; no action: print."""

    pattern: Expr | None
    end: Expr | None
    action: Block | None


@dataclass(slots=True)
class Function:
    name: str
    params: list[str]
    body: Block
    arrays: set[int] = field(default_factory=set)  # which parameters it uses as arrays


@dataclass(slots=True)
class Program:
    begin: list[Block] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    end: list[Block] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
