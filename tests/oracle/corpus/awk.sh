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
