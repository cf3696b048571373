# sed as scripts in pods, init containers and probes use it: s and its flags, addresses and ranges,
# the hold space, N/D/P, labels, -i, and busybox's ways with empty matches and missing files.
### s-flags
printf 'aaa\nbab\n' | sed 's/a/X/2'; printf 'aaa\n' | sed -n 's/a/X/gp'; printf 'Hello\n' | sed 's/hello/hi/I'; printf 'aaaa\n' | sed 's/a/X/3g'
### s-amp-backref
echo 'key=value' | sed 's/\(.*\)=\(.*\)/\2=\1 [&]/'; echo 'abc' | sed 's/b/\&/'; echo 'abc' | sed -E 's/(a)(b)/\2\1/'
### s-newline-in-replacement
echo 'a,b' | sed 's/,/\n/'; echo 'a,b' | sed 's/,/\
/'
### y-command
echo 'hello' | sed 'y/abcdefghij/ABCDEFGHIJ/'; echo 'a/b' | sed 'y,/,|,'
### a-i-c
printf '1\n2\n3\n' | sed '2a\
after'; printf '1\n2\n' | sed '1i before'; printf '1\n2\n3\n' | sed '2c\changed'; printf '1\n2\n3\n' | sed '$a end'
### a-multi-line
printf '1\n2\n' | sed '1a\
line one\
line two'
### ranges-regex
printf 'a\nstart\nb\nend\nc\n' | sed -n '/start/,/end/p'; printf 'a\nstart\nb\nend\nc\n' | sed '/start/,/end/d'
### range-number-regex
printf '1\n2\n3\n4\n5\n' | sed -n '2,/4/p'; printf '1\n2\n3\n' | sed -n '2,1p'; printf '1\n2\n3\n4\n' | sed -n '/2/,+1p'
### dollar-address
printf 'a\nb\nc\n' | sed -n '$p'; printf 'a\nb\n' | sed '$!d'; printf 'a\nb\n' > f1; printf 'c\nd\n' > f2; sed -n '$p' f1 f2
### n-e-multiple
printf 'a\nb\n' | sed -n -e '1p' -e '2p'; printf 'abc\n' | sed -e 's/a/1/' -e 's/b/2/'
### in-place
printf 'x=1\ny=2\n' > cfg; sed -i 's/1/10/' cfg; cat cfg; sed -i.bak 's/y/Y/' cfg; cat cfg cfg.bak
### extended-regex
echo 'aaa bbb' | sed -E 's/(a+) (b+)/\2 \1/'; echo 'abab' | sed -r 's/(ab)+/X/'; echo 'a+b' | sed 's/a+b/Y/'; echo 'aab' | sed 's/a\+b/Z/'
### quit
printf '1\n2\n3\n' | sed 2q; printf '1\n2\n3\n' | sed -n '2{p;q}'; printf '1\n2\n3\n' | sed '/2/q'
### hold-space
printf 'a\nb\nc\n' | sed -n '1!G;h;$p'; printf 'a\nb\n' | sed 'x'; printf 'a\nb\n' | sed '1h;2{H;g}'
### n-d-p
printf '1\n2\n3\n4\n' | sed 'N;s/\n/+/'; printf '1\n2\n3\n' | sed 'N;s/\n/+/'; printf 'a\nb\nc\n' | sed '$!N;P;D'
### join-lines
printf 'a\nb\nc\n' | sed ':a;N;$!ba;s/\n/,/g'
### labels-t
printf 'aaa\n' | sed ':x;s/a/b/;tx'; printf 'ab\ncd\n' | sed 's/a/A/;t;s/$/ no/'; printf 'a\n' | sed -n 's/a/b/;T;p'
### empty-regex
printf 'foo bar\n' | sed '/foo/s//X/'; printf 'abc\n' | sed 's/b/[&]/;s//again/'
### line-number
printf 'a\nb\n' | sed -n '$='; printf 'a\nb\n' | sed '='
### delete-blank-and-comments
printf '# c\n\nx=1\n  # d\ny=2\n' | sed -e '/^[[:space:]]*#/d' -e '/^$/d'
### trim
printf '  a b  \n' | sed 's/^[ \t]*//;s/[ \t]*$//' | od -c | head -1
### escape-special
echo 'a/b/c' | sed 's/\//|/g'; echo 'a.b.c' | sed 's/\./-/g'; echo 'a*b' | sed 's/\*/x/'; echo 'path' | sed 's|path|/new/path|'
### print-and-w
printf 'a\nb\n' | sed -n 'w out.txt'; cat out.txt; printf 'a\nb\n' | sed -n '/a/w sel.txt'; cat sel.txt
### r-command
echo inserted > ins; printf '1\n2\n' | sed '1r ins'
### sed-no-newline-end
printf 'a\nb' | sed 's/b/c/' | od -c | head -2
### sed-regex-classes
echo 'abc123DEF' | sed 's/[[:alpha:]]//g'; echo 'a1b2' | sed 's/[0-9]/<&>/g'; echo 'x y' | sed 's/[[:blank:]]/_/'
### sed-backref-in-regex
echo 'abab' | sed -n '/\(ab\)\1/p'; echo 'aa bb cd' | sed -E 's/(.)\1/D/g'
### sed-star-and-anchors
echo 'aaa' | sed 's/a*/X/g'; echo 'baaac' | sed 's/a*/X/g'; echo 'abc' | sed 's/x*/-/g'; echo 'abc' | sed 's/$/!/;s/^/>/'
### sed-c-range
printf '1\n2\n3\n4\n' | sed '2,3c\
replaced'
### sed-i-then-print
printf 'a\n' | sed -n 'i\
ins
p'
### sed-n-with-p-flag-and-equals
printf 'x1\ny\nx2\n' | sed -n '/x/{=;p}'
### sed-braces-nested
printf '1\n2\n3\n4\n' | sed -n '2,4{/3/!p}'
### sed-D-loop
printf 'a\n\n\nb\n\n\nc\n' | sed '/^$/N;/\n$/D'
### sed-env-template
NAME=web PORT=80 sh -c 'echo "server $NAME:$PORT" | sed "s/web/${NAME}-0/; s/:80/:${PORT}80/"'
### sed-s-special-delims
echo 'a:b' | sed 's:\::-:'; echo 'aXb' | sed 'sXaXcX'
### sed-case-conv
echo 'hello world' | sed 's/\w\+/[&]/g'; echo 'hello' | sed 's/\(.\)/\U\1/' 
### sed-number-and-g
echo 'a a a a' | sed 's/a/b/2g'
### sed-semicolon-after-brace
printf 'a\nb\n' | sed -n '/a/{p;p};/b/p'
### sed-print-mode-l
printf 'a\tb\n' | sed -n 'l'
### sed-Q
printf '1\n2\n' | sed '1Q'; echo "rc=$?"
### sed-s-m-flag
printf 'a\nb\n' | sed 'N;s/^b/B/M'; echo "rc=$?"
### s-empty-matches
echo 'aaa' | sed 's/a*/X/g'; echo 'baaac' | sed 's/a*/X/g'; echo 'abc' | sed 's/x*/-/g'; echo 'cccd' | sed 's/c*/R/g'; echo "" | sed 's/x*/-/g'
### s-nth-with-empty
echo 'cccd' | sed 's/c*/R/2'; echo 'cccd' | sed 's/c*/R/3'; echo 'baaac' | sed 's/a*/X/2'; echo 'baaac' | sed 's/a*/X/3'; echo 'hello' | sed 's/x*/-/2'
### s-flag-numbers
echo aaa | sed 's/a/b/0'; echo aaa | sed 's/a/b/g2'; echo aaa | sed 's/a/b/2g'; echo aaa | sed 's/^a/b/2'; echo aaa | sed 's/a/b/ 2'
### s-word-boundaries-g
echo 'aaa' | sed 's/\<a/X/g'; echo 'aaa bab' | sed 's/\ba/X/g'; echo 'abcabc' | sed 's/^a/X/g'; echo 'foo bar' | sed 's/\>/!/g'; echo 'one two' | sed 's/\b/|/g'
### s-anchors-g-multiline
printf 'a\nb\n' | sed 'N;s/^/>/g'; printf 'a\nb\n' | sed 'N;s/$/</g'; echo ab | sed 's/b*$/X/g'; echo ab | sed 's/$/X/g'
### s-t-after-skipped-empty
echo 'aaa' | sed -n 's/a*/X/2p;t;s/^/none:/p'
### s-alternation-g
echo abcd | sed 's/\(b\|c\)/[\1]/g'; echo 'a-b_c' | sed 's/[-_]/ /g'
### sed-letters-run-together
for s in 'pp' 'p x' 'p 5' 'p;l' 'dp' 'hx' 'l' '$l' '1!l;p' 'l 5' 'G;l'; do printf 'a\n' | sed -n "$s"; echo "rc=$?"; done 2>&1
### sed-commands-without-separator
printf 'a\nb\n' | sed -n 'pp'; printf 'a\nb\n' | sed 'y/ab/AB/p'; printf 'a\nb\n' | sed -n '1{p}p'; printf 'a\n' | sed 'hGx'; printf 'a\n' | sed -n 'pk'; echo "rc=$?"; printf 'a\n' | sed -n '=p'; printf 'a\n' | sed 's/a/b/ p'
### sed-missing-files
printf 'x\n' > hx; sed p /nonexist hx; echo "rc=$?"; sed -i 's/x/y/' /nonexist hx; echo "rc=$?"; cat hx; mkdir -p dd; sed p dd; echo "rc=$?"; sed -f /nonexist hx; echo "rc=$?"
### sed-missing-last-newline-prints
for s in '$p' 'p' 'p;p' 's/a/b/p' 'P' '=' 'n' '$!N;P;D' 'q' 'i\
x' 'a\
y'; do printf 'a' | sed -n "$s" | od -c | head -1; printf 'a' | sed "$s" | od -c | head -1; done; printf 'a\nb' | sed '$!d' | od -c | head -1
### paste-s-empty-inputs
printf '' | paste -s | od -c; printf '' > pe1; printf 'x\ny\n' > px1; paste -s pe1 px1; paste pe1 px1; echo -n | paste -s -d,; echo end
### expr-operators-as-operands-2
expr - + 1; echo "rc=$?"; expr + : +; echo "rc=$?"; expr = = =; echo "rc=$?"; expr quote length; expr quote; echo "rc=$?"; expr - \< x; expr '*' : '.*'; expr length; echo "rc=$?"; expr \( \); echo "rc=$?"
### sed-inplace-multi
printf 'a\n' > i1; printf 'a\nb\n' > i2; sed -i 's/a/A/;$s/$/!/' i1 i2; cat i1 i2
### sed-long-options
printf 'x\n' | sed --expression='s/x/y/' ; printf 'x\n' | sed --quiet -e p; printf 'ab\n' | sed --regexp-extended 's/(a)(b)/\2\1/'
### sed-append-insert-multi
printf '1\n2\n' | sed -e '1a A' -e '1a B' -e '2i C'; printf '1\n2\n' | sed '$a\'; echo "rc=$?"
### sed-change-negated-range
printf '1\n2\n3\n4\n' | sed '2,3!c\X'; printf '1\n2\n3\n' | sed '/2/!c\Y'
### sed-hold-tricks
printf 'a\nb\nc\n' | sed -n 'H;${x;s/\n/,/g;s/^,//;p}'; printf 'k1\nv1\nk2\nv2\n' | sed 'N;s/\n/=/'
### sed-address-zero-and-step
printf '1\n2\n3\n' | sed -n '0,/2/p' 2>&1; echo "rc=$?"; printf '1\n2\n3\n4\n' | sed -n '1~2p' 2>&1; echo "rc=$?"
### sed-regex-ere-specials
echo 'a+b?c|d' | sed -E 's/\+|\?/_/g'; echo 'aaa' | sed -E 's/a{2}/X/'; echo 'abc' | sed 's/\(b\)*c/[\1]/'; echo 'tab	x' | sed 's/\t/<T>/'
### sed-y-escapes-and-errors
echo 'a b' | sed 'y/ /\n/'; echo abc | sed 'y/ab/x/' 2>&1; echo "rc=$?"; echo abc | sed 's/a/b/q' 2>&1; echo "rc=$?"
### sed-empty-regex-reuse-address
printf 'foo\nbar\n' | sed -n '/foo/{s//X/;p}'; printf 'foo\n' | sed 's//X/' 2>&1; echo "rc=$?"
### sed-quit-exit-code-and-append
printf '1\n2\n' | sed '1{a after
q}'; printf '1\n2\n' | sed -n '$='
