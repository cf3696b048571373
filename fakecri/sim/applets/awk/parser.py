"""awk's grammar (POSIX, as busybox reads it): tokens to a `Program`.

Precedence, loosest first: assignment (right), `?:` (right), `||`, `&&`, `in`, `~ !~`,
comparisons (not chained; a bare `>` in print's arguments redirects), concatenation,
`+ -`, `* / %`, unary `! - +`, `^ **` (right), `++ --`, `$`, grouping. `cmd | getline`
takes a concatenation on its left; `getline < file` a primary on its right.
Syntax errors carry busybox's message ("Unexpected token", "Unexpected end of string").
"""
from __future__ import annotations

from fakecri.sim.applets.awk import ast as a
from fakecri.sim.applets.awk.lexer import AwkSyntaxError, Token, tokenize

_STARTS_OPERAND = frozenset({"NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "(", "!", "-", "+",
                             "++", "--"})
_CONCAT_START = _STARTS_OPERAND - {"!", "-", "+"}
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})
_COMPARE_OPS = frozenset({"<", "<=", "==", "!=", ">", ">="})
_TERMINATORS = frozenset({";", "NEWLINE", "}", "EOF"})
# What busybox takes after a bare `length` (its next_token(TC_LPAREN | TC_SEMICOL | TC_NEWLINE |
# TC_RBRACE | TC_BINOPX | TC_COMMA)): `(`, an end, a two-operand operator, a comma, or an operand
# its lexer finds without that list (a number, string, name, builtin, getline), which becomes a
# concatenation. Anything else (`$`, `)`, `]`, `!x`, `|`, `in`, `{`, the program's end) is
# "Unexpected token".
_AFTER_LENGTH = frozenset({"(", ";", "NEWLINE", "}", ",", "=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "**",
                           "==", "<=", ">=", "!=", "&&", "||", "!~", "+", "-", "*", "/", "%", "^", ">", "<",
                           "?", ":", "~", "NUMBER", "STRING", "NAME", "FUNC_NAME", "BUILTIN", "getline"})


class Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.pos = 0
        self.in_print = False  # a bare `>` ends the expression (print's redirection)
        self.no_in = False  # `for (x in a)`: the `in` is the loop's, not an operator
        self.params: list[str] | None = None  # the function being parsed
        self.functions: dict[str, a.Function] = {}

    # ---------------------------------------------------------------- tokens

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        t = self.tokens[self.pos]
        if t.kind != "EOF":
            self.pos += 1
        return t

    def error(self, message: str = "Unexpected token") -> AwkSyntaxError:
        """busybox names the line of the token before the one it could not take."""
        return AwkSyntaxError(message, self.tokens[self.pos - 1].line if self.pos else self.tok.line)

    def expect(self, kind: str) -> Token:
        if self.tok.kind != kind:
            raise self.error()
        return self.advance()

    def newlines(self) -> None:
        while self.tok.kind == "NEWLINE":
            self.advance()

    def terminators(self) -> None:
        while self.tok.kind in ("NEWLINE", ";"):
            self.advance()

    # ---------------------------------------------------------------- program

    def program(self) -> a.Program:
        prog = a.Program()
        self.terminators()
        while self.tok.kind != "EOF":
            kind = self.tok.kind
            if kind == "BEGIN":
                self.advance()
                prog.begin.append(self.block())
            elif kind == "END":
                self.advance()
                prog.end.append(self.block())
            elif kind == "function":
                self.function()
            else:
                pattern = end = None
                if kind != "{":
                    pattern = self.expr()
                    if self.tok.kind == ",":
                        self.advance()
                        self.newlines()
                        end = self.expr()
                action = self.block() if self.tok.kind == "{" else None
                prog.items.append(a.Item(pattern, end, action))
            if self.tok.kind not in ("NEWLINE", ";", "EOF") and self.tokens[self.pos - 1].kind != "}":
                raise self.error()
            self.terminators()
        prog.functions = self.functions
        _mark_arrays(prog.functions)
        return prog

    def function(self) -> None:
        self.advance()
        if self.tok.kind not in ("NAME", "FUNC_NAME"):
            raise self.error()
        name = self.advance().text
        self.expect("(")
        params: list[str] = []
        while self.tok.kind != ")":
            params.append(self.expect("NAME").text)
            if self.tok.kind == ",":
                self.advance()
                self.newlines()
            elif self.tok.kind != ")":
                raise self.error()
        self.advance()
        self.newlines()
        self.params = params
        fn = a.Function(name, params, a.Block())
        self.functions[name] = fn
        fn.body = self.block()
        self.params = None

    def block(self) -> a.Block:
        self.expect("{")
        body: list[a.Stmt] = []
        self.terminators()
        while self.tok.kind != "}":
            if self.tok.kind == "EOF":
                raise self.error()
            body.append(self.statement())
            self.terminators()
        self.advance()
        return a.Block(body)

    # ---------------------------------------------------------------- statements

    def end_simple(self) -> None:
        """A simple statement ends at `;`, a newline, or before `}`."""
        if self.tok.kind in (";", "NEWLINE"):
            self.advance()
        elif self.tok.kind not in ("}", "EOF"):
            raise self.error()

    def body(self) -> a.Stmt:
        """The statement of an if/while/for: after optional newlines; a lone `;` is empty."""
        self.newlines()
        if self.tok.kind == ";":
            self.advance()
            return a.Block()
        return self.statement()

    def statement(self) -> a.Stmt:
        t = self.tok
        kind = t.kind
        if kind == "{":
            return self.block()
        if kind == "if":
            self.advance()
            self.expect("(")
            test = self.expr()
            self.expect(")")
            then = self.body()
            save = self.pos
            self.terminators()
            if self.tok.kind == "else":
                self.advance()
                return a.If(test, then, self.body())
            self.pos = save
            return a.If(test, then, None)
        if kind == "while":
            self.advance()
            self.expect("(")
            test = self.expr()
            self.expect(")")
            if self.tok.kind == ";":  # `while (x);`: an empty body
                self.advance()
                return a.While(test, a.Block())
            return a.While(test, self.body())
        if kind == "do":
            self.advance()
            body = self.body()
            self.terminators()
            self.expect("while")
            self.expect("(")
            test = self.expr()
            self.expect(")")
            self.end_simple()
            return a.DoWhile(body, test)
        if kind == "for":
            return self.for_statement()
        if kind == ";":
            self.advance()
            return a.Block()
        stmt = self.simple_statement()
        self.end_simple()
        return stmt

    def for_statement(self) -> a.Stmt:
        self.advance()
        self.expect("(")
        k = self.tokens[self.pos:self.pos + 4]
        if len(k) == 4 and k[0].kind == "NAME" and k[1].kind == "in" and k[2].kind == "NAME" and k[3].kind == ")":
            var = self.variable(self.advance().text)
            self.advance()
            array = self.array_ref(self.advance().text)
            self.advance()
            return a.ForIn(var, array, self.body())
        init = None if self.tok.kind == ";" else self.expr()
        self.expect(";")
        self.newlines()
        test = None if self.tok.kind == ";" else self.expr()
        self.expect(";")
        self.newlines()
        step = None if self.tok.kind == ")" else self.expr()
        self.expect(")")
        if self.tok.kind == ";":
            self.advance()
            return a.For(init, test, step, a.Block())
        return a.For(init, test, step, self.body())

    def simple_statement(self) -> a.Stmt:
        t = self.tok
        kind = t.kind
        if kind in ("print", "printf"):
            return self.print_statement()
        if kind in ("next", "nextfile", "break", "continue"):
            self.advance()
            return a.Simple(kind, t.line)
        if kind in ("exit", "return"):
            self.advance()
            value = None if self.tok.kind in _TERMINATORS else self.expr()
            return a.Exit(value, t.line) if kind == "exit" else a.Return(value, t.line)
        if kind == "delete":
            self.advance()
            name = self.expect("NAME").text
            array = self.array_ref(name)
            subs = None
            if self.tok.kind == "[":
                self.advance()
                subs = self.expr_list("]")
            return a.Delete(array, subs, t.line)
        return a.ExprStmt(self.expr(), t.line)

    def print_statement(self) -> a.Stmt:
        t = self.advance()
        args: list[a.Expr] = []
        self.in_print = True
        try:
            if self.tok.kind == "(":
                save = self.pos
                self.advance()
                self.in_print = False
                inner = self.expr_list(")")
                self.in_print = True
                if self.tok.kind in _TERMINATORS or self.tok.kind in (">", ">>", "|"):
                    args = inner
                else:  # `print (a) b`: the parentheses were the first operand's
                    self.pos = save
                    args = self.print_args()
            elif self.tok.kind not in _TERMINATORS and self.tok.kind not in (">", ">>", "|"):
                args = self.print_args()
        finally:
            self.in_print = False
        redirect, dest = "", None
        if self.tok.kind in (">", ">>", "|"):
            redirect = self.advance().text
            self.in_print = True  # (busybox takes a whole expression, `?:` too, that a `>` does not end)
            try:
                dest = self.ternary()
            finally:
                self.in_print = False
        if t.kind == "printf" and not args:
            raise self.error()
        return a.Print(t.kind == "printf", args, redirect, dest, t.line)

    def print_args(self) -> list[a.Expr]:
        args = [self.expr()]
        while self.tok.kind == ",":
            self.advance()
            self.newlines()
            args.append(self.expr())
        return args

    def expr_list(self, close: str) -> list[a.Expr]:
        self.newlines()
        items = [self.expr()]
        while self.tok.kind == ",":
            self.advance()
            self.newlines()
            items.append(self.expr())
        self.newlines()
        self.expect(close)
        return items

    # ---------------------------------------------------------------- expressions

    def expr(self) -> a.Expr:
        return self.ternary()

    def ternary(self) -> a.Expr:
        test = self.logical_or()
        if self.tok.kind in _ASSIGN_OPS and isinstance(test, a.LVALUES):
            op = self.advance().text
            self.newlines()
            return a.Assign("^=" if op == "**=" else op, test, self.ternary())
        if self.tok.kind == "?":
            self.advance()
            self.newlines()
            yes = self.ternary()
            self.newlines()
            self.expect(":")
            self.newlines()
            return a.Cond(test, yes, self.ternary())
        return test

    def logical_or(self) -> a.Expr:
        left = self.logical_and()
        while self.tok.kind == "||":
            self.advance()
            self.newlines()
            left = a.Logical("||", left, self.logical_and())
        return left

    def logical_and(self) -> a.Expr:
        left = self.in_expr()
        while self.tok.kind == "&&":
            self.advance()
            self.newlines()
            left = a.Logical("&&", left, self.in_expr())
        return left

    def in_expr(self) -> a.Expr:
        left = self.matching()
        while self.tok.kind == "in" and not self.no_in:
            self.advance()
            array = self.array_ref(self.expect("NAME").text)
            left = a.In([left], array)
        return left

    def matching(self) -> a.Expr:
        left = self.comparison()
        while self.tok.kind in ("~", "!~"):
            negate = self.advance().kind == "!~"
            left = a.Match(negate, left, self.comparison())
        return left

    def comparison(self) -> a.Expr:
        left = self.concatenation()
        while self.tok.kind in _COMPARE_OPS and not (self.tok.kind == ">" and self.in_print):
            kind = self.advance().kind
            left = a.Compare(kind, left, self.concatenation())
        return left

    def concatenation(self, no_getline: bool = False) -> a.Expr:
        left = self.additive()
        while True:
            kind = self.tok.kind
            if kind == "|" and not no_getline and self.tokens[self.pos + 1].kind == "getline":
                self.advance()
                self.advance()
                left = a.Getline(self.optional_lvalue(), command=left)
                continue
            if kind in _CONCAT_START:
                left = a.Binary(" ", left, self.additive())
                continue
            return left

    def additive(self) -> a.Expr:
        left = self.multiplicative()
        while self.tok.kind in ("+", "-"):
            op = self.advance().kind
            left = a.Binary(op, left, self.multiplicative())
        return left

    def multiplicative(self) -> a.Expr:
        left = self.unary()
        while self.tok.kind in ("*", "/", "%"):
            op = self.advance().kind
            left = a.Binary(op, left, self.unary())
        return left

    def unary(self) -> a.Expr:
        kind = self.tok.kind
        if kind == "!":
            self.advance()
            return a.Not(self.unary())
        if kind in ("-", "+"):
            self.advance()
            return a.Unary(kind, self.unary())
        return self.power()

    def power(self) -> a.Expr:
        base = self.postfix()
        if self.tok.kind in ("^", "**"):
            self.advance()
            return a.Binary("^", base, self.power_operand())
        return base

    def power_operand(self) -> a.Expr:
        if self.tok.kind in ("-", "+", "!"):  # 2^-1
            kind = self.advance().kind
            operand = self.power_operand()
            return a.Not(operand) if kind == "!" else a.Unary(kind, operand)
        return self.power()

    def postfix(self) -> a.Expr:
        kind = self.tok.kind
        if kind in ("++", "--"):
            self.advance()
            target = self.postfix()
            if not isinstance(target, a.LVALUES):
                raise self.error()
            return a.IncDec(kind, True, target)
        value = self.primary()
        # After a number busybox's lexer takes `++`/`--` as the prefix operator of a concatenated
        # operand, never as a postfix one: `$1++` and `1++` are "Unexpected token", `1 ++x` is "11".
        after_number = self.pos > 0 and self.tokens[self.pos - 1].kind == "NUMBER"
        if self.tok.kind in ("++", "--") and isinstance(value, a.LVALUES) and not after_number:
            return a.IncDec(self.advance().kind, False, value)
        return value

    def primary(self) -> a.Expr:
        self.newlines()  # where an operand must come, busybox reads on past newlines
        t = self.tok
        kind = t.kind
        if kind == "NUMBER":
            self.advance()
            return a.Num(t.value)
        if kind == "STRING":
            self.advance()
            return a.Str(t.text)
        if kind == "ERE":
            self.advance()
            return a.Regex(t.text)
        if kind == "$":
            self.advance()
            if self.tok.kind in ("++", "--"):
                op = self.advance().kind
                return a.Field(a.IncDec(op, True, self.primary()))
            if self.tok.kind in ("-", "+", "!"):
                op = self.advance().kind
                operand = self.primary()
                return a.Field(a.Not(operand) if op == "!" else a.Unary(op, operand))
            return a.Field(self.primary())
        if kind == "(":
            self.advance()
            save_print, save_in = self.in_print, self.no_in
            self.in_print = self.no_in = False
            try:
                items = self.expr_list(")")
            finally:
                self.in_print, self.no_in = save_print, save_in
            if len(items) > 1:
                if self.tok.kind != "in":
                    raise self.error()
                self.advance()
                return a.In(items, self.array_ref(self.expect("NAME").text))
            return a.Group(items[0])
        if kind == "NAME":
            self.advance()
            if self.tok.kind == "[":
                self.advance()
                save_print, self.in_print = self.in_print, False
                try:
                    subs = self.expr_list("]")
                finally:
                    self.in_print = save_print
                return a.Index(self.array_ref(t.text), subs)
            return self.variable(t.text)
        if kind == "FUNC_NAME":
            self.advance()
            return a.Call(t.text, self.call_args(), t.line)
        if kind == "BUILTIN":
            return self.builtin()
        if kind == "getline":
            self.advance()
            target = self.optional_lvalue()
            if self.tok.kind == "<":
                self.advance()
                return a.Getline(target, file=self.postfix())
            return a.Getline(target)
        if kind == "-" or kind == "+" or kind == "!":
            return self.unary()
        raise self.error()

    def call_args(self) -> list[a.Expr]:
        self.expect("(")
        save_print, save_in = self.in_print, self.no_in
        self.in_print = self.no_in = False
        try:
            if self.tok.kind == ")":
                self.advance()
                return []
            return self.expr_list(")")
        finally:
            self.in_print, self.no_in = save_print, save_in

    def builtin(self) -> a.Expr:
        t = self.advance()
        if t.text == "length" and self.tok.kind != "(":
            if self.tok.kind not in _AFTER_LENGTH:
                raise AwkSyntaxError("Unexpected token", t.line)
            return a.Builtin("length", [], t.line)
        if self.tok.kind != "(":
            raise self.error()
        return a.Builtin(t.text, self.call_args(), t.line)

    def optional_lvalue(self) -> a.Expr | None:
        kind = self.tok.kind
        if kind == "NAME":
            t = self.advance()
            if self.tok.kind == "[":
                self.advance()
                return a.Index(self.array_ref(t.text), self.expr_list("]"))
            return self.variable(t.text)
        if kind == "$":
            self.advance()
            return a.Field(self.primary())
        return None

    def variable(self, name: str) -> a.Var | a.Local:
        if self.params is not None and name in self.params:
            return a.Local(self.params.index(name), name)
        return a.Var(name)

    def array_ref(self, name: str) -> a.Var | a.Local:
        return self.variable(name)


def _walk(node: object) -> list[object]:
    """Every node under `node` (itself included)."""
    out: list[object] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        for slot in getattr(type(n), "__slots__", ()):
            child = getattr(n, slot, None)
            if isinstance(child, list):
                stack.extend(c for c in child if isinstance(c, (a.Expr, a.Stmt)))
            elif isinstance(child, (a.Expr, a.Stmt)):
                stack.append(child)
    return out


def _mark_arrays(functions: dict[str, a.Function]) -> None:
    """Which parameters each function uses as arrays (passed on to a function that does so
    counts), so a caller's unset variable passed there becomes an array it shares."""
    calls: list[tuple[a.Function, int, str, int]] = []
    for fn in functions.values():
        for n in _walk(fn.body):
            if isinstance(n, (a.Index, a.In, a.ForIn, a.Delete)) and isinstance(n.array, a.Local):
                fn.arrays.add(n.array.index)
            if isinstance(n, a.Builtin) and n.name == "split" and len(n.args) > 1 and isinstance(n.args[1], a.Local):
                fn.arrays.add(n.args[1].index)
            if isinstance(n, a.Call):
                for i, arg in enumerate(n.args):
                    if isinstance(arg, a.Local):
                        calls.append((fn, arg.index, n.name, i))
    changed = True
    while changed:
        changed = False
        for fn, index, callee, position in calls:
            target = functions.get(callee)
            if target is not None and position in target.arrays and index not in fn.arrays:
                fn.arrays.add(index)
                changed = True


def parse(text: str) -> a.Program:
    return Parser(text).program()
