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
### awk-sum-columns
printf 'a 1 2\nb 3 4\n' | awk '{a+=$2; b+=$3} END {print a, b, a/NR}'
### awk-field-sep-and-nf
echo 'k1=v1;k2=v2;k3' | awk -F';' '{for(i=1;i<=NF;i++){split($i,p,"="); print i, p[1], (p[2]==""?"none":p[2])}}'
### awk-match-and-substr
echo 'version: 1.23.4-beta' | awk '{ if (match($0, /[0-9]+\.[0-9]+\.[0-9]+/)) print substr($0, RSTART, RLENGTH) }'
### awk-printf-and-gsub
echo 'a-b-c' | awk '{gsub(/-/, "+"); printf "%s|%5.2f|%d\n", $0, 3.14159, 42}'
### sed-capture-groups
echo 'name=alice age=30' | sed -E 's/name=([a-z]+) age=([0-9]+)/\2:\1/'
### sed-address-ranges
printf '1\n2\n3\n4\n5\n' | sed -n '2,4p'; printf 'a\nSTART\nb\nEND\nc\n' | sed -n '/START/,/END/p'
### sed-multiple-and-delete
printf 'keep\n#comment\n\nalso\n' | sed -e '/^#/d' -e '/^$/d' -e 's/^/> /'
### grep-variants
printf 'Error: x\nwarn: y\nERROR: z\n' > l; grep -i error l | wc -l; grep -v -i error l; grep -n warn l; grep -E '^(warn|Error)' l; grep -c '' l; grep -q nothing l || echo absent
### grep-o-and-w-busybox-counts-every-match
echo 'id=12 ids=34 id=56' | grep -o 'id=[0-9]*'; echo 'cat catalog cat' | grep -ow cat | wc -l
### sort-variants
printf '10\n9\n100\n' | sort; printf '10\n9\n100\n' | sort -n; printf 'b 2\na 10\nc 1\n' | sort -k2 -n; printf 'x\ny\nx\n' | sort | uniq -d; printf '3\n1\n2\n' | sort -r
### cut-variants
echo 'a:b:c:d' | cut -d: -f2,4; echo 'abcdef' | cut -c2-4; echo 'a b  c' | cut -d' ' -f3
### tr-variants
echo 'Hello World' | tr -s 'lo' ; echo 'a1b2c3' | tr -d '0-9'; echo 'abc' | tr 'abc' 'x'; echo 'a  b' | tr -s ' ' '\n'
### head-tail-variants
seq 10 > n; head -n 3 n | tr '\n' ,; echo; tail -n 2 n | tr '\n' ,; echo; tail -n +9 n | tr '\n' ,; echo; head -c 5 n | od -c | head -1
### wc-and-paste
printf 'a\nb\nc\n' | paste -sd, -; seq 4 | paste - - 
### base64-and-md5
echo -n hello | base64; echo aGVsbG8= | base64 -d; echo; echo -n hello | md5sum | cut -d' ' -f1; echo -n hello | sha256sum | cut -c1-16
### od-and-hexdump
printf 'AB\n' | od -An -tx1; printf 'AB' | hexdump -C | head -1
### xargs-with-replace
printf 'a\nb\n' | xargs -I{} echo "item-{}"; echo 'x y z' | xargs -n1 | wc -l
### find-exec-and-print
mkdir -p t/a t/b; touch t/a/1.log t/b/2.log t/b/3.txt; find t -name '*.log' | sort; find t -type f -name '*.txt' -exec basename {} \;; find t -type d | sort | wc -l
### date-arithmetic
now=1700000000; later=$((now + 3600)); date -u -d @$later +%H:%M; echo $(( (later - now) / 60 )) minutes
### printf-padding-table
for kv in a:1 bb:22 ccc:333; do printf '%-5s|%5s|\n' "${kv%%:*}" "${kv#*:}"; done
### expr-string-ops
expr substr hello 2 3; expr index hello l; expr 10 % 3; expr '(' 2 + 3 ')' '*' 4; expr abc = abc
### test-file-ops
touch f; mkdir d; ln -s f l; for t in -e -f -d -L -s -r -w; do for p in f d l none; do [ $t $p ] && printf 'y' || printf 'n'; done; echo " $t"; done
### let-and-arith-assign
let a=5+3 b=a*2; echo $a $b; let "c = b / 3"; echo $c; i=0; let i++; let i+=5; echo $i
### string-compare-sort
a=apple b=banana; [ "$a" \< "$b" ] && echo "$a first"; [ "$b" \> "$a" ] && echo "$b second"
### multiline-variable-loop
list="one
two
three"; for w in $list; do echo "w=$w"; done; echo "$list" | while read l; do echo "l=$l"; done | tail -1
### expr-colon-forms
expr 'xab' : 'a'; expr 'ab' : 'b*'; expr 'abc' : '\(x\)*'; echo "rc=$?"; expr 'abc' : '\(a\)\(b\)'; expr 'v1.2.3' : 'v\([0-9]*\)'; expr 'abc' : '.*'; expr match 'abc' 'a\(.\)'
### expr-caret-warning
expr abc : '^a'; echo "rc=$?"; expr abc : '^x'; echo "rc=$?"
### expr-or-and-nulls
expr "" \| ""; echo "rc=$?"; expr "" \| 0; expr 0 \| ""; echo "rc=$?"; expr a \& ""; expr "" \& a; expr 0 \| 0; expr 2 \| 3; expr 0 \& 1
### expr-string-compare
expr abc = abc; expr abc \< abd; expr 10 \< 9; expr 10 \< 9a; expr "" = ""; expr a != b
### expr-arith-wrap
expr 9223372036854775807 + 1; echo "rc=$?"; expr -5 / 2; expr -5 % 2; expr 5 % -2; expr 99999999999999999999 + 1; echo "rc=$?"
### expr-substr-index
expr substr hello 0 2; echo "rc=$?"; expr substr hello 2 0; echo "rc=$?"; expr substr hello 4 10; expr index abc ""; echo "rc=$?"; expr index "" a; echo "rc=$?"; expr length ""; echo "rc=$?"
### expr-keywords-as-strings
expr + length; expr length length; expr substr substr 1 3; expr \( 1 \); expr \( 1; echo "rc=$?"
### sort-k-char-positions-2
printf 'b2 x\na10 y\na2 z\n' | sort -k1.2n; printf 'x:b:2\ny:a:10\nz:a:2\n' | sort -t: -k2,2 -k3,3n; printf 'Ab\naB\nab\n' | sort -f -s
### sort-numeric-edge
printf -- '-1\n 2\n1e2\n0x10\n\n3\nabc\n' | sort -n; printf '10\n2\n1\n' | sort -rn | head -1
### sort-c-messages
printf 'a\nc\nb\n' | sort -c; echo "rc=$?"; printf 'a\nb\n' | sort -c; echo "rc=$?"; printf 'a\na\n' | sort -cu; echo "rc=$?"
### sort-b-and-key-blanks
printf '  b 1\na  2\n   c 0\n' | sort -b -k1,1; printf 'x  10\ny 9\n' | sort -k2n
### sort-uniq-keys
printf 'a 1\na 2\nb 1\n' | sort -u -k1,1; printf 'B\na\nA\nb\n' | sort; printf 'B\na\nA\nb\n' | sort -f
### sort-m-and-M
printf 'Feb\nJan\nDec\n' | sort -M; printf '1\n3\n' > s1; printf '2\n4\n' > s2; sort -m s1 s2 2>&1; echo "rc=$?"
### tr-forms
echo 'hello' | tr 'a-y' 'b-z'; echo 'aabbcc' | tr -s 'a-c'; echo 'a1b2' | tr -d '0-9'; echo 'abc' | tr -c 'a' 'x'; echo 'A B' | tr '[:upper:] ' '[:lower:]_'; printf 'a\nb\n' | tr '\n' ','; echo
### tr-errors
tr; echo "rc=$?"; echo x | tr 'a'; echo "rc=$?"; echo abc | tr -d; echo "rc=$?"
### cut-more
echo 'a b  c' | cut -d' ' -f3; printf 'αβγ\n' | cut -c2 | od -c | head -1; echo 'abcdef' | cut -b3-; echo '1,2,3' | cut -d, -f2- ; echo 'x' | cut -f1 -d:
### cut-overlap-and-order
echo 'abcdef' | cut -c4,1-2,2-3; echo 'a:b:c:d' | cut -d: -f3,1
### wc-edge
printf '' | wc; printf 'no newline' | wc -l; printf 'a\n\n' | wc -w; printf 'tab\there\n' | wc -L; wc -l /dev/null
### head-tail-basic
seq 10 | head -3; seq 10 | tail -2; seq 10 | tail -n +9; seq 5 | head -n -2; printf 'abc' | tail -c 2; echo
### paste-and-nl
printf '1\n2\n' > p1; printf 'a\nb\n' > p2; paste p1 p2; paste -d, p1 p2; paste -s p1; printf 'x\n\ny\n' | nl; printf 'x\ny\n' | nl -ba -w3 -s:
### rev-tac-fold
echo abc | rev; printf '1\n2\n3\n' | tac; echo 'abcdefghij' | fold -w 4; echo 'aa bb cc dd' | fold -s -w 5
### tee-append
echo a | tee -a t.log >/dev/null; echo b | tee -a t.log; cat t.log
### base64-and-sums
echo -n hi | base64; echo aGk= | base64 -d; echo; echo -n abc | sha256sum; echo -n abc | md5sum | cut -c1-8
### cmp-diff
printf 'a\nb\n' > c1; printf 'a\nc\n' > c2; cmp c1 c2; echo "rc=$?"; cmp -s c1 c1; echo "rc=$?"; diff c1 c2 | tail -2; echo "rc=$?"
### xargs-forms
printf 'a b\nc\n' | xargs echo; printf 'a b c d\n' | xargs -n2 echo; printf 'x\ny\n' | xargs -I{} echo '<{}>'; echo | xargs -r echo none; echo "rc=$?"; printf 'a\0b\0' | xargs -0 echo
### seq-more
seq 1 3 10; seq 3 -1 1; seq -s: 3; seq 0.1 0.2 0.9; seq 10 2; echo "rc=$?"; seq -w 98 101
### basename-more
basename /usr/lib/libc.so.6 .6; basename -s .sh /x/a.sh /y/b.sh 2>&1; basename -a /x/a /y/b; basename a.sh a.sh; basename /a/b/
### grep-forms-2
printf 'a1\nb2\nA3\n' > g; grep -i a g; grep -v a g; grep -c . g; grep -n 2 g; grep -l a g; grep -L z g; grep -q b g && echo q; grep -w b2 g; grep -x a1 g; grep -o '[0-9]' g | tr '\n' ,; echo
### grep-e-f-and-E
printf 'foo\nbar\nbaz\n' > g; grep -e foo -e baz g; printf 'ba.\n' > pats; grep -f pats g; grep -E 'fo+|ba[rz]$' g; grep -F 'a.' g; echo "rc=$?"
### grep-context
seq 1 9 > s; grep -A1 5 s; echo --; grep -B2 5 s; echo --; grep -C1 -e 3 -e 7 s
### grep-multiple-files-and-h
printf 'x\n' > g1; printf 'x\ny\n' > g2; grep x g1 g2; grep -h x g1 g2; grep -c x g1 g2; grep y g1 nosuch g2; echo "rc=$?"; grep -s y nosuch; echo "rc=$?"
### grep-recursive
mkdir -p r/s; echo hit > r/a; echo hit > r/s/b; echo miss > r/c; grep -r hit r | sort; grep -rl hit r | sort
### grep-regex-edge
printf 'a.b\naxb\n(x)\n' > g; grep 'a.b' g; grep 'a\.b' g; grep '(x)' g; grep -E '\(x\)' g; grep -E 'a{1}x' g; grep '^$' g; echo "rc=$?"; grep '' g | wc -l
### grep-m-and-exit-codes
seq 1 5 > s; grep -m2 . s; grep nomatch s; echo "rc=$?"; grep '[' s; echo "rc=$?"
### tr-classes-2
echo 'Hello World 123' | tr -cd '[:alpha:]'; echo; echo 'aaa   bbb' | tr -s '[:space:]'; echo 'abc' | tr '[:lower:]' '[:upper:]'; echo 'a-b' | tr -- '-' '_'; echo 'abc' | tr 'a-c' 'x'
### head-tail-more
seq 20 > s; head -c 5 s | od -c | head -1; tail -c 3 s | od -c | head -1; head -n 2 s s; tail -n 1 -q s s; head -5 s | tail -1
### uniq-w-s-and-sort-t
printf 'abc1\nabc2\nabd\n' | uniq -w3; printf 'x-a\ny-a\n' | uniq -s2; printf 'a,b\n' | sort -t ',,' 2>&1; echo "rc=$?"
### seq-negative-decimals
seq -1 -0.5 -3; seq 1.5 3; seq -w -3 1; seq 5 -1.5 1
### wc-L-and-files-total
printf 'abc\nde\n' > w1; printf 'xyzzy\n' > w2; wc -L w1 w2; wc -lc w1; wc -m w2
### cut-fields-past-the-end
for f in 1,2,5 1,5- 2,5 1,2,5,9- 3 2- 1-3 5,1; do echo 'a b' | cut -d' ' -f$f | od -c | head -1; done; echo 'a b c' | cut -d' ' -f2,5 | od -c | head -1
### cut-fields-forms-3
printf 'a:b:c\nnone\n::\n:x\n' > cf; cut -d: -f2 cf; cut -d: -f1,3 cf; cut -s -d: -f2- cf; cut -d: -f3- cf; cut -d: -D -f3,1 cf; cut -F1 cf 2>&1 | head -2
### cut-F-regex
printf 'a  b   c\n  lead x\n' | cut -F2; printf 'a  b   c\n' | cut -F1,3; printf 'a1b22c\n' | cut -d'[0-9]+' -F2 2>&1; printf 'a,b\n' | cut -F2 -d, 
### xargs-forms-3
printf 'a\nb\nc\n' | xargs -n1 sh -c 'echo "[$0]"'; printf 'a b\n' | xargs -I X echo X-X; printf '1 2 3\n' | xargs -n 2; printf 'x\nSTOP\ny\n' | xargs -E STOP echo; printf "'a b' \"c d\" e\\ f\n" | xargs -n1 echo
### xargs-exit-codes
echo a | xargs false; echo "rc=$?"; echo a | xargs sh -c 'exit 255'; echo "rc=$?"; echo a | xargs sh -c 'kill -TERM $$'; echo "rc=$?"
### xargs-t-and-empty
printf 'a\n' | xargs -t echo 2>&1; printf '' | xargs echo "[empty]"; printf '\n\n' | xargs echo x
### xargs-s-and-x
printf 'aaaa bbbb cccc\n' | xargs -s 15 echo; printf 'aaaaaaaaaaaaaaaaaaaa\n' | xargs -s 10 -x echo 2>&1; echo "rc=$?"
### xargs-size-limits
printf 'aaaaaaaaaaaaaaaaaaaa b\n' | xargs -s 10 echo; echo "rc=$?"; printf 'a b c d e\n' | xargs -s 9 echo; printf 'a b\n' | xargs -s 3 echo; echo "rc=$?"; printf 'a b c\n' | xargs -n 2 -s 9 echo; printf 'x\n' | xargs -s abc echo; echo "rc=$?"; printf 'b aaaaaaaaaaaaaaaaaaaa\n' | xargs -s 10 echo; echo "rc=$?"
### xargs-eof-strings
printf 'x STOP y\n' | xargs -e echo; printf 'x STOP y\n' | xargs -eSTOP echo; printf 'x\nSTOP\ny\n' | xargs -E STOP echo; printf 'STOP\n' | xargs -E STOP echo none
### xargs-child-exit-codes
echo a | xargs sh -c 'exit 130'; echo "rc=$?"; echo a | xargs sh -c 'exit 3'; echo "rc=$?"
