"""Generated scripts: a grammar of the everyday shell constructs over small values, written as one
generator driven by a `random.Random`, so hypothesis (`scripts()`, a strategy over its own
shrinkable randoms) and scripts/shell_match.py (`generate(seed)`) draw from the same grammar.

Every script ends: loops run over fixed word lists or count a counter of their own (raised at
the top of the body, so `continue` cannot skip it) up to at most 3, functions call no function,
nothing reads the terminal and nothing sleeps. Each statement leaves traces on stdout, and the
script ends by printing its variables and the last status.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

VARS = ("a", "b", "c")
NUMS = ("n", "m")
WORDS = ("x", "ab", "a b", "", "1", "42", "-n", "f*", "?1", "[ab]", "it's", "a\\b", "  sp  ", "%s", "-")
FILES = ("f1", "f2", "ab.txt")
FORMATS = ("%s|", "[%s]", "%s\\n", "<%5s>", "%d.", "%-3s|%s\\n")
MAX_DEPTH = 3
T = TypeVar("T")


def quote(word: str) -> str:
    """`word` as one shell word, quoted as a person would."""
    if word and all(ch.isalnum() or ch in "._-/" for ch in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def fill(template: str, **values: str) -> str:
    """`template` with each `<name>` replaced by its value (shell text is full of braces and %)."""
    for name, value in values.items():
        template = template.replace(f"<{name}>", value)
    return template


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng
        self.counters = 0
        self.groups = 0
        self.functions: list[str] = []

    def pick(self, xs: Sequence[T]) -> T:
        return xs[self.r.randrange(len(xs))]

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    # -- words ---------------------------------------------------------------------------------
    def literal(self) -> str:
        return quote(self.pick(WORDS))

    def pattern(self) -> str:
        return self.pick(("x", "a*", "*b", "?", "[ab]*", "*' '*", "a", "''", "4?", "-*"))

    def param(self) -> str:
        v = self.pick(VARS)
        w = self.pick(("x", "ab", "", "d e"))
        forms = (f"${v}", f"${{{v}}}", f"${{{v}:-{quote(w)}}}", f"${{{v}-{quote(w)}}}", f"${{{v}:+{quote(w)}}}",
                 f"${{#{v}}}", f"${{{v}#a}}", f"${{{v}%b}}", f"${{{v}##*a}}", f"${{{v}%%b*}}", f"${{{v}#?}}")
        return self.pick(forms)

    def arith(self, depth: int = 0) -> str:
        if depth >= 2 or self.chance(0.4):
            return self.pick((str(self.r.randint(0, 9)), self.pick(NUMS), f"${self.pick(NUMS)}", "-3"))
        op = self.pick(("+", "-", "*", "/", "%", "<", "==", "!=", "&&", "||", ">", "<<", "&", "|"))
        left = self.arith(depth + 1)
        right = str(self.r.randint(1, 5)) if op in ("/", "%", "<<") else self.arith(depth + 1)
        expr = f"{left} {op} {right}"
        return f"({expr})" if self.chance(0.3) else expr

    def arg(self, depth: int) -> str:
        kind = self.r.randrange(10)
        if kind <= 2:
            return self.literal()
        if kind <= 4:
            return self.param()
        if kind == 5:
            return f'"{self.param()}"'
        if kind == 6:
            return f'"{self.pick(("x", "y z", "."))} {self.param()}"'
        if kind == 7:
            return f"$(({self.arith()}))"
        if kind == 8 and depth < MAX_DEPTH:
            inner = self.simple(depth + 1)
            return f'"$( {inner})"' if self.chance(0.5) else f"$( {inner})"  # `$( (` is not `$((`
        return self.pick(("$?", "$#", '"$@"', "$1", "*", "f*", "'$a'", "\\$b", '"$*"'))

    def args(self, depth: int) -> str:
        return " ".join(self.arg(depth) for _ in range(self.r.randint(1, 3)))

    # -- commands ------------------------------------------------------------------------------
    def condition(self, depth: int) -> str:
        kind = self.r.randrange(7)
        if kind == 0:
            return self.pick(("true", "false", "! true", "! false"))
        if kind == 1:
            return f'[ "{self.param()}" {self.pick(("=", "!="))} {self.literal()} ]'
        if kind == 2:
            return f'[ {self.pick(("-z", "-n"))} "{self.param()}" ]'
        if kind == 3:
            op = self.pick(("-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
            return f'[ "${self.pick(NUMS)}" {op} {self.r.randint(0, 5)} ]'
        if kind == 4:
            return f"[ {self.pick(('-e', '-f', '-d', '-s'))} {self.pick((*FILES, 'nope', '.', 'd'))} ]"
        if kind == 5:
            return f"{self.condition(depth)} {self.pick(('&&', '||'))} {self.condition(depth)}"
        return f"echo {self.literal()} | grep -q {self.pick(('x', 'a', '^a', 'b$'))}"

    def simple(self, depth: int) -> str:
        kind = self.r.randrange(14)
        if kind == 12:
            return self.builtin(depth)
        if kind == 13:
            return self.expansion_assignment()
        if kind <= 2:
            return f"echo {self.args(depth)}"
        if kind == 3:
            fmt = self.pick(FORMATS)
            values = self.args(depth) if self.chance(0.7) else str(self.r.randint(0, 99))
            return f"printf '{fmt}' {values}"
        if kind == 4:
            return f"echo {self.args(depth)} | {self.filter()}"
        if kind == 5:
            return f"{self.pick(NUMS)}=$(({self.arith()}))"
        if kind == 6:
            return f"{self.pick(VARS)}={self.arg(depth)}"
        if kind == 7:
            return f"(exit {self.r.randint(0, 3)})"
        if kind == 8:
            return f"set -- {self.args(depth)}"
        if kind == 9 and self.functions:
            return f"{self.pick(self.functions)} {self.args(depth)}"
        if kind == 10:
            return f"echo {self.literal()} {self.pick(('>', '>>'))} {self.pick(FILES)}"
        return self.pick(("true", "false", "shift", "cat f1", "ls", "echo $#"))

    def builtin(self, depth: int) -> str:
        """The builtins that change or read the shell's state, in the forms scripts use."""
        v, w = self.pick(VARS), self.pick(VARS)
        kind = self.r.randrange(16)
        if kind == 0:
            return fill('eval "<v>=\\$<w>"; echo "[$<v>]"', v=v, w=w)
        if kind == 1:
            return fill('(IFS=<ifs>; set -- $<v>; echo "$#:$1")', ifs=self.pick((":", "b", ",", "' '")), v=v)
        if kind == 2:
            line = self.pick(("x y z", "  a  b  ", "a\\b c", ""))
            return fill('{ read -r <v> <w> <<EOF\n<line>\nEOF\n}; echo "[$<v>][$<w>]"', v=v, w=w, line=line)
        if kind == 3:
            return fill("""sh -c 'echo "$# $1"; exit <k>' sh <args>; echo "child=$?\"""",
                        k=str(self.r.randint(0, 3)), args=self.args(depth))
        if kind == 4:
            return fill('(set -e; <cmd>; false; echo not-here); echo "e=$?"', cmd=self.simple(depth + 1))
        if kind == 5:
            return fill("(trap 'echo trapped $?' EXIT; <cmd>)", cmd=self.simple(depth + 1))
        if kind == 6:
            return '[ $# -gt 0 ] && shift; echo "$# $*"'
        if kind == 7:
            return """printf '<%s>' "$@"; echo"""
        if kind == 8:
            return fill("""export <v>; sh -c 'echo "$<v>"'""", v=v)
        if kind == 9:
            return fill("exec 3> fd3; echo <word> >&3; exec 3>&-; cat fd3", word=self.literal())
        if kind == 10:
            return fill('echo "${<v>#"$<w>"}" "${<v>%%"*"}" "${<v>#*"$"}"', v=v, w=w)
        if kind == 12:  # options as a script reads its own
            return ('OPTIND=1; while getopts ":ab:" o; do echo "o=$o [${OPTARG-}]"; done; '
                    'shift $((OPTIND - 1)); echo "rest:$#"')
        if kind == 13:
            op = self.pick(("+", "-", "\\*", "/", "%", "\\<", "=", "\\|", "\\&", ":"))
            return fill('expr "$<v>" <op> "$<w>"; echo "x=$?"', v=v, w=w, op=op)
        if kind == 14:
            return fill('printf \'<fmt>\' "$<v>" "$<w>"; echo " p=$?"', v=v, w=w,
                        fmt=self.pick(FORMATS + ("%5.2s|%-4s", "%x %o", "%c%c", "%b|%s", "%3d%%")))
        if kind == 15:
            return fill('[ "$<v>" <op> "$<w>" ]; echo "t=$?"', v=v, w=w,
                        op=self.pick(("=", "!=", "-eq", "-lt", "\\<", "-a", "-o")))
        return fill('unset <v>; echo "[${<v>-unset}]"', v=v)

    def expansion_assignment(self) -> str:
        v, n = self.pick(VARS), self.pick(NUMS)
        forms = (fill(': ${<v>:=<word>}; echo "$<v>"', v=v, word=self.literal()), fill("echo $((<n> += 2)) $<n>", n=n),
                 fill("echo $((<n>++)) $((<n>--)) $<n>", n=n), fill("echo $(( ${#<v>} + 1 ))", v=v),
                 fill(': ${<v>=<word>}; echo "${#<v>}"', v=v, word=self.literal()))
        return self.pick(forms)

    def filter(self) -> str:
        return self.pick(("cat", "wc -c", "tr a-z A-Z", "tr -d ' '", "sed 's/a/X/g'", "cut -c1-2", "head -n 1",
                          "grep -c a", "{ read -r x y; echo \"<$x><$y>\"; }", "sort", "od -c | head -n 1",
                          # the text applets as scripts use them
                          "awk '{print NF \":\" $1}'", "awk '{n += length($0)} END {print n + 0, NR}'",
                          "awk -F' ' '{$1 = $1; print}'", "awk '{gsub(/a/, \"[&]\"); print}'",
                          "awk '{printf \"%-4s|%3d\\n\", $1, $2}'", "awk 'length > 1'",
                          "sed -n '$p'", "sed 's/a*/-/g'", "sed -e 's/^/>/' -e 's/$/</'", "sed '/^$/d'",
                          "sed 'y/ab/ba/'", "sed 's/\\(.\\)\\(.\\)/\\2\\1/'", "sed -n 's/x/y/p'",
                          "sort -r", "sort -n", "sort -u", "uniq -c", "rev", "tr -s ' '", "cut -d' ' -f2",
                          "cut -c2-", "tail -n 1", "wc -w", "paste -s -d,", "fold -w 2", "nl -ba"))

    def loop_body(self, depth: int, loops: int) -> str:
        body = self.block(depth + 1, loops + 1)
        if self.chance(0.3):
            jump = self.pick(("break", "continue"))
            if loops >= 1 and self.chance(0.3):
                jump += " 2"
            body += f"; if {self.condition(depth)}; then {jump}; fi"
        return body

    def compound(self, depth: int, loops: int) -> str:
        kind = self.r.randrange(9)
        if kind == 0:
            out = f"if {self.condition(depth)}; then {self.block(depth + 1, loops)}"
            if self.chance(0.4):
                out += f"; elif {self.condition(depth)}; then {self.block(depth + 1, loops)}"
            if self.chance(0.5):
                out += f"; else {self.block(depth + 1, loops)}"
            return out + "; fi"
        if kind == 1:
            words = " ".join(self.literal() for _ in range(self.r.randint(0, 3)))
            return f"for {self.pick(VARS)} in {words}; do {self.loop_body(depth, loops)}; done"
        if kind in (2, 3):
            self.counters += 1
            i = f"i{self.counters}"
            test = f"[ ${i} -lt {self.r.randint(0, 3)} ]"
            word = "while"
            if kind == 3:
                word, test = "until", f"[ ${i} -ge {self.r.randint(0, 3)} ]"
            return f"{i}=0; {word} {test}; do {i}=$(({i} + 1)); {self.loop_body(depth, loops)}; done"
        if kind == 4:
            arms = []
            for _ in range(self.r.randint(1, 3)):
                alternative = "|" + self.pattern() if self.chance(0.3) else ""
                arms.append(f"{self.pattern()}{alternative}) {self.block(depth + 1, loops)};;")
            if self.chance(0.5):
                arms.append(f"*) {self.block(depth + 1, loops)};;")
            return f"case {self.arg(depth)} in {' '.join(arms)} esac"
        if kind == 5:
            return f"( {self.block(depth + 1, loops)} ); echo \"sub=$?\""
        if kind == 6:
            self.groups += 1  # a file of its own: a group inside that cats it would feed itself
            out = f"g{self.groups}"
            return f"{{ {self.block(depth + 1, loops)}; }} > {out}; echo \"grp=$?\"; cat {out}"
        if kind == 7:
            return f"{self.simple(depth)} {self.pick(('&&', '||'))} {self.simple(depth)}"
        delimiter = self.pick(("EOF", "'EOF'"))
        # in braces: the line after the delimiter may then go on with `; done`
        return f"{{ cat <<{delimiter}\nline {self.param()} $(({self.arith()}))\n\\$a `echo q`\nEOF\n}}"

    def statement(self, depth: int, loops: int) -> str:
        if depth < MAX_DEPTH and self.chance(0.45):
            return self.compound(depth, loops)
        return self.simple(depth)

    def block(self, depth: int, loops: int) -> str:
        parts = [self.statement(depth, loops) for _ in range(self.r.randint(1, 2))]
        return "; ".join(parts)

    def function(self, index: int) -> str:
        name = f"f{index}"
        body = self.block(1, 0)
        local = f"local {self.pick(VARS)}={self.literal()}; " if self.chance(0.4) else ""
        text = f'{name}() {{ {local}echo "{name}:$#:$1"; {body}; return {self.r.randint(0, 3)}; }}'
        self.functions.append(name)
        return text

    def script(self) -> str:
        a, b, c = (self.literal() for _ in VARS)
        lines = [f"n={self.r.randint(0, 5)}; m={self.r.randint(0, 5)}", f"a={a}; b={b}; c={c}"]
        if self.chance(0.5):
            lines.append("echo one > f1; printf 'two\\nthree\\n' > f2; mkdir d")
        for i in range(self.r.randint(0, 2)):
            lines.append(self.function(i))
        for _ in range(self.r.randint(1, 4)):
            lines.append(self.statement(0, 0))
        for name in self.functions:
            lines.append(f'{name} {self.args(1)}; echo "{name}=$?"')
        lines.append('echo "end:$?:$a:$b:$c:$n:$m:$#"')
        return "\n".join(lines)


def generate(seed: int) -> str:
    return Gen(random.Random(seed)).script()


def scripts() -> st.SearchStrategy[str]:
    return st.randoms(use_true_random=False).map(lambda rng: Gen(rng).script())
