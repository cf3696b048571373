# Syntax errors (exit 2), unknown commands (127), commands that cannot run (126).
### unknown-command
nosuchcmd; echo "rc=$?"
### unknown-command-exits-127
nosuchcmd
### unknown-path
./missing-script; echo "rc=$?"
### not-executable
echo 'echo hi' > s.sh; ./s.sh; echo "rc=$?"
### executable-script
printf '#!/bin/sh\necho "script $1"\nexit 3\n' > s.sh; chmod +x s.sh; ./s.sh arg; echo "rc=$?"
### script-without-shebang
printf 'echo plain\n' > p.sh; chmod 755 p.sh; ./p.sh; echo "rc=$?"
### directory-as-command
mkdir d; ./d; echo "rc=$?"
### syntax-missing-then
if true; echo x; fi
### syntax-missing-fi
if true; then echo x
### syntax-unexpected-fi
echo before; fi
### syntax-unclosed-quote
echo "open
### syntax-unclosed-single-quote
echo 'open
### syntax-bad-for
for do done
### syntax-missing-done
while true; do echo x
### syntax-missing-esac
case x in x) echo x;;
### syntax-unclosed-paren
(echo a
### syntax-bad-pipe
echo a | | cat
### syntax-leading-and
&& echo x
### syntax-unclosed-brace
{ echo a
### syntax-error-after-output
echo printed
if then
### syntax-unclosed-subst
echo $(echo x
### syntax-bad-substitution
echo ${x!}
### syntax-redirect-without-target
echo x >
### error-in-sub-shell-keeps-parent
sh -c 'if'; echo "child rc=$?"
### exit-status-126-or-127-in-pipe
nosuch | cat; echo "rc=$?"
### command-not-found-in-condition
if nosuch 2>/dev/null; then echo yes; else echo "no $?"; fi
### bad-option-to-builtin !stderr
set -Z; echo "rc=$?"
### eval-syntax-error-line
echo a
eval "echo x; ("; echo no
### eval-syntax-error-later-line
echo a

eval "echo 1
echo 2
if"; echo no
### source-syntax-error
printf 'echo in\n(\n' > bad.sh; echo a
. ./bad.sh; echo after
### source-syntax-error-in-function
printf 'echo in\n(\n' > bad.sh
x() { . ./bad.sh; }; x; echo rc=$?
echo next
### eval-error-in-function
f() { eval 'echo in; ('; echo after; }; f; echo rc=$?
echo next
### eval-error-in-subshell
(eval 'if'); echo rc=$?
### errors-inside-dot-file-name-it
printf 'echo in\nnosuchcmd\necho x > /nonexistent/f\necho $((1/0))\n' > f.sh; echo a
. ./f.sh
echo after
### errors-inside-eval-name-it
echo a
eval "echo x
nosuch2
cat < /nonexistent"
nosuch3; f() {
  nosuch4
}
f
### eval-fatal-expansion-error
eval 'echo ${unset_var?is unset}'; echo never
### lineno-in-eval-and-dot
echo "top $LINENO"; eval 'echo "eval $LINENO"'; printf 'echo "dot $LINENO"\n' > l.sh; . ./l.sh
### exec-not-found-forms
sh -c 'exec nosuch'; echo "rc=$?"; sh -c 'echo a
exec nosuch'; echo "rc=$?"; sh -c 'exec /nonexist/x'; echo "rc=$?"; sh -c 'f() { exec nosuch; }; f'; echo "rc=$?"
### exec-permission-denied
sh -c 'exec /etc'; echo "rc=$?"; sh -c 'exec /etc/passwd'; echo "rc=$?"
### exec-in-script-file
printf 'echo x\nexec nosuch\necho never\n' > es.sh; sh es.sh; echo "rc=$?"
### exec-replaces-with-args
sh -c 'exec sh -c "echo \$0 \$1" zero one'; sh -c 'exec env FOO=1 sh -c "echo \$FOO"'
### dirname-glibc
for d in //a ///a //a/b // a//b/ /a//b '' . .. a/ //a// / /a/; do printf '[%s] ' "$d"; dirname "$d"; done
### exec-by-applets-missing
env nosuch; echo "rc=$?"; env -i nosuch arg; echo "rc=$?"; env /etc; echo "rc=$?"; timeout 1 nosuch; echo "rc=$?"; echo a | xargs nosuch; echo "rc=$?"; env sh -c 'nosuch2'; echo "rc=$?"; env FOO=1 nosuch3; echo "rc=$?"
### lineno-file-builtin-error
printf 'echo one\nshift 5\necho two\n' > l.sh; sh l.sh; echo "rc=$?"
### lineno-c-builtin-error
sh -c 'echo one
shift 5
echo two'; echo "rc=$?"
### lineno-file-syntax
printf 'echo before\nif then\n' > bad.sh; sh bad.sh; echo "rc=$?"
### lineno-c-syntax
sh -c 'echo before
if then'; echo "rc=$?"
### lineno-var
printf 'echo $LINENO\necho $LINENO\n' > ln.sh; sh ln.sh; sh -c 'echo $LINENO
echo $LINENO'
### lineno-dot-error
printf 'echo in\nshift 9\n' > d.sh; . ./d.sh; echo "rc=$?"
