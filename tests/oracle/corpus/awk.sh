# awk as a language, as scripts in pods use it.
### print-fields
echo 'a b c' | awk '{print $2}'; echo 'a b c' | awk '{print $NF, NF}'
### field-separator
echo 'root:x:0:0' | awk -F: '{print $1 "-" $3}'; awk -F: '$3 == 0 {print $1}' /etc/passwd
### begin-end-sum
printf '1\n2\n3\n' | awk 'BEGIN {s=0} {s+=$1} END {print "sum", s}'
### nr-and-patterns
printf 'a\nb\nc\n' | awk 'NR==2'; printf 'a\nb\nc\n' | awk 'NR>1 {print NR": "$0}'
### regex-pattern
printf 'error x\nok y\nerror z\n' | awk '/^error/ {n++} END {print n}'
### printf-in-awk
echo '3.14159 42' | awk '{printf "%.2f|%5d|%s\n", $1, $2, "s"}'
### variables-v
awk -v name=world 'BEGIN {print "hello " name}'
### arrays-and-for-in-sorted
printf 'a\nb\na\nc\na\n' | awk '{c[$1]++} END {for (k in c) print k, c[k]}' | sort
### string-functions
echo 'Hello World' | awk '{print length($0), toupper($1), tolower($2), substr($0, 2, 3), index($0, "W")}'
### split-and-gsub
echo 'a,b,c' | awk '{n = split($0, p, ","); print n, p[3]; gsub(/,/, ";"); print}'
### sub-and-match
echo 'key=value' | awk '{sub(/=.*/, ""); print}'; echo 'abc123' | awk '{if (match($0, /[0-9]+/)) print RSTART, RLENGTH}'
### ofs-and-rebuild
echo 'a b c' | awk 'BEGIN {OFS="-"} {$1=$1; print}'; echo 'a b c' | awk '{$2="X"; print}'
### if-else-and-loops
awk 'BEGIN {for (i = 1; i <= 3; i++) {if (i % 2) print i, "odd"; else print i, "even"}}'
### while-and-next
printf '1\n2\n3\n4\n' | awk '$1 == 2 {next} {print}'
### arithmetic-and-int
awk 'BEGIN {print 7/2, int(7/2), 10%3, -3 % 2, 1e3, 0.1 + 0.2}'
### string-number-compare
awk 'BEGIN {print ("10" < "9"), (10 < 9), ("a" < "b")}'
### getline-and-exit-code
awk 'BEGIN {exit 3}'; echo "rc=$?"
### multiple-files-fnr
printf 'a\nb\n' > f1; printf 'c\n' > f2; awk '{print FILENAME, FNR, NR}' f1 f2
### awk-program-file
printf '{ print "line:", $0 }\n' > prog.awk; echo x | awk -f prog.awk
### concatenation-and-uninitialised
awk 'BEGIN {x = "a" "b" 1 + 2; print x; print y + 0, "[" y "]"}'
### print-redirect-in-awk
echo hi | awk '{print > "out.txt"}'; cat out.txt
### fs-regex-and-tab
printf 'a\tb c\n' | awk -F'\t' '{print $2}'; echo 'a1b2c' | awk -F'[0-9]' '{print $3}'
### range-pattern
seq 1 10 | awk '/3/,/5/'
### syntax-error-in-awk !stderr
awk 'BEGIN {print (}'; echo "rc=$?"
### sprintf-and-formats
awk 'BEGIN {s = sprintf("%03d-%s", 7, "x"); print s; printf "%c%c\n", 65, "BC"}'
### df-like-column-sum
printf 'Filesystem 1K Used\n/dev/a 100 40\n/dev/b 200 60\n' | awk 'NR > 1 {u += $3} END {print u}'
### printf-widths
awk 'BEGIN {printf "[%5.2f][%-10s][%10s][%c][%c][%5s][%.3s]\n", 3.14159, "ab", "cd", 66, "xyz", "abcdefg", "abcdef"}'
### printf-ints
awk 'BEGIN {printf "%d %i %o %x %X %u %e %E %g %G\n", -3.9, 42, 8, 255, 255, 7, 12345.678, 0.00012, 1e10, 0.0001}'
### printf-pct-and-missing
awk 'BEGIN {printf "%s %s %d%%\n", "a"}'
### printf-star
awk 'BEGIN {printf "[%*d][%-*s][%.*f]\n", 5, 42, 4, "x", 2, 3.14159}'
### ofmt-convfmt
awk 'BEGIN {OFMT="%.2f"; CONVFMT="%.3f"; x = 3.14159; print x; y = x ""; print y; print 1e6, 1e16, 100000000000000000000, 0.1}'
### getline-var-file
printf 'l1\nl2\nl3\n' > f; awk 'BEGIN {while ((getline line < "f") > 0) n++; print n, line; close("f"); getline < "f"; print $0, NR}'
### getline-cmd
awk 'BEGIN {"echo hello; echo world" | getline x; print x; "echo hello; echo world" | getline y; print y}'
### getline-plain
printf 'a\nb\nc\nd\n' | awk 'NR==1 {getline; print "got", $0, NR} {print NR, $0}'
### getline-missing-file
awk 'BEGIN {r = (getline x < "/nonexistent"); print r}'
### split-regex-default
awk 'BEGIN {n = split("  a  b   c ", arr); print n, arr[1], arr[3]; n = split("a1b22c", b, /[0-9]+/); print n, b[2], b[3]; n = split("", c); print n}'
### split-single-char-sep
awk 'BEGIN {n = split("a.b.c", p, "."); print n, p[1]; n = split("a|b", q, "|"); print n, q[2]}'
### gsub-ampersand
echo 'hello world' | awk '{gsub(/o/, "[&]"); print}'; echo 'hello' | awk '{gsub(/l/, "\\&"); print}'; echo 'abc' | awk '{n = gsub(/x/, "y"); print n, $0}'
### sub-on-field
echo 'a b c' | awk '{sub(/b/, "BB", $2); print; print NF}'
### gsub-empty-match
echo 'abc' | awk '{gsub(//, "-"); print}'; echo 'abc' | awk '{gsub(/x*/, "-"); print}'
### gsub-anchors
echo 'aaa' | awk '{gsub(/^a/, "b"); print}'; echo 'a.b.c' | awk '{gsub(".", "x"); print}'; echo 'a.b.c' | awk '{gsub(/\./, "x"); print}'
### substr-edges
awk 'BEGIN {s = "hello"; print substr(s, 0), substr(s, -1, 3), substr(s, 2), substr(s, 10), "[" substr(s, 3, 0) "]", substr(s, 1.5, 2.3), substr(s, 2, 100)}'
### v-escapes
awk -v s='a\tb\\n' 'BEGIN {print s}'; awk -v n=010 'BEGIN {print n + 1}'
### environ
FOO=bar awk 'BEGIN {print ENVIRON["FOO"], ENVIRON["HOME"], length(ENVIRON["NOPE"])}'
### nf-modify
echo 'a b c d' | awk '{NF = 2; print; print NF}'; echo 'a b' | awk '{$5 = "e"; print; print NF}'
### fs-single-space-vs-bracket
echo ' a  b ' | awk -F' ' '{print NF}'; echo ' a  b ' | awk -F'[ ]' '{print NF}'
### rs-paragraph
printf 'a\nb\n\n\nc\nd\n' | awk 'BEGIN {RS=""} {print NR": "$1"|"$2; print NF}'
### rs-char
printf 'a;b;c' | awk 'BEGIN {RS=";"} {print NR, $0}'
### uninit-compare
awk 'BEGIN {if (x == 0) print "zero"; if (x == "") print "empty"; print length(x)}'
### string-vs-number
echo '10 9' | awk '{print ($1 > $2), ($1"" > $2""), ("abc" < 1), (2 < "10")}'
### numeric-strings-fields
printf '1e2 100\n0x10 16\n 5  5\n' | awk '{print ($1 == $2)}'
### dynamic-regex
echo 'foo123' | awk '{re = "[0-9]+"; if ($0 ~ re) print "yes"; sub(re, "N"); print}'; echo 'a.b' | awk '{print ($0 ~ "a.b"), ($0 ~ "^a\\.b$")}'
### exit-in-end-and-code
echo x | awk '{exit 2} END {print "end"}'; echo "rc=$?"; awk 'BEGIN {exit} END {print "e"}'; echo "rc=$?"
### print-append-and-close
awk 'BEGIN {print "one" > "o.txt"; print "two" > "o.txt"; close("o.txt"); print "three" >> "o.txt"}'; cat o.txt
### print-pipe
awk 'BEGIN {print "b" | "sort"; print "a" | "sort"; close("sort"); print "done"}'
### system-and-rc
awk 'BEGIN {r = system("exit 3"); print "r=" r}'; awk 'BEGIN {system("echo in system")}'
### in-delete
awk 'BEGIN {a["x"]=1; a["y"]=2; delete a["x"]; print ("x" in a), ("y" in a); delete a; print length(a)}'
### multidim
awk 'BEGIN {a[1,2] = 3; for (k in a) {split(k, p, SUBSEP); print p[1], p[2]}; print ((1,2) in a)}'
### printf-c-number-zero
awk 'BEGIN {printf "%c", 256+65; printf "|%c|\n", ""}' | od -c | head -2
### regex-classes
echo 'ab12 CD' | awk '{gsub(/[[:digit:]]/, "#"); gsub(/[[:upper:]]+/, "U"); print}'
### tolower-num
awk 'BEGIN {print toupper(123), tolower("ÀB")}'
### index-match-rlength
awk 'BEGIN {print index("abc", ""), index("", "a"); print match("xxabc", /z/), RSTART, RLENGTH}'
### regex-match-op-precedence
echo 'abc' | awk '{print $0 ~ /b/ ? "m" : "n"; print !/z/}'
### uninit-var-in-output
awk 'BEGIN {printf "%d %s|\n", u, u}'
### assign-ops
awk 'BEGIN {x = 10; x += 5; x -= 3; x *= 2; x /= 4; x %= 4; print x; y = "3x"; print y + 1; print -"4", +"5a"}'
### number-formats-print
awk 'BEGIN {print 1.0, 1.50, 123456789, 1234567890123, 0.000001, 3e-7, 17/7}'
### nr-assign
printf 'a\nb\nc\n' | awk 'NR==2 {NR=10} {print NR}'
### field-sep-change-midway
printf 'a:b c\nd:e f\n' | awk '{FS=":"; print $1}'
### output-ofs-ors
printf 'a b\nc d\n' | awk 'BEGIN {OFS="-"; ORS="|"} {print $1, $2} END {printf "\n"}'
### printf-no-args-escape
awk 'BEGIN {printf "a\tb\\c\"d\n"; printf("%s\n", "paren")}'
### regex-braces
echo 'aaa' | awk '/a{3}/ {print "interval"}'; echo 'a{3}' | awk '/a\{3\}/ {print "literal"}'
### getline-updates-nf
echo 'x' | awk '{ "echo a b c" | getline; print NF, $2 }'
### division-by-zero !stderr
awk 'BEGIN {print 1/0}'; echo "rc=$?"
### unknown-function !stderr
awk 'BEGIN {foo()}'; echo "rc=$?"
### awk-missing-file
awk '{print}' /nonexistent; echo "rc=$?"
### awk-no-program
awk; echo "rc=$?"
### substr-nonint
awk 'BEGIN {print substr("abcdef", 2.5), substr("abcdef", 1, 2.5), substr("abcdef", -1)}'
### while-do-break
awk 'BEGIN {i = 0; do { i++; if (i == 3) continue; if (i > 5) break; printf "%d ", i } while (1); print ""}'
### function-recursion
awk 'function f(n) {return n <= 1 ? 1 : n * f(n - 1)} BEGIN {print f(10), f(20)}'
### function-local-array
awk 'function fill(a, n,  i) {for (i = 1; i <= n; i++) a[i] = i * i} BEGIN {fill(sq, 4); print sq[3], length(sq)}'
### csv-like
printf 'name,age\nbob,30\nann,25\n' | awk -F, 'NR > 1 {sum += $2; names = names sep $1; sep = ";"} END {print names, sum / (NR - 1)}'
### key-value-config
printf 'a = 1\n# c\nb=2\n\n' | awk -F' *= *' '!/^#/ && NF == 2 {print $1 "=>" $2}'
### status-line-parse
echo 'HTTP/1.1 200 OK' | awk '{exit ($2 == 200 ? 0 : 1)}'; echo "rc=$?"
### sprintf-nul
awk 'BEGIN {x = sprintf("a%cb", 0); print length(x); y = sprintf("a%cb", ""); print length(y); printf "%s|\n", x}' | od -c
### printf-d-big
awk 'BEGIN {printf "%d %d %x %u\n", 1099511627776, -1099511627776, -1, -1}'
### length-concat
echo 'abcd' | awk '{print length $0}'
### length-forms
echo 'abcd' | awk '{print length, length(), length($0) + 1; x = length; print x}'
### incr-field-post
echo '3 4' | awk '{$1++; print}'
### incr-field-pre
echo '3 4' | awk '{++$2; print}'
### incr-field-post2
echo '3 4' | awk '{x = $1++; print x, $1}'
### incr-var
echo '3 4' | awk '{i++; ++i; print i}'
### length-bare-forms
for p in 'length' 'length {print "y"}' '{print a[length]}' '{print length | "cat"}' '{print length >= 2}' '{print length-1, length *2}' '{print length length}' '{print length substr($0,1,1)}' '{print x ? length : 0}' 'length > 1' '{print length ~ 3}' '{print length !x}' '{print length+1}' '{print length  ;}' '{ print length() length }' '{print (length)}' '{print length $0}' '{print length 1}' '{print length " x"}'; do echo abc | awk "$p"; echo "rc=$?"; done 2>&1
### incr-after-number
for p in '{$1++; print}' '{print 1++}' '{print 1 ++x}' '{print $1--}' '{$NF++; print}' '{$(1)++; print}' '{x = $2++; print x, $0}' '{print 1--1}'; do echo '3 4' | awk "$p"; echo "rc=$?"; done 2>&1
### awk-numeric-output
awk 'BEGIN {print 0.1+0.2, 1e6, 1e7, 123456789012, 2147483648, -0, 0.000001234, 1/7*7, 3.0, "3.0"+0, 1e-5}'
### awk-convfmt-in-concat-and-index
awk 'BEGIN {x = 0.1; a[x] = 1; for (k in a) print k; CONVFMT = "%.2g"; y = 3.14159 ""; print y; z[3.14159]; for (k in z) print k}'
### awk-empty-fields
echo 'a,,c,' | awk -F, '{print NF; for (i = 1; i <= NF; i++) printf "[%s]", $i; print ""}'
### awk-dollar0-assign
echo 'a b c' | awk '{$0 = "x y"; print NF, $2; NF = 0; print "[" $0 "]"; $3 = "z"; print; print NF}'
### awk-cmdline-assign
printf 'l1\n' > f1; printf 'l2\n' > f2; awk '{print v, $0}' v=1 f1 v=2 f2; awk 'END {print v}' v=9 /dev/null
### awk-argv
awk 'BEGIN {for (i = 0; i < ARGC; i++) print i, ARGV[i]; ARGV[1] = ""} {print}' nosuch /dev/null; echo "rc=$?"
### awk-getline-forms-2
printf 'a\nb\nc\n' > in; awk 'BEGIN {while ((getline l < "in") > 0) n++; print n; print (getline l < "nosuch")} END {print NR}' /dev/null; echo 'x y' | awk '{getline z; print "[" z "]", $0, NR}'
### awk-cmd-getline-loop
awk 'BEGIN {cmd = "printf \"3\\n1\\n2\\n\" | sort"; while ((cmd | getline v) > 0) s = s v; close(cmd); print s}'
### awk-print-stderr-and-close
awk 'BEGIN {print "to err" > "/dev/stderr"; print "out"; r = close("/dev/stderr"); print "r=" r; print close("never-opened")}'
### awk-rs-regex-and-multi
printf 'a1b22c' | awk 'BEGIN {RS = "[0-9]+"} {print NR ": " $0}'; printf 'a\n\nb\n\n\n' | awk 'BEGIN {RS = ""} END {print NR}'
### awk-regex-special-in-split
awk 'BEGIN {n = split("a.b|c", p, "|"); print n, p[1]; n = split("a+b", q, "+"); print n; n = split("a b\tc", r, " "); print n, r[3]}'
### awk-string-functions-2
awk 'BEGIN {s = "foo bar foo"; print index(s, "bar"), match(s, /o+/), RSTART, RLENGTH; n = gsub(/foo/, "[&&]", s); print n, s; t = "aaa"; sub(/a/, "\\\\&", t); print t}'
### awk-printf-edge-2
awk 'BEGIN {printf "%5.1s|%-5c|%05.1f|%+.2e|%x|%o|%%|%c\n", "abc", "q", 3.14159, 12345, 255, 8, 256}'
### awk-uninit-and-compare-2
echo '10 9 abc' | awk '{print ($1 < $2), ($1 < "9"), ($3 > 5), (x < 1), (x == 0), (x == ""), length(x)}'
### awk-in-operator-and-delete-loop
awk 'BEGIN {for (i = 0; i < 5; i++) a[i] = i; for (k in a) if (k % 2) delete a[k]; n = 0; for (k in a) n++; print n, (1 in a), (2 in a)}'
### awk-function-array-param
awk 'function add(arr, k, v) {arr[k] = v} BEGIN {add(m, "x", 1); add(m, "y", 2); print length(m), m["y"]}'
### awk-exit-codes-2
awk 'BEGIN {exit 1}' ; echo "rc=$?"; echo | awk '{exit} END {exit 4}'; echo "rc=$?"; awk 'BEGIN {exit -1}'; echo "rc=$?"; awk 'BEGIN {exit "3x"}'; echo "rc=$?"
### awk-tolower-fields-loop
echo 'Alpha BETA gamma' | awk '{for (i = NF; i > 0; i--) printf "%s%s", tolower($i), (i > 1 ? " " : "\n")}'
### awk-nextfile-fnr
printf '1\n2\n' > a1; printf '3\n4\n' > a2; awk 'FNR == 2 {nextfile} {print FILENAME, $0}' a1 a2
### awk-substr-unicode-bytes
echo 'héllo' | awk '{print length($0), substr($0, 2, 2)}' | od -c | head -2
### awk-int-and-mod-negative
awk 'BEGIN {print int(-3.7), int("4.9x"), -7 % 3, 7 % -3, int(1e10)}'
### awk-ternary-chain-and-precedence
awk 'BEGIN {x = 5; print x > 3 ? "a" : "b"}' ; ls; awk 'BEGIN {print 1 - -1, 2 * -3, !0 + 1, 1 < 2 == 1, "a" "b" == "ab"}'
### awk-regex-dynamic-escapes
echo 'a.b a+b' | awk '{print gsub("\\.", "-"), $0; print match($0, "[+]"), RSTART}'
### awk-field-sep-tab-and-space
printf 'a  b\tc\n' | awk -F'[ \t]+' '{print NF, $2}'; printf 'a  b\tc\n' | awk -F' ' '{print NF}'; printf 'a:b\n' | awk -F: -v OFS=- '{$1 = $1} 1'
### awk-printf-reuse-no
awk 'BEGIN {printf "%s %s\n", "only"; printf "no args\n"; printf "%d%%\n", 50}'
### awk-close-statuses
awk 'BEGIN{print "x" | "cat >/dev/null; exit 3"; print close("cat >/dev/null; exit 3")}'; awk 'BEGIN{"exit 2" | getline; print close("exit 2")}'; awk 'BEGIN{getline l < "/nonexist"; print close("/nonexist"); print close("never")}'
### awk-exit-wraps
awk 'BEGIN{exit -1}'; echo "rc=$?"; awk 'BEGIN{exit 256}'; echo "rc=$?"; awk 'BEGIN{exit 257}'; echo "rc=$?"
### awk-split-empty-sep
awk 'BEGIN {n = split("abc", a, ""); print n, a[1], a[3]; n = split("a b", b, //); print n}'
### awk-fs-single-special
echo 'a|b|c' | awk -F'|' '{print $2}'; echo 'a.b.c' | awk -F. '{print NF}'; echo 'a\b' | awk -F'\\' '{print $2}'; echo 'a+b' | awk -F+ '{print $1}'
### awk-v-strnum
awk -v x=10 -v y=9 'BEGIN {print (x > y), (x"" > y"")}'; echo 10 | awk -v y=9 '{print ($1 > y)}'
### awk-getline-dash
echo from-stdin | awk 'BEGIN {getline l < "-"; print "[" l "]"}'
### awk-interval-regex
echo 'aaa ab' | awk '{print match($0, /a{2,3}/), RLENGTH; print ($2 ~ /^a{1}b$/)}'
### awk-printf-i-and-big-width
awk 'BEGIN {printf "%i|%10.3e|%-8.3f|%G\n", 42.9, 1234.5678, 3.14159, 0.00001}'
### awk-uninit-in-arith-and-string
awk 'BEGIN {print x + 0, x "", length(x), (x == 0), (x == ""); y[1]; print length(y), (1 in y), y[1] + 1}'
### awk-regexp-as-value
echo 'abc' | awk '{x = /b/; print x; y = !/z/; print y}'
### awk-string-escapes
awk 'BEGIN {print "a\tb\\c\"d\/e\101\x41"}' | od -c | head -2
### awk-long-pipeline-report
printf 'ns1 pod-a Running\nns1 pod-b Pending\nns2 pod-c Running\n' | awk '$3 == "Running" {r[$1]++} {t[$1]++} END {for (n in t) printf "%s %d/%d\n", n, r[n], t[n]}' | sort
### awk-header-skip-and-columns
printf 'NAME CPU MEM\nweb 10m 20Mi\ndb 200m 1Gi\n' | awk 'NR > 1 {sub(/m$/, "", $2); cpu += $2} END {print cpu "m"}'
### awk-substr-loop-reverse
echo 'hello' | awk '{s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); print s}'
### awk-compare-fields-numeric-string
printf '2 10\n10 2\nabc 1\n' | awk '{print ($1 < $2) ? "lt" : "ge"}'
### awk-assignment-in-condition
printf 'a\nb\nc\n' | awk '(n = NR) > 1 {print n, $0}'
### awk-printf-percent-c-numbers
awk 'BEGIN {for (i = 65; i < 70; i++) printf "%c", i; print ""}'
### awk-index-of-array-numeric-string
awk 'BEGIN {a["1"] = "one"; a[1] = "uno"; print a["1"], length(a); a[01] = "x"; print a[1]}'
