#!/bin/sh
# safe_write: every output goes through base/afile.h, which replaces only a
# regular file the command may write (issue 28).  A device (a private mknod
# node, never the real /dev/null), a FIFO or a folder given as -o is refused,
# exit 2, and stays what it was; an output that is an input of the command,
# also through a hard link or a symlink, is refused and the input's bytes are
# unchanged (convert, dot, train, and query's export, which the writer itself
# refuses); a symlink output writes its target and stays a link; a replaced
# file keeps its mode; a read-only file is refused; -o '' is a usage error;
# on a full disk (a 64 KiB tmpfs, when mounting is permitted) DOT, SVG, PNG
# and .npz outputs exit 2 with the path and the system's reason, and leave
# no temporary file.
. tests/lib.sh

H=$HLOSCOPE
W=$T/w
mkdir -p "$W"
cp "$ROOT/tests/data/hlo/graphsage_tf_cpu_benchmark.hlo" "$W/in.hlo"
cp "$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz" "$W/in.npz"
cp "$W/in.hlo" "$T/in.hlo.orig"
cp "$W/in.npz" "$T/in.npz.orig"
REGION="--around 10 --radius 2"
I3D=$ROOT/tests/data/hlo/i3d_tf_xla_cluster_1.hlo

# temps DIR: the temporary files a writer left in DIR.
temps() { find "$1" -name '*.tmp.*' | tr '\n' ' '; }

# refused NAME WANT CMD...: exit 2, WANT in stderr, no temporary left in $W.
refused() {
	name=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	left=$(temps "$W")
	if [ "$rc" -ne 2 ]; then
		bad "safe_write: $name" "exit $rc, wanted 2; stderr: $(head -c 300 "$T/err")"
	elif ! grep -qF -- "$want" "$T/err"; then
		bad "safe_write: $name" "wanted '$want' in stderr; got: $(head -c 300 "$T/err")"
	elif [ -n "$left" ]; then
		bad "safe_write: $name" "left $left"
	elif ! no_sanitizer_report "$T/err"; then
		bad "safe_write: $name" "sanitizer report: $(head -c 300 "$T/err")"
	else
		ok "safe_write: $name"
		return 0
	fi
	return 1
}

# unchanged NAME: the inputs' bytes are what they were.
unchanged() {
	if cmp -s "$W/in.hlo" "$T/in.hlo.orig" && cmp -s "$W/in.npz" "$T/in.npz.orig"; then
		ok "safe_write: $1: the input is unchanged"
	else
		bad "safe_write: $1" "the input changed"
		cp "$T/in.hlo.orig" "$W/in.hlo"
		cp "$T/in.npz.orig" "$W/in.npz"
	fi
}

# -- what is not a regular file ------------------------------------------
if mknod "$W/dev" c 1 3 2>/dev/null; then
	refused "convert -o a character device" "cannot write $W/dev: it is a character device, not a regular file" \
		"$H" convert "$W/in.hlo" -o "$W/dev"
	[ -c "$W/dev" ] && ok "safe_write: the device is still a device" ||
		bad "safe_write: convert -o a device" "it is no longer a character device: $(ls -l "$W/dev")"
	refused "dot -o a character device" "it is a character device" "$H" dot "$W/in.hlo" $REGION -T svg -o "$W/dev"
	refused "train -o a character device" "it is a character device" "$H" train "$W/in.npz" --epochs 1 -o "$W/dev"
	ln -s dev "$W/dev.link"
	refused "convert -o a symlink to a device" "cannot write $W/dev.link (a link to $W/dev): it is a character device" \
		"$H" convert "$W/in.hlo" -o "$W/dev.link"
	[ -c "$W/dev" ] && [ -L "$W/dev.link" ] && ok "safe_write: the device and the link to it are as they were" ||
		bad "safe_write: -o a symlink to a device" "$(ls -l "$W/dev" "$W/dev.link")"
	rm -f "$W/dev" "$W/dev.link"
else
	echo "SKIP safe_write: -o a device: mknod is not permitted here"
fi
mkfifo "$W/fifo"
refused "convert -o a FIFO" "cannot write $W/fifo: it is a FIFO (named pipe), not a regular file" \
	"$H" convert "$W/in.hlo" -o "$W/fifo"
refused "dot -o a FIFO" "it is a FIFO" "$H" dot "$W/in.hlo" $REGION -T dot -o "$W/fifo"
[ -p "$W/fifo" ] && ok "safe_write: the FIFO is still a FIFO" || bad "safe_write: -o a FIFO" "$(ls -l "$W/fifo")"
rm -f "$W/fifo"
mkdir "$W/dir.svg"
refused "dot -o a folder" "cannot write $W/dir.svg: it is a folder, not a regular file" \
	"$H" dot "$W/in.hlo" $REGION -o "$W/dir.svg"
refused "train -o a folder" "it is a folder" "$H" train "$W/in.npz" --epochs 1 -o "$W/dir.svg"
[ -d "$W/dir.svg" ] && ok "safe_write: the folder is still a folder" || bad "safe_write: -o a folder" "gone"
rmdir "$W/dir.svg"

# -- the output is an input ----------------------------------------------
ln "$W/in.hlo" "$W/hard.hlo"
ln -s in.hlo "$W/sym.hlo"
ln "$W/in.npz" "$W/hard.npz"
ln -s in.npz "$W/sym.npz"
for out in in hard sym; do
	if refused "convert in.hlo -o $out.hlo" "cannot write $W/$out.hlo" "$H" convert "$W/in.hlo" -o "$W/$out.hlo" &&
		! grep -qF "it is the input $W/in.hlo (the same file)" "$T/err"; then
		bad "safe_write: convert in.hlo -o $out.hlo" "the message names no input: $(head -c 300 "$T/err")"
	fi
	refused "dot in.hlo -o $out.hlo" "it is the input" "$H" dot "$W/in.hlo" $REGION -T svg -o "$W/$out.hlo"
	refused "train in.npz -o $out.npz" "it is the input" "$H" train "$W/in.npz" --epochs 1 -o "$W/$out.npz"
	unchanged "-o $out"
done
refused "convert sym.hlo -o in.hlo (the input read through a link)" "it is the input" \
	"$H" convert "$W/sym.hlo" -o "$W/in.hlo"
refused "train on a folder holding the output" "it is the input" "$H" train "$W" --epochs 1 -o "$W/hard.npz"
# query's export checks nothing early: the writer refuses the input itself
refused "query export onto a hard link to the input" "cannot write $W/hard.hlo: it is the input" \
	"$H" query "$W/in.hlo" "export dot computation entry -o $W/hard.hlo"
unchanged "every refusal"
cp "$ROOT/tests/data/profile/i3d_tf_xla_cluster_1.profile.csv" "$W/prof.csv"
refused "dot --data FILE -o FILE" "cannot write $W/prof.csv: it is the input" \
	"$H" dot "$W/in.hlo" $REGION --data "$W/prof.csv" --heat time_us -T dot -o "$W/prof.csv"
cmp -s "$W/prof.csv" "$ROOT/tests/data/profile/i3d_tf_xla_cluster_1.profile.csv" &&
	ok "safe_write: the --data file is unchanged" || bad "safe_write: dot --data FILE -o FILE" "the data file changed"
[ -L "$W/sym.hlo" ] && [ -L "$W/sym.npz" ] && ok "safe_write: the links to the inputs are still links" ||
	bad "safe_write: links to the inputs" "$(ls -l "$W")"

# -- what is replaced, and how -------------------------------------------
expect_status 0 "safe_write: convert to a new file" "$H" convert "$W/in.hlo" -o "$W/direct.npz"
mkdir "$W/sub"
ln -s sub/target.npz "$W/link.npz"
expect_status 0 "safe_write: convert -o a dangling symlink" "$H" convert "$W/in.hlo" -o "$W/link.npz"
if [ -L "$W/link.npz" ] && cmp -s "$W/sub/target.npz" "$W/direct.npz"; then
	ok "safe_write: the link stays a link, its target gets the content"
else
	bad "safe_write: -o a symlink" "$(ls -lR "$W" | tr '\n' '|')"
fi
expect_status 0 "safe_write: dot -o a symlink to a file" "$H" dot "$W/in.hlo" $REGION -T svg -o "$W/link.npz"
[ -L "$W/link.npz" ] && grep -q '<svg' "$W/sub/target.npz" && [ -z "$(temps "$W")" ] &&
	ok "safe_write: dot wrote the link's target, beside it, and left no temporary" ||
	bad "safe_write: dot -o a symlink" "$(ls -lR "$W" | tr '\n' '|')"
for f in npz svg; do
	echo old >"$W/private.$f"
	chmod 600 "$W/private.$f"
done
"$H" convert "$W/in.hlo" -o "$W/private.npz" 2>"$T/err"
"$H" dot "$W/in.hlo" $REGION -o "$W/private.svg" 2>>"$T/err"
if [ "$(stat -c %a "$W/private.npz") $(stat -c %a "$W/private.svg")" = "600 600" ] &&
	cmp -s "$W/private.npz" "$W/direct.npz" && grep -q '<svg' "$W/private.svg"; then
	ok "safe_write: a 0600 file replaced by convert and dot stays 0600"
else
	bad "safe_write: mode kept" "$(ls -l "$W"/private.* | tr '\n' '|') $(head -c 200 "$T/err")"
fi
echo old >"$W/ro.svg"
chmod 444 "$W/ro.svg"
refused "dot -o a read-only file" "cannot write $W/ro.svg: the file is read-only (mode 0444)" \
	"$H" dot "$W/in.hlo" $REGION -o "$W/ro.svg"
[ "$(cat "$W/ro.svg") $(stat -c %a "$W/ro.svg")" = "old 444" ] && ok "safe_write: the read-only file is untouched" ||
	bad "safe_write: -o a read-only file" "$(ls -l "$W/ro.svg")"

for c in "convert $W/in.hlo" "dot $W/in.hlo $REGION" "train $W/in.npz"; do
	# shellcheck disable=SC2086
	expect_status 1 "safe_write: ${c%% *} -o '' exits 1" "$H" $c -o ''
	grep -qF -- "-o needs a file name" "$T/err" && ok "safe_write: ${c%% *} -o '' says -o needs a file name" ||
		bad "safe_write: ${c%% *} -o ''" "$(head -c 200 "$T/err")"
done

# -- a full disk -----------------------------------------------------------
# full NAME FILE CMD...: exit 2, "cannot write FILE: No space left on device",
# nothing at FILE, no temporary left.
full() {
	name=$1 file=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	want="cannot write $file: No space left on device"
	if [ "$rc" -ne 2 ] || ! grep -qF "$want" "$T/err"; then
		bad "safe_write: full disk: $name" "exit $rc, wanted 2 and '$want'; stderr: $(head -c 300 "$T/err")"
	elif [ -e "$file" ] || [ -n "$(temps "$F")" ]; then
		bad "safe_write: full disk: $name" "left: $(ls "$F" | tr '\n' ' ')"
	elif ! no_sanitizer_report "$T/err"; then
		bad "safe_write: full disk: $name" "sanitizer report: $(head -c 300 "$T/err")"
	else
		ok "safe_write: full disk: $name exits 2 with the path and the reason, leaves nothing"
	fi
}

F=$T/full
mkdir "$F"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$F" 2>/dev/null; then
	trap 'umount "$F" 2>/dev/null' EXIT
	full "DOT (75 KB)" "$F/r.dot" "$H" dot "$I3D" --around 100 --radius 10 -o "$F/r.dot"
	full "SVG (130 KB)" "$F/r.svg" "$H" dot "$I3D" --around 100 --radius 8 -o "$F/r.svg"
	full "PNG (100 KB)" "$F/r.png" "$H" dot "$I3D" --around 100 --radius 8 -o "$F/r.png"
	# the largest bundled module's .npz is 56 KB: 16 KB are taken first
	head -c 16384 /dev/zero >"$F/taken"
	full "convert .npz (56 KB)" "$F/llama2.npz" \
		"$H" convert "$ROOT/tests/data/hlo/llama2_dp1_tp1_pp1_SyncTensorsGraph.hlo" -o "$F/llama2.npz"
	rm -f "$F/taken"
	umount "$F" && trap - EXIT
else
	echo "SKIP safe_write: full disk: mounting a tmpfs is not permitted here"
fi
exit 0
