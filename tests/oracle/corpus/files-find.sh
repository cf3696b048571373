# ls, find, cp, mv, mktemp.
### ls-1-and-a
touch b a .h; ls; ls -1; ls -a; ls -A
### ls-d-and-dir
mkdir d; touch d/x; ls d; ls -d d; ls -d d/
### ls-missing
ls missing; echo "rc=$?"
### ls-several
mkdir d1 d2; touch d1/a d2/b f; ls d1 d2 f
### ls-l-shape
printf 'abc' > f; chmod 644 f; ls -l f | awk '{print $1, $2, $3, $4, $5, $NF}'
### ls-l-dir-and-link
mkdir d; ln -s d l; ls -ld d | cut -c1; ls -l l | awk '{print $1, $(NF-2), $(NF-1), $NF}' | cut -c1,11-
### ls-F-and-p
mkdir d; touch f; ln -s f l; chmod +x f; ls -F; ls -p
### ls-sort-time-and-reverse
touch a b c; ls -r
### ls-root
ls /
### ls-etc
ls /etc | grep -E '^(passwd|group|hosts|hostname)$'
### find-all
mkdir -p a/b; touch a/f a/b/g; find . | sort
### find-name-and-type
mkdir -p a/b; touch a/x.txt a/b/y.txt a/z.log; find . -name '*.txt' | sort; find . -type d | sort
### find-maxdepth-and-mindepth
mkdir -p a/b/c; find . -maxdepth 1; find . -mindepth 2 | sort
### find-exec
touch one two; find . -type f -exec echo found {} \; | sort
### find-exec-plus-removes
touch a.tmp b.tmp keep; find . -name '*.tmp' -exec rm {} +; ls
### find-not-and-or
touch a.c b.h c.txt; find . -type f \( -name '*.c' -o -name '*.h' \) | sort; find . -type f ! -name '*.txt' | sort
### find-missing-start
find missing; echo "rc=$?"
### find-empty-and-size
touch e; echo x > s; find . -empty; find . -type f -size +0 | sort
### find-path-and-prune
mkdir -p src/.git lib; touch src/.git/x src/a lib/b; find . -path ./src/.git -prune -o -type f -print | sort
### cp-file !stderr
echo content > a; cp a b; cat b; cp a; echo "rc=$?"
### cp-into-dir
mkdir d; echo x > a; cp a d/; cp a d/renamed; ls d
### cp-r-tree
mkdir -p src/sub; echo 1 > src/f; echo 2 > src/sub/g; cp -r src dst; find dst | sort; cat dst/sub/g
### cp-dir-without-r
mkdir d; cp d e; echo "rc=$?"
### cp-p-keeps-mode
touch f; chmod 600 f; cp -p f g; stat -c %a g; cp f h; stat -c %a h
### cp-overwrite
echo old > b; echo new > a; cp a b; cat b
### mv-file-and-dir
echo x > a; mkdir d; mv a d/; ls d; mv d e; ls; cat e/a
### mv-missing
mv nothere elsewhere; echo "rc=$?"
### mv-several-into-dir
mkdir d; touch a b; mv a b d; ls d; ls
### mktemp-file
f=$(mktemp); [ -f "$f" ] && echo "file $f"; rm -f "$f"
### mktemp-dir
d=$(mktemp -d); [ -d "$d" ] && echo "dir $d"; rmdir "$d"
### mktemp-template-in-cwd
f=$(mktemp ./job.XXXXXX); [ -f "$f" ] && echo made; echo "$f" | sed 's/\.[A-Za-z0-9]*$/.X/'; ls | wc -l
### mktemp-p
mkdir base; f=$(mktemp -p base); case $f in base/tmp.*) echo "in base";; *) echo "odd $f";; esac
### find-mmin-recent
touch new; find . -name new -mmin -5; find . -name new -mtime -1; find . -name new -mmin +5 | wc -l; find . -name new -mtime 0
### find-cleanup-old
touch keep; find . -type f -mtime +7 -name keep | wc -l; find . -mmin -60 -type f | sort
