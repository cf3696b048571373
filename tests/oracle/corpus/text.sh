# The text applets as probes, hooks and init containers use them.
### echo-plain-and-n
echo a b; echo -n no-newline; echo; echo -- -n
### echo-e-escapes
echo -e 'tab\there\nnew\\line'
### echo-backslash-without-e
echo 'a\tb'
### echo-e-octal-and-c
echo -e 'x\0101y'; echo -e 'stop\cnever'; echo after
### printf-formats
printf '%s-%d-%05.1f|%x|%o|%c\n' str 42 3.14159 255 8 char
### printf-reuses-format
printf '%s=%s\n' a 1 b 2 c
### printf-width-and-align
printf '[%5s][%-5s][%.2s]\n' ab ab abcdef
### printf-escapes-and-percent
printf 'a\tb\\c 100%%\n'
### printf-b-and-q-missing
printf '%b|%s|\n' 'x\ny' 
### printf-bad-number !stderr
printf '%d\n' abc; echo "rc=$?"
### cat-files-and-n
printf 'a\nb\n' > f; printf 'c\n' > g; cat f g; cat -n f
### cat-stdin-dash
echo file > f; echo piped | cat f - g 2>/dev/null; echo "rc=$?"
### cat-missing
cat missing; echo "rc=$?"
### head-tail
seq 1 10 > n; head -n 3 n; tail -n 2 n; head -3 n | tail -1; tail -n +9 n
### head-c-and-tail-c
printf 'abcdefgh' > f; head -c 3 f; echo; tail -c 3 f; echo
### wc-forms
printf 'one two\nthree\n' > f; wc -l f; wc -w < f; wc -c < f; wc f
### cut-fields-and-chars
echo 'root:x:0:0:root:/root:/bin/sh' | cut -d: -f1,6; echo abcdef | cut -c2-4; echo 'a b c' | cut -d' ' -f2-
### cut-passwd
cut -d: -f1 /etc/passwd | head -n 3
### tr-ranges-delete-squeeze
echo Hello | tr a-z A-Z; echo 'a  b   c' | tr -s ' '; echo 'a1b2c3' | tr -d 0-9; echo abc | tr abc xyz
### tr-classes
echo 'Mixed Case 123' | tr '[:lower:]' '[:upper:]'; echo 'x y' | tr -d '[:space:]'; echo
### sed-substitute
echo 'hello world' | sed 's/world/there/'; echo aaa | sed 's/a/b/g'; echo aaa | sed 's/a/b/2'
### sed-address-and-delete
seq 1 5 | sed '2d'; seq 1 5 | sed -n '2,3p'; seq 1 5 | sed '$d' | tail -n 1
### sed-in-place
printf 'key=old\nother=1\n' > conf; sed -i 's/^key=.*/key=new/' conf; cat conf
### sed-regex-groups
echo 'name: value' | sed 's/\([a-z]*\): \(.*\)/\2=\1/'; echo 'a.b.c' | sed -E 's/([a-z])\./\1-/g'
### sed-multiple-commands
echo abc | sed -e 's/a/A/' -e 's/c/C/'; echo abc | sed 's/a/1/;s/b/2/'
### sed-print-line-and-quit
seq 1 100 | sed -n '5{p;q}'
### grep-basic
printf 'alpha\nbeta\ngamma\n' > f; grep a f; grep -c a f; grep -v a f; echo "rc=$?"
### grep-options
printf 'Alpha\nbeta\nALPHA2\n' > f; grep -i alpha f; grep -n beta f; grep -q nothing f; echo "rc=$?"
### grep-regex
printf 'a1\nb22\nc\n' > f; grep '[0-9][0-9]' f; grep -E 'a|c' f; grep '^b' f; grep -o '[0-9]*' f
### grep-files-and-l
echo x > one; echo y > two; grep -l x one two; grep x one two; grep -h x one two
### grep-missing-file
grep x missing; echo "rc=$?"
### grep-w-and-x
printf 'foo\nfoobar\nfoo bar\n' > f; grep -w foo f; grep -x foo f
### grep-fixed-string
printf 'a.b\naxb\n' > f; grep -F 'a.b' f; grep 'a.b' f
### grep-r
mkdir -p d/e; echo needle > d/e/f; echo hay > d/g; grep -r needle d
### sort-forms
printf 'b\na\nc\na\n' > f; sort f; sort -r f; sort -u f
### sort-numeric-and-keys
printf '10 x\n9 y\n100 z\n' > f; sort -n f; sort -k2 -r f; sort -t' ' -k1,1n f | head -n 1
### uniq-forms
printf 'a\na\nb\na\n' > f; uniq f; uniq -c f; sort f | uniq -d; sort f | uniq -u
### seq-forms
seq 3; seq 2 4; seq 0 5 20; seq 3 -1 1; seq -s, 1 4; seq -w 8 10
### expr-arithmetic-and-strings
expr 2 + 3; expr 10 / 3; expr 7 % 4; expr length hello; expr substr hello 2 3; expr index hello l
### expr-compare-and-match
expr 3 \> 2; expr abc = abc; expr abc : 'a\(.*\)'; expr abc : 'x'; echo "rc=$?"
### expr-zero-status
expr 0 + 0; echo "rc=$?"; expr 1 - 1 >/dev/null || echo zero-is-false
### xargs-basic
printf 'a\nb\nc\n' | xargs echo; printf 'a b c d\n' | xargs -n 2 echo
### xargs-i-and-empty
printf 'x\ny\n' | xargs -I{} echo 'item {}'; printf '' | xargs echo empty-run
### xargs-files
touch one two; ls | xargs rm; ls | wc -l
### tee-forms
echo shared | tee out1 out2; cat out1 out2; echo more | tee -a out1 > /dev/null; cat out1
### basename-dirname
basename /usr/local/bin/app; basename /x/y.tar.gz .gz; dirname /usr/local/bin/app; dirname file; dirname /; basename /
### base64-round-trip
echo 'hello world' | base64; echo 'aGVsbG8gd29ybGQK' | base64 -d
### base64-file
printf 'binary\000data' > b; base64 b; base64 b | base64 -d | od -c | head -n 1
### md5-and-sha256
echo -n abc | md5sum; echo -n abc | sha256sum; printf 'x\n' > f; md5sum f; sha1sum f
### sha256-check
echo content > f; sha256sum f > f.sum; sha256sum -c f.sum; echo tampered > f; sha256sum -c f.sum; echo "rc=$?"
### od-forms
printf 'AB\n' | od -c; printf 'AB' | od -An -tx1; printf '\001\002' | od -b
### rev-and-nl-like
printf 'a\nb\n' | cat -n | sed 's/^ *//'
### tac-rev-fold-nl
printf '1\n2\n3\n' | tac; echo abc | rev; echo abcdefgh | fold -w 3; printf 'x\ny\n' | nl
### paste-and-join
printf '1\n2\n' > a; printf 'x\ny\n' > b; paste a b; paste -d, a b; paste -s a
### cmp-and-diff
printf 'a\nb\n' > x; printf 'a\nc\n' > y; cmp -s x x && echo same; cmp x y; echo "rc=$?"; diff x y; echo "rc=$?"
### printf-to-file-then-count
for i in 1 2 3; do printf 'line %d\n' $i; done > f; wc -l < f; tail -n 1 f
### printf-builtin-or-applet-names-its-errors
printf '%d\n' x; busybox printf '%d\n' y; env printf '%d\n' z; echo w | xargs printf '%d\n'; sh -c "printf '%d\n' v"; /bin/printf '%d\n' u; printf '%q' a; busybox printf '%q' b
