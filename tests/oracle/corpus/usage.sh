# What the applets say to a bad command line (busybox's message, then its whole usage text), to a
# missing file and to missing operands, with their exit codes.
### bad-opt-ls
ls --bogus; echo "rc=$?"
### bad-opt-ls-short
ls -Z /; echo "rc=$?"
### bad-opt-grep
grep -Z x /dev/null; echo "rc=$?"
### bad-opt-cat
cat -z /dev/null; echo "rc=$?"
### bad-opt-head
head -z /dev/null; echo "rc=$?"
### bad-opt-sort
sort --bogus </dev/null; echo "rc=$?"
### bad-opt-cut
cut -z </dev/null; echo "rc=$?"
### bad-opt-wc
wc -z </dev/null; echo "rc=$?"
### bad-opt-tr
tr -z a b </dev/null; echo "rc=$?"
### bad-opt-mkdir
mkdir -z d; echo "rc=$?"
### bad-opt-rm
rm -z f; echo "rc=$?"
### bad-opt-cp
cp -Z a b; echo "rc=$?"
### bad-opt-date
date -z; echo "rc=$?"
### bad-opt-seq
seq -z 1; echo "rc=$?"
### bad-opt-uniq
uniq -Z </dev/null; echo "rc=$?"
### bad-opt-find
find / -bogus; echo "rc=$?"
### bad-opt-xargs
xargs -Z </dev/null; echo "rc=$?"
### bad-opt-env
env -z; echo "rc=$?"
### bad-opt-id
id -z; echo "rc=$?"
### bad-opt-touch
touch -z f; echo "rc=$?"
### bad-opt-ln
ln -z a b; echo "rc=$?"
### bad-opt-mv
mv -z a b; echo "rc=$?"
### bad-opt-tail
tail -z /dev/null; echo "rc=$?"
### bad-opt-basename
basename -z x; echo "rc=$?"
### bad-opt-hostname
hostname -z; echo "rc=$?"
### bad-opt-echo
echo -z; echo "rc=$?"
### bad-opt-ps
ps -z; echo "rc=$?"
### bad-opt-df
df -z; echo "rc=$?"
### bad-opt-du
du -z; echo "rc=$?"
### bad-opt-stat
stat -z f; echo "rc=$?"
### bad-opt-readlink
readlink -z f; echo "rc=$?"
### bad-opt-uname
uname -z; echo "rc=$?"
### bad-opt-sed-short
sed -z p </dev/null; echo "rc=$?"
### bad-opt-awk
awk -z 1; echo "rc=$?"
### bad-opt-printf-applet
busybox printf -z; echo "rc=$?"
### missing-cat
cat /nope; echo "rc=$?"
### missing-head
head /nope; echo "rc=$?"
### missing-wc
wc /nope; echo "rc=$?"
### missing-sort
sort /nope; echo "rc=$?"
### missing-grep
grep x /nope; echo "rc=$?"; grep -s x /nope; echo "rc=$?"
### missing-cut
cut -c1 /nope; echo "rc=$?"
### missing-tail
tail /nope; echo "rc=$?"
### missing-ls
ls /nope; echo "rc=$?"
### missing-rm
rm /nope; echo "rc=$?"
### missing-cp
cp /nope x; echo "rc=$?"
### missing-mv
mv /nope x; echo "rc=$?"
### missing-stat
stat /nope; echo "rc=$?"
### missing-md5
md5sum /nope; echo "rc=$?"
### missing-uniq
uniq /nope; echo "rc=$?"
### missing-tr-args
tr; echo "rc=$?"
### missing-tac
tac /nope; echo "rc=$?"
### missing-nl
nl /nope; echo "rc=$?"
### missing-chmod
chmod 644 /nope; echo "rc=$?"
### missing-readlink
readlink /nope; echo "rc=$?"; readlink -f /nope/x; echo "rc=$?"
### missing-du
du /nope; echo "rc=$?"
### missing-touch-dir
touch /nope/x; echo "rc=$?"
### missing-mkdir-parent
mkdir /nope/x; echo "rc=$?"
### missing-rmdir
rmdir /nope; echo "rc=$?"
### missing-cd
cd /nope; echo "rc=$?"
### no-args
mkdir; echo "rc=$?"; rm; echo "rc=$?"; cp; echo "rc=$?"; mv x; echo "rc=$?"; ln; echo "rc=$?"
### no-args-2
chmod; echo "rc=$?"; touch; echo "rc=$?"; basename; echo "rc=$?"; dirname; echo "rc=$?"; kill; echo "rc=$?"
### no-args-3
grep; echo "rc=$?"; sed; echo "rc=$?"; expr; echo "rc=$?"; seq; echo "rc=$?"; cut; echo "rc=$?"
### na-mkdir
mkdir; echo "rc=$?"
### na-rm
rm; echo "rc=$?"
### na-cp
cp; echo "rc=$?"
### na-mv_x
mv x; echo "rc=$?"
### na-ln
ln; echo "rc=$?"
### na-chmod
chmod; echo "rc=$?"
### na-touch
touch; echo "rc=$?"
### na-basename
basename; echo "rc=$?"
### na-dirname
dirname; echo "rc=$?"
### na-grep
grep; echo "rc=$?"
### na-sed
sed; echo "rc=$?"
### na-expr
expr; echo "rc=$?"
### na-seq
seq; echo "rc=$?"
### na-cut
cut; echo "rc=$?"
### na-find___-bogus
find / -bogus; echo "rc=$?"
