# if/elif/else, for, while, until, case, break and continue.
### if-true
if true; then echo yes; fi
### if-else
if false; then echo yes; else echo no; fi
### elif-chain
n=2; if [ $n -eq 1 ]; then echo one; elif [ $n -eq 2 ]; then echo two; else echo many; fi
### if-status-when-nothing-ran
if false; then echo x; fi; echo $?
### if-on-command-status
if grep -q root /etc/passwd; then echo has-root; fi
### nested-if
a=1; b=2; if [ $a = 1 ]; then if [ $b = 3 ]; then echo both; else echo only-a; fi; fi
### if-multiline
if [ -e /etc/hosts ]
then
  echo hosts
fi
### for-words
for w in alpha beta gamma; do echo "$w"; done
### for-positional-default
set -- p q; for w; do echo $w; done
### for-empty-list
for w in; do echo never; done; echo after
### for-with-glob
touch a.log b.log; for f in *.log; do echo "file $f"; done
### for-no-glob-match
for f in *.none; do echo "got $f"; done
### while-counter
i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done
### until-counter
i=3; until [ $i -eq 0 ]; do echo $i; i=$((i-1)); done
### while-false-never
while false; do echo never; done; echo $?
### break-out
for i in 1 2 3 4; do [ $i = 3 ] && break; echo $i; done
### continue-skips
for i in 1 2 3 4; do [ $i = 2 ] && continue; echo $i; done
### break-2
for i in 1 2; do for j in a b c; do [ $j = b ] && break 2; echo $i$j; done; done; echo end
### continue-2
for i in 1 2; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; echo never; done
### while-read-file
printf 'a 1\nb 2\n' > f; while read -r k v; do echo "$k=$v"; done < f
### loop-output-redirect
for i in 1 2 3; do echo $i; done > out; wc -l < out
### case-literal
case start in start) echo starting;; stop) echo stopping;; esac
### case-patterns
for f in a.txt b.log c; do case $f in *.txt) echo "$f text";; *.log|*.out) echo "$f log";; *) echo "$f other";; esac; done
### case-bracket-and-question
for w in a1 b22 X; do case $w in [ab]?) echo "$w short";; [ab]*) echo "$w long";; [[:upper:]]) echo "$w upper";; esac; done
### case-no-match-status
case x in y) echo y;; esac; echo $?
### case-quoted-pattern
p='*'; case abc in "$p") echo literal;; $p) echo glob;; esac
### case-fallthrough-none
case a in a) echo first;; a) echo second;; esac
### case-empty-word
v=; case "$v" in '') echo empty;; *) echo full;; esac
### case-multiline
case "$1" in
  -h|--help)
    echo help
    ;;
  *)
    echo "default"
    ;;
esac
### loop-status
for i in 1 2; do false; done; echo $?
### case-fallthrough-amp !stderr
case a in a) echo one;& b) echo two;; c) echo three;; esac; echo "rc=$?"
### case-double-amp !stderr
case a in a) echo one;;& *) echo two;; esac; echo "rc=$?"
### case-paren-pattern
case x in (x) echo paren;; (*) echo other;; esac
### case-empty-body-and-last-no-semis
case b in a) ;; b) echo bee
esac
### errexit-in-substitution-under-and
f() { echo $( (set -e; echo a; false; echo not-here); echo "e=$?") 1 && echo ok; }; f
### errexit-subshell-in-condition
set -e; ( false; echo still ) && echo and; if (false; echo in-if); then echo then; fi; echo end
### errexit-substitution-in-if
set -e; if x=$(false; echo after); then echo "x=$x"; fi; y=$(set -e; false; echo no); echo "y=[$y]"
### errexit-pipeline-and-not
set -e; ! false; echo one; false | true; echo two; true && false || echo three; echo four
### errexit-off-in-substitution
set -e; z=$(false; echo foo); echo "z=$z"; w=$(echo "$-"); case $w in *e*) echo has-e;; *) echo no-e;; esac; v=$(set -e; false; echo no) || echo "failed"; echo "v=[$v]"
### read-builtin-forms
printf 'a b c\n' | { read -r x rest; echo "[$x][$rest]"; }; printf 'one\ntwo\n' | { read l1; read l2; echo "$l2 $l1"; }; read -r v < /dev/null; echo "rc=$? [$v]"; printf 'k=v\n' | { IFS== read k v; echo "$k -> $v"; }
### read-n-d-and-prompt
printf 'abcdef' | { read -n 3 x; echo "[$x]"; }; printf 'a;b' | { read -d ';' x; echo "[$x]"; }; echo hi | { read -p 'prompt> ' x; echo "[$x]"; } 2>&1
### for-loops-forms
for i in 1 2 3; do printf '%s ' $i; done; echo; for f in nomatch*; do echo "[$f]"; done; set -- a b; for x; do echo $x; done; for i in $(seq 3); do :; done; echo $i
### while-break-continue-nested
i=0; while :; do i=$((i+1)); [ $i -eq 2 ] && continue; [ $i -gt 4 ] && break; for j in a b; do [ $j = b ] && continue 2; echo "$i$j"; done; done; echo end
### functions-and-recursion
fact() { [ $1 -le 1 ] && echo 1 && return; echo $(( $1 * $(fact $(($1 - 1))) )); }; fact 6; f() { echo "$# $*"; }; f "a b" c; f
### redirect-forms
echo out > r1; echo err >&2 2>r2; { echo a; echo b >&2; } > r3 2>&1; cat r1 r3; exec 4>r4; echo four >&4; exec 4>&-; cat r4; cat < r1 > r5; cat r5; : > r6; wc -c < r6
### pipeline-status
false | true; echo $?; true | false; echo $?; ! true; echo $?; set -o pipefail; false | true; echo $?
### glob-forms
touch g1 g2 g10 .hidden; echo g?; echo g*; echo g[12]; echo .h*; echo *.none; set -f; echo g*; set +f
### ifs-splitting
v='a:b::c'; IFS=:; set -- $v; echo $#; for x in $v; do printf '[%s]' "$x"; done; echo; IFS=' '; w='  x  y  '; set -- $w; echo $#
### arithmetic-edge
echo $((10 / 3)) $((-10 / 3)) $((10 % -3)) $((2 ** 10)) $((1 << 62)) $(( (1<<63) )) $((~0)) $((!5)) $((3 > 2 && 2 > 1))
### command-substitution-forms
x=$(printf 'a\n\n\n'); echo "[$x]"; y=`echo back`; echo $y; z=$(echo $(echo nested)); echo $z; echo "$(exit 3)$?"
