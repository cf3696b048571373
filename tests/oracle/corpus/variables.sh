# Variables and assignments, as entrypoints and probes set them up.
### assign-and-echo
a=hello; b=world; echo "$a $b"
### unset-is-empty
echo "[$nothing]"
### assignment-no-split
v="a   b"; w=$v; echo "[$w]"
### assign-several-on-a-line
a=1 b=2 c=3; echo $a$b$c
### assign-uses-earlier
a=1 b=$a; echo "$b"
### prefix-assignment-for-one-command
X=outer; X=inner sh -c 'echo $X'; echo $X
### prefix-assignment-not-seen-by-shell
unset Y; Y=tmp true; echo "[${Y}]"
### braces-join-text
name=app; echo "${name}_log ${name}-1 $name.conf"
### append-to-variable
p=/bin; p="$p:/usr/bin"; p=$p:/opt; echo "$p"
### variable-in-single-quotes-stays
v=x; echo '$v' "$v"
### overwrite-and-unset
v=1; v=2; echo $v; unset v; echo "${v-gone}"
### numeric-looking-names
_a=1; a_1=2; A=3; echo $_a $a_1 $A
### env-var-from-container
echo "$HOME $HOSTNAME"; echo "$PATH"
### empty-assignment
e=; echo "[${e}]" "${#e}"
### tilde-expansion
echo ~ ~/x; x=~; echo "$x"
