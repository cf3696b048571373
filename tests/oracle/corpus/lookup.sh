# How a command name is found: PATH searched for the scripts an image or an init container puts
# in bin directories, ash's `hash` table of what it found, and paths that lead nowhere.
### hash-lists-no-applet
hash; echo "rc=$?"; ls >/dev/null; hash; echo ---; cat /dev/null; wc -l </dev/null >/dev/null; hash; echo ---; hash -r; hash; echo rc=$?; hash ls; hash; type ls; hash nosuch; echo $?
### hash-after-functions-and-pipes
f() { :; }; f; hash; sleep 0; hash; echo x | tr x y; hash; hash -r; hash
### hash-with-a-plain-path
cd /; PATH=/bin:/usr/bin; ls >/dev/null; hash; hash sleep; hash; printf 'x\n' >/dev/null; hash; echo "$(hash)"
### script-on-path-runs-and-is-hashed
mkdir -p bin; printf '#!/bin/sh\necho hi "$@"\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin:$PATH; foo a; hash; hash foo; echo $?; type foo; command -v foo; hash -r; hash; hash foo; hash
### hashed-script-removed-runs-the-next-one
mkdir -p bin b2; printf '#!/bin/sh\necho one\n' > bin/foo; printf '#!/bin/sh\necho two\n' > b2/foo; chmod +x bin/foo b2/foo; PATH=$PWD/bin:$PWD/b2:$PATH; foo; hash; rm bin/foo; foo; echo $?; hash; PATH=$PWD/b2:$PATH; hash; foo; hash
### script-without-shebang-on-a-prefix-path
mkdir -p bin; printf 'echo noshebang $#\n' > bin/bar; chmod +x bin/bar; PATH=$PWD/bin:$PATH bar 1 2; hash; bar; echo $?
### any-path-assignment-empties-the-table
mkdir -p bin; printf '#!/bin/sh\necho hi $0 "$@"\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin:$PATH; foo; hash; PATH=$PATH:/nowhere; hash; echo "---"; foo; PATH=$PATH; hash; echo ---; foo; x=1; hash; export PATH; hash
### script-not-executable-is-denied
mkdir -p bin; printf 'echo hi\n' > bin/foo; PATH=$PWD/bin:$PATH; foo; echo "rc=$?"; hash; command -v foo; echo "rc=$?"; type foo
### directory-on-path-is-passed-over
mkdir -p bin/foo b2; printf 'echo two\n' > b2/foo; chmod +x b2/foo; PATH=$PWD/bin:$PWD/b2:$PATH; foo; echo "rc=$?"
### not-executable-then-executable
mkdir -p bin b2; printf 'echo one\n' > bin/foo; printf 'echo two\n' > b2/foo; chmod +x b2/foo; PATH=$PWD/bin:$PWD/b2:$PATH; foo; echo "rc=$?"; hash
### unset-path-keeps-the-applets
mkdir -p bin; printf 'echo one\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin; foo; unset PATH; foo; echo "rc=$?"; ls >/dev/null; echo "ls=$?"
### empty-and-dot-entries-are-the-directory
mkdir -p bin; printf 'echo one\n' > bin/foo; chmod +x bin/foo; cd bin; foo; echo "rc=$?"; PATH=:$PATH; foo; PATH=.; foo; hash
### prefix-path-finds-but-does-not-hash
mkdir -p bin; printf 'echo "one $X"\n' > bin/foo; chmod +x bin/foo; X=7 PATH=$PWD/bin foo; echo $?; hash; foo; echo $?
### function-before-a-file-on-path
mkdir -p bin; printf 'echo file\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin:$PATH; foo() { echo func; }; foo; unset -f foo; foo; command foo
### shebang-with-an-option
mkdir -p bin; printf '#!/bin/sh -e\nfalse\necho not\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin:$PATH; foo; echo "rc=$?"
### cd-marks-the-table
mkdir -p bin; for n in foo bar baz qux a1 zz; do printf 'echo %s\n' $n > bin/$n; chmod +x bin/$n; done; PATH=$PWD/bin:$PATH; foo; bar; baz; qux; a1; zz; hash; cd bin; hash; foo; hash; cd ..; PATH=.:$PATH; hash
### relative-path-entry-after-cd
mkdir -p bin; printf 'echo foo\n' > bin/foo; chmod +x bin/foo; PATH=bin:$PATH; foo; hash; cd bin; hash; foo; echo $?; hash
### hash-of-builtins-and-bad-options
hash echo cd; echo $?; hash; hash -r x; echo $?; hash -v; echo $?
### path-to-no-file-runs-no-applet
/nonexistent/ls; echo $?; ./ls; echo $?; /bin/ls -d / ; echo $?
### script-on-path-through-env-xargs-and-sh
mkdir -p bin; printf 'echo "env $X"\n' > bin/foo; chmod +x bin/foo; PATH=$PWD/bin:$PATH; X=3 env foo; env X=4 foo; echo x | xargs foo; busybox sh -c foo
### entrypoint-style-script-on-path
mkdir -p usr/local/bin; cat > usr/local/bin/docker-entrypoint.sh <<'S'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ]; then set -- server "$@"; fi
echo "starting: $*"
exec "$@"
S
chmod 755 usr/local/bin/docker-entrypoint.sh; printf '#!/bin/sh\necho "server args: $*"\n' > usr/local/bin/server; chmod +x usr/local/bin/server
PATH=$PWD/usr/local/bin:$PATH; docker-entrypoint.sh --port 80; echo "rc=$?"; docker-entrypoint.sh echo direct
