# File applets: stat, touch, mkdir, rm, ln, readlink, chmod (and the probes' [ -x ] and friends).
### touch-and-test
touch a; [ -e a ] && [ -f a ] && [ ! -s a ] && echo empty-file
### touch-existing-keeps-content
echo data > a; touch a; cat a
### mkdir-p-nested
mkdir -p x/y/z; [ -d x/y/z ] && echo made; mkdir -p x/y/z && echo again-ok
### mkdir-existing-fails
mkdir d; mkdir d; echo "rc=$?"
### mkdir-missing-parent
mkdir a/b; echo "rc=$?"
### mkdir-mode
mkdir -m 700 private; stat -c '%a %n' private
### rm-forms
touch f; rm f; [ -e f ] || echo removed; rm missing; echo "rc=$?"; rm -f missing; echo "rc=$?"
### rm-rf-tree
mkdir -p t/a/b; touch t/a/b/c t/x; rm -rf t; [ -e t ] || echo tree-gone
### rm-dir-without-r
mkdir d; rm d; echo "rc=$?"; rmdir d && echo rmdir-ok
### rmdir-nonempty
mkdir d; touch d/f; rmdir d; echo "rc=$?"
### ln-s-and-readlink
echo target > t; ln -s t link; readlink link; cat link; [ -L link ] && echo is-link
### ln-hard
echo x > a; ln a b; [ a -ef b ] && echo same-file; stat -c %h a
### ln-hard-shares-the-file
echo x > a; ln a b; echo more >> b; cat a; chmod 600 b; stat -c '%a %h' a; rm a; stat -c %h b; cat b
### ln-hard-refusals
echo x > a; ln a b; ln a b; echo "rc=$?"; ln nope c; echo "rc=$?"; mkdir d; ln d e; echo "rc=$?"; ln a d; ls d; ln -f a b; echo "rc=$?"
### ef-tells-files-apart
touch a c; [ a -ef c ] && echo same || echo different; mkdir d1 d2; [ d1 -ef d2 ] || echo dirs-differ; [ d1 -ef ./d1 ] && echo self
### ln-hard-of-a-symlink
echo x > a; ln -s a s; ln s h; [ -L h ] && echo link; cat h
### ln-hard-into-a-directory
echo 1 > a; echo 2 > b; mkdir dd; ln a b dd; cat dd/a dd/b; ls -l dd | cut -c1-12; find . -links 2 | sort
### sed-i-replaces-the-file
echo old > a; ln a b; echo new > a; cat b; sed -i s/new/sed/ b; cat a b; ln -s a s; sed -i s/new/via/ s; [ -L s ] || echo not-a-link; cat a s
### sed-i-suffix-keeps-the-old-file
echo one > a; ln a b; sed -i.bak s/one/two/ a; cat a a.bak b; stat -c %h a a.bak
### mv-keeps-the-inode
echo x > a; ln a b; mv b c; stat -c %h a c; mkdir d; echo y > d/f; ln d/f g; mv d e; stat -c %h e/f; cat e/f
### readlink-f
mkdir -p real/dir; ln -s real/dir alias; cd alias; readlink -f . | sed 's,.*/,,'; cd ..; readlink -f alias/../real | sed 's,.*/oracle-[0-9]*,,'
### dangling-link
ln -s nowhere dl; [ -e dl ] || echo dangling; [ -L dl ] && echo still-link; readlink dl
### ln-s-existing-fails
touch a b; ln -s a b; echo "rc=$?"; ln -sf a b; readlink b
### chmod-octal
touch f; chmod 600 f; stat -c %a f; chmod 755 f; stat -c %a f
### chmod-symbolic
touch f; chmod 644 f; chmod u+x f; stat -c %a f; chmod go-r f; stat -c %a f; chmod a=r f; stat -c %A f
### chmod-x-and-test
echo 'echo run' > s; [ -x s ] || echo not-exec; chmod +x s; [ -x s ] && echo exec; ./s
### stat-format
printf 'abc' > f; stat -c '%n %s %F' f; mkdir d; stat -c '%n %F' d
### stat-permissions-string
touch f; chmod 640 f; stat -c '%A %U %G' f
### stat-missing
stat -c %s missing; echo "rc=$?"
### test-size-and-newer
echo x > a; [ -s a ] && echo has-size; : > b; [ -s b ] || echo zero
### touch-c-no-create
touch -c nothere; [ -e nothere ] || echo not-created
### cat-through-symlink-dir
mkdir d; echo inside > d/f; ln -s d l; cat l/f; ls l
### mv-rename-in-dir
echo x > a; mv a b; ls; cat b
### truncate-file
echo 123456 > f; truncate -s 3 f; cat f; echo; stat -c %s f
### realpath-and-pwd-p
mkdir r; ln -s r s; cd s; pwd; pwd -P | sed 's,.*/,,'
### du-and-file-count
mkdir d; touch d/a d/b d/c; ls d | wc -l
### dd-small
printf 'abcdef' > in; dd if=in of=out bs=2 count=2 2>/dev/null; cat out; echo
### touch-d-and-nt
touch -d '2020-01-01 00:00:00' old; touch new; [ new -nt old ]; echo $?; [ old -ot new ]; echo $?; [ new -nt missing ]; echo $?; [ missing -ot new ]; echo $?; stat -c %y old
### touch-t-and-r
touch -t 202001020304.05 a; stat -c '%y %Y' a; touch -r a b; stat -c %Y b; touch -d @86400 c; stat -c %Y c;
### touch-errors
touch -d garbage x; echo "rc=$?"; touch -r /nope x; echo "rc=$?"; touch -c -d 2020-01-01 nothere; echo "rc=$?"; ls nothere; touch; echo "rc=$?"
### touch-long-options
touch --date=2021-06-07 f; stat -c %y f | cut -c1-10; touch --no-create g; ls g; touch f --date 2022-01-01; stat -c %y f | cut -c1-10
### find-newer-after-touch
touch -d '2001-01-01' base; touch -d '2000-01-01' older; touch -d '2002-01-01' newer; find . -newer base | sort
### ls-t-order
touch -d '2001-01-01' one; touch -d '2003-01-01' three; touch -d '2002-01-01' two; ls -t; ls -tr
### init-copy-config
mkdir -p src/conf.d dst; echo a > src/conf.d/1.conf; echo b > src/main.conf; cp -r src/* dst/; find dst | sort; cp src/main.conf dst/main.conf.bak; ls dst
### chmod-forms
touch f; chmod 755 f; stat -c %a f; chmod u-x,g=r f; stat -c %a f; chmod +x f; stat -c %A f; chmod a=,u+rw f; stat -c %a f; chmod 4755 f; stat -c %A f; chmod g+s,o+t f; stat -c %A f
### ls-l-shapes
mkdir d; touch -d '2020-01-02 03:04' d/x; ln -s x d/l; ls -l d | sed 's/  */ /g' | cut -d' ' -f1,2,5,9-; ls -ld d | cut -c1-10; ls -a d; ls -1 d; ls -F d
### ln-sf-and-readlink
echo v1 > v1; echo v2 > v2; ln -sf v1 cur; readlink cur; ln -sf v2 cur; readlink cur; cat cur; ln -s v1 cur 2>&1; echo "rc=$?"
### mv-into-dir-and-rename
mkdir t; echo x > a; mv a t/; ls t; mv t/a t/b; ls t; mv t t2; ls t2; mv nosuch x; echo "rc=$?"
### rm-r-and-f
mkdir -p z/y; touch z/y/f; rm z 2>&1; echo "rc=$?"; rm -r z; ls z 2>&1; echo "rc=$?"; rm -f nosuch; echo "rc=$?"; rmdir nosuch; echo "rc=$?"
### stat-formats
echo hello > s; stat -c '%n %s %F %a %U %G %h' s; mkdir sd; stat -c '%F %a' sd; ln -s s sl; stat -c '%F %N' sl; stat -L -c %F sl
### du-and-df-shapes !stderr
mkdir -p dd; printf '%0100d' 0 > dd/f; du -s dd | cut -f2; du -a dd | wc -l; df -P / | head -1
### mktemp-forms
f=$(mktemp); [ -f "$f" ] && echo file; d=$(mktemp -d); [ -d "$d" ] && echo dir; mktemp /tmp/x.XXXXXX | grep -c '^/tmp/x\.'; mktemp bad 2>&1; echo "rc=$?"
### find-common
mkdir -p fa/b; touch fa/1.txt fa/b/2.txt fa/b/3.log; find fa -name '*.txt' | sort; find fa -type d | sort; find fa -maxdepth 1 -type f; find fa -name '*.log' -exec echo got {} \;; find fa -newer fa/1.txt -type f | sort
### cat-n-and-concat
printf 'a\n\nb\n' > c1; cat -n c1; cat -b c1; cat c1 - < c1 | wc -l; cat -A c1 2>&1 | head -2
### newer-same-second
touch a b; [ b -nt a ]; echo "nt=$?"; [ a -ot b ]; echo "ot=$?"; find . -newer a -type f | sort; touch -d '2001-01-01' old; find . -newer old -type f | sort
### chmod-sticky-who
touch f; chmod o+t f; stat -c %A f; chmod +t f; stat -c %A f; chmod a-t f; stat -c %A f; chmod u+s,g+s f; stat -c %a f; mkdir d; chmod 1777 d; stat -c %A d
### df-block-sizes !stderr
df -P / | head -1; df -Pk / | head -1; df / | head -1; POSIXLY_CORRECT=1 df -P / | head -1; POSIXLY_CORRECT=1 df / | head -1; df -m / | head -1
