# Quoting and escapes.
### single-quotes-keep-everything
echo 'a $b `c` \d "e"'
### double-quotes-expand
v=V; echo "v=$v \$v \`x\` \\ \"q\" 'sq'"
### backslash-outside-quotes
echo a\ b \$x \\ \' \"
### backslash-newline-joins
echo one\
two
### backslash-in-double-quotes-other-chars
echo "\a\b\n\%"
### adjacent-quotes-join
echo 'a'"b"c'd e'"$HOME"
### empty-quotes-are-an-argument
set -- '' "" x; echo $#
### quote-in-quote
echo "it's" 'say "hi"' 'it'\''s'
### dollar-single-quote-literal !stderr
echo '$'"1" "\$1"
### hash-not-comment-in-word
echo a#b '#c' "#d"; echo x # this is a comment
### special-chars-quoted
echo "a;b" 'c|d' "e&f" 'g>h' "(i)"
### newline-in-quotes
echo "line1
line2"
### tab-preserved-in-quotes
printf '%s\n' "a	b"
### quoted-glob-not-expanded
touch x1 x2; echo "x*" 'x?' x\*
### dollar-at-end
echo "cost: 5$" 'a$'
