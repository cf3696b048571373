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
