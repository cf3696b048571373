# Arithmetic expansion.
### basic-ops
echo $((1+2)) $((7-10)) $((6*7)) $((17/5)) $((17%5))
### precedence-and-parens
echo $((2+3*4)) $(((2+3)*4)) $((10-2-3))
### variables-without-dollar
a=5; b=3; echo $((a*b)) $(($a+$b)) $((a-b*2))
### unset-var-is-zero
unset z; echo $((z+1))
### comparisons
echo $((3<5)) $((3>5)) $((2==2)) $((2!=2)) $((4<=4)) $((5>=6))
### logical
echo $((1&&0)) $((1||0)) $((!0)) $((!5))
### bitwise
echo $((6&3)) $((6|3)) $((6^3)) $((1<<4)) $((256>>2)) $((~0))
### ternary
a=4; echo $((a>3?10:20)) $((a<3?10:20))
### assignment-ops
i=1; : $((i+=4)); echo $i; : $((i*=3)); echo $i; : $((i-=5)); echo $i
### increment
i=0; echo $((i++)) $i $((++i)) $i $((i--)) $i
### negative-and-unary
echo $((-5+2)) $((- -3)) $((+4))
### hex-and-octal
echo $((0x1F)) $((010)) $((0xff+1))
### counter-loop
i=0; s=0; while [ $i -lt 5 ]; do s=$((s+i)); i=$((i+1)); done; echo $s
### nested-arith
a=2; echo $(( $((a+1)) * 2 ))
### division-by-zero !stderr
echo $((1/0)); echo after $?
### large-numbers
echo $((2147483647+1)) $((1<<40))
### spaces-inside
echo $((  1  +  2  ))
### string-var-holding-expression
e="2+3"; echo $((e*2)) $(($e*2))
### arithmetic-ternary-as-busybox-nests-it !stderr
for e in '0 ? 1 : 1 ? 2 : 3' '1 ? (1 ? 2 : 3) : 4' '1 ? 2 : 3 ? 4 : 5' 'x = 1 ? 5 : 6' '(1 ? 2 : 3) + 1' '1 ? 2 : 3 + 1' '2 > 1 ? 10 : 20'; do x=0; eval "echo \$(( $e )) x=\$x"; done; (echo $(( 1 ? 1 ? 2 : 3 : 4 ))); echo "rc=$?"; (x=0; echo $(( 1 ? x = 7 : 8 ))); echo "rc=$?"
