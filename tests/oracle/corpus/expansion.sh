# Every parameter expansion.
### default-colon-dash
unset u; e=; s=set; echo "${u:-d1} ${e:-d2} ${s:-d3}"
### default-dash
unset u; e=; echo "[${u-d1}] [${e-d2}]"
### assign-default
unset u; echo "${u:=assigned}"; echo "$u"; e=; : "${e:=filled}"; echo "$e"
### assign-default-dash
unset u; e=; : ${u=one} ${e=two}; echo "[$u] [$e]"
### alternative
unset u; e=; s=x; echo "[${u:+alt}] [${e:+alt}] [${s:+alt}] [${e+alt}]"
### error-if-unset !stderr
unset u; (echo "${u:?must be set}"); echo "status $?"
### error-if-unset-message
unset CONFIG; ( : "${CONFIG:?CONFIG is required}" ); echo $?
### length
s=hello; e=; echo ${#s} ${#e} ${#nothing}
### remove-small-prefix
f=/var/log/app/main.log; echo "${f#*/}"
### remove-large-prefix
f=/var/log/app/main.log; echo "${f##*/}"
### remove-small-suffix
f=archive.tar.gz; echo "${f%.*}"
### remove-large-suffix
f=archive.tar.gz; echo "${f%%.*}"
### dirname-by-expansion
f=/etc/app/conf.d/x.conf; echo "${f%/*}"
### pattern-with-bracket
v=abc123; echo "${v#[a-c]}" "${v%[0-9]}" "${v##*[a-c]}"
### pattern-no-match-unchanged
v=hello; echo "${v#x}" "${v%y}"
### pattern-from-variable
v=prefix-name; p=prefix-; echo "${v#$p}" "${v#"$p"}"
### quoted-pattern-is-literal
v='a*b'; echo "${v#"a*"}" "${v#a*}"
### expansion-in-default-word
a=A; unset u; echo "${u:-$a-x}" "${u:-"$a b"}"
### nested-default
unset x y; z=zz; echo "${x:-${y:-$z}}"
### positional-expansions
set -- one two three; echo "${1} ${2:-none} ${4:-none} ${#}"
### length-of-positional
set -- abc; echo ${#1}
### star-vs-at-quoted
set -- "a b" c; for w in "$@"; do echo "[$w]"; done; for w in "$*"; do echo "<$w>"; done
### star-with-ifs
set -- a b c; IFS=,; echo "$*"; IFS=:; echo "$*"
### at-empty
set --; for w in "$@"; do echo never; done; echo "n=$#"
### unquoted-empty-disappears
e=; set -- $e "$e" x; echo $#
### brace-param-10
set -- 1 2 3 4 5 6 7 8 9 ten; echo "${10}" "$10"
