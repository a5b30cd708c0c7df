/* test_kit.c - the kit of base/ that touches the file system: the atomic
 * file writer (base/afile.h) and what it refuses to replace (base/inputs.h),
 * the folder walker (base/walk.h) and the path helpers (base/path.h); and the
 * terminal escaper (base/escape.h), with the JSON and CSV writers' handling
 * of the same bytes. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/csv.h"
#include "base/error.h"
#include "base/inputs.h"
#include "base/escape.h"
#include "base/jsonw.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "base/walk.h"
#include "t.h"

static char root[256];

/* Entries of dir whose name contains ".tmp.": what a writer left behind. */
static int temps_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_afile_writes(void)
{
	char path[512], *s;
	struct stat st;
	hs_error err = {0};

	snprintf(path, sizeof path, "%s/out.txt", root);
	mode_t old = umask(022);
	hs_afile *af = hs_afile_open(path, &err);
	CHECK("afile: opens beside the target", af != NULL && temps_in(root) == 1);
	CHECK("afile: nothing at the name before commit", af && access(path, F_OK) != 0);
	if (af) {
		fprintf(hs_afile_stream(af), "hello %d\n", 42);
		CHECK("afile: commit", hs_afile_commit(af, &err) == 0);
	}
	s = slurp(path);
	CHECK("afile: the content at the name, no temporary left",
	      s && strcmp(s, "hello 42\n") == 0 && temps_in(root) == 0);
	CHECK("afile: mode 0644 under umask 022", stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	umask(077);
	CHECK("afile: replaces a file, whole", hs_afile_write(path, "second\n", 7, &err) == 0 &&
	      (s = slurp(path)) && strcmp(s, "second\n") == 0);
	CHECK("afile: a replaced file keeps its mode (0644), whatever the umask",
	      stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	char fresh[512];
	snprintf(fresh, sizeof fresh, "%s/fresh.txt", root);
	CHECK("afile: a new file under umask 077 is 0600 (0644 minus the umask)",
	      hs_afile_write(fresh, "x", 1, &err) == 0 && stat(fresh, &st) == 0 && (st.st_mode & 0777) == 0600);
	umask(old);
	chmod(path, 0600);
	CHECK("afile: a 0600 file stays 0600 when replaced under umask 022",
	      hs_afile_write(path, "second\n", 7, &err) == 0 && stat(path, &st) == 0 &&
	      (st.st_mode & 0777) == 0600);
	unlink(fresh);
	af = hs_afile_open(path, &err);
	if (af) {
		fputs("never seen", hs_afile_stream(af));
		hs_afile_abort(af);
	}
	s = slurp(path);
	CHECK("afile: abort leaves the old file and no temporary",
	      af && s && strcmp(s, "second\n") == 0 && temps_in(root) == 0);
}

static void test_afile_failures(void)
{
	char path[512], dir[512];
	hs_error err = {0};

	snprintf(path, sizeof path, "%s/no/such/dir/x.txt", root);
	CHECK("afile: a missing folder is HS_EDATA naming the file and the reason",
	      hs_afile_open(path, &err) == NULL && err.status == HS_EDATA &&
	      strstr(err.msg, "cannot write ") && strstr(err.msg, "no/such/dir/x.txt: No such file"));

	/* a folder is refused at open: no temporary, the folder stays */
	snprintf(dir, sizeof dir, "%s/isdir", root);
	mkdir(dir, 0755);
	hs_error_clear(&err);
	hs_afile *af = hs_afile_open(dir, &err);
	int rc;
	struct stat st;
	CHECK("afile: a folder is refused at open with HS_EDATA, naming it",
	      af == NULL && err.status == HS_EDATA && strstr(err.msg, "isdir: it is a folder, not a regular file"));
	hs_afile_abort(af);
	CHECK("afile: ... and leaves no temporary file, the folder as it was",
	      temps_in(root) == 0 && stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	hs_error_clear(&err);
	CHECK("afile: an empty name is HS_EUSAGE", hs_afile_open("", &err) == NULL && err.status == HS_EUSAGE &&
	      hs_afile_check("", &err) == -1);

	/* a write that fails (a file size limit: EFBIG) is reported with its
	 * errno at commit, however the caller wrote */
	struct rlimit lim, small;
	snprintf(path, sizeof path, "%s/big.bin", root);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &lim);
	small = lim;
	small.rlim_cur = 4096;
	setrlimit(RLIMIT_FSIZE, &small);
	hs_error_clear(&err);
	af = hs_afile_open(path, &err);
	if (af)
		for (int i = 0; i < 2000; i++)
			fprintf(hs_afile_stream(af), "line %d of a file larger than the limit\n", i);
	rc = af ? hs_afile_commit(af, &err) : 0;
	setrlimit(RLIMIT_FSIZE, &lim);
	signal(SIGXFSZ, SIG_DFL);
	CHECK("afile: a failed write is HS_EDATA with the write's errno",
	      af && rc < 0 && err.status == HS_EDATA && strstr(err.msg, "big.bin: File too large"));
	CHECK("afile: ... and leaves nothing", temps_in(root) == 0 && access(path, F_OK) != 0);

	/* one fwrite larger than the stream's buffer goes straight to the
	 * cookie's write: a failure there must come back as a short count
	 * (glibc took a -1 for a count and copied past the buffer) */
	size_t big = 1 << 20;
	char *block = calloc(1, big);
	setrlimit(RLIMIT_FSIZE, &small);
	signal(SIGXFSZ, SIG_IGN);
	hs_error_clear(&err);
	af = block ? hs_afile_open(path, &err) : NULL;
	size_t put = af ? fwrite(block, 1, big, hs_afile_stream(af)) : big;
	int werr = af ? hs_afile_errno(af) : 0;
	rc = af ? hs_afile_commit(af, &err) : 0;
	setrlimit(RLIMIT_FSIZE, &lim);
	signal(SIGXFSZ, SIG_DFL);
	free(block);
	CHECK("afile: one large write that fails is a short fwrite, its errno kept (hs_afile_errno)",
	      af && put < big && werr == EFBIG);
	CHECK("afile: ... and commit reports it, leaving nothing",
	      rc < 0 && strstr(err.msg, "big.bin: File too large") && temps_in(root) == 0 &&
	      access(path, F_OK) != 0);
}

/* Writes "old\n" to path with mode m; the path, for chaining. */
static const char *plant(const char *path, mode_t m)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("old\n", f);
		fclose(f);
	}
	chmod(path, m);
	return path;
}

/* hs_afile_open(path) refuses it: NULL, HS_EDATA, `why` in the message,
 * no temporary in root. */
static int refused(const char *path, const char *why)
{
	hs_error err = {0};
	hs_afile *af = hs_afile_open(path, &err);
	int ok = !af && err.status == HS_EDATA && strstr(err.msg, why) && temps_in(root) == 0;

	if (!ok)
		printf("# %s: %s\n", path, af ? "opened" : err.msg);
	hs_afile_abort(af);
	hs_error_clear(&err);
	return ok && hs_afile_check(path, &err) == -1 && strstr(err.msg, why);
}

static void test_afile_refusals(void)
{
	char path[512], fifo[512], dev[512];
	struct stat st;
	hs_error err = {0};

	snprintf(fifo, sizeof fifo, "%s/fifo", root);
	CHECK("afile: a FIFO is refused, and stays a FIFO",
	      mkfifo(fifo, 0644) == 0 && refused(fifo, "fifo: it is a FIFO (named pipe), not a regular file") &&
	      lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	snprintf(dev, sizeof dev, "%s/null", root);
	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		CHECK("afile: a character device is refused, and stays one",
		      refused(dev, "null: it is a character device, not a regular file") &&
		      lstat(dev, &st) == 0 && S_ISCHR(st.st_mode));
		unlink(dev);
	} else {
		printf("# afile: no private device node (%s): the device case is left to safe_write.sh\n",
		       strerror(errno));
	}
	snprintf(path, sizeof path, "%s/ro.txt", root);
	CHECK("afile: a read-only file is refused (even for root), content and mode kept",
	      refused(plant(path, 0444), "ro.txt: the file is read-only (mode 0444)") &&
	      !strcmp(slurp(path), "old\n") && stat(path, &st) == 0 && (st.st_mode & 0777) == 0444);
	chmod(path, 0644);
	CHECK("afile: hs_afile_check accepts a writable file and creates nothing",
	      hs_afile_check(path, &err) == 0 && temps_in(root) == 0 && !strcmp(slurp(path), "old\n"));

	/* what is at the name is looked at again at commit */
	hs_afile *af = hs_afile_open(path, &err);
	unlink(path);
	mkfifo(path, 0644);
	int rc = af ? hs_afile_commit(af, &err) : 0;
	CHECK("afile: a FIFO put at the name after open is refused at commit, the temporary removed",
	      af && rc < 0 && strstr(err.msg, "a FIFO") && temps_in(root) == 0 &&
	      lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	unlink(path);
	unlink(fifo);
}

static void test_afile_links(void)
{
	char sub[512], target[512], link1[512], link2[512], dangling[512], loop[512];
	struct stat st;
	hs_error err = {0};

	snprintf(sub, sizeof sub, "%s/sub", root);
	mkdir(sub, 0755);
	snprintf(target, sizeof target, "%s/sub/target.txt", root);
	snprintf(link1, sizeof link1, "%s/link1", root);
	snprintf(link2, sizeof link2, "%s/link2", root);
	plant(target, 0640);
	symlink("sub/target.txt", link1); /* relative to the link's folder */
	symlink("link1", link2);
	CHECK("afile: a write through a chain of symlinks goes to the file they lead to",
	      hs_afile_write(link2, "new\n", 4, &err) == 0 && !strcmp(slurp(target), "new\n"));
	CHECK("afile: ... the links stay links",
	      lstat(link1, &st) == 0 && S_ISLNK(st.st_mode) && lstat(link2, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK("afile: ... the target keeps its mode (0640), no temporary left anywhere",
	      stat(target, &st) == 0 && (st.st_mode & 0777) == 0640 && temps_in(root) == 0 && temps_in(sub) == 0);

	snprintf(dangling, sizeof dangling, "%s/dangling", root);
	symlink("sub/made.txt", dangling);
	snprintf(target, sizeof target, "%s/sub/made.txt", root);
	CHECK("afile: a dangling symlink gets its target made, and stays a link",
	      hs_afile_write(dangling, "made\n", 5, &err) == 0 && !strcmp(slurp(target), "made\n") &&
	      lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));

	snprintf(loop, sizeof loop, "%s/loop", root);
	symlink("loop", loop);
	hs_error_clear(&err);
	CHECK("afile: a symlink loop is HS_EDATA with the system's reason",
	      hs_afile_open(loop, &err) == NULL && err.status == HS_EDATA &&
	      strstr(err.msg, "Too many levels of symbolic links") && lstat(loop, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(loop);
	unlink(dangling);
	unlink(target);
	unlink(link2);
	unlink(link1);
	snprintf(target, sizeof target, "%s/sub/target.txt", root);
	unlink(target);
	rmdir(sub);
}

static void test_afile_inputs(void)
{
	char in[512], hard[512], soft[512], other[512], fifo[512], name[512];
	struct stat st;
	hs_error err = {0};

	snprintf(in, sizeof in, "%s/in.hlo", root);
	snprintf(hard, sizeof hard, "%s/hard.hlo", root);
	snprintf(soft, sizeof soft, "%s/soft.hlo", root);
	snprintf(other, sizeof other, "%s/other.hlo", root);
	plant(in, 0644);
	link(in, hard);
	symlink("in.hlo", soft);
	plant(other, 0644);
	hs_inputs_clear();
	CHECK("inputs: a file not noted is not found", stat(in, &st) == 0 && !hs_input_find(&st, name, sizeof name));
	CHECK("inputs: a file noted by path is found, with its name",
	      hs_input_note_path(in, &err) == 0 && hs_input_find(&st, name, sizeof name) && !strcmp(name, in));
	CHECK("afile: the input itself is refused", refused(in, "in.hlo: it is the input"));
	CHECK("afile: ... so is a hard link to it", refused(hard, "hard.hlo: it is the input"));
	CHECK("afile: ... and a symlink to it", refused(soft, "soft.hlo (a link to"));
	CHECK("afile: ... the input's bytes unchanged", !strcmp(slurp(in), "old\n"));
	CHECK("afile: another file is still written", hs_afile_write(other, "x", 1, &err) == 0);

	/* noted after open (a reader that runs meanwhile): refused at commit */
	hs_afile *af = hs_afile_open(other, &err);
	FILE *r = fopen(other, "r");
	int noted = r && hs_input_note_fd(fileno(r), other, &err) == 0;
	if (r)
		fclose(r);
	int rc = af ? hs_afile_commit(af, &err) : 0;
	CHECK("afile: a file read after open is refused at commit",
	      af && noted && rc < 0 && strstr(err.msg, "it is the input") && !strcmp(slurp(other), "x") &&
	      temps_in(root) == 0);

	snprintf(fifo, sizeof fifo, "%s/in.fifo", root);
	mkfifo(fifo, 0644);
	CHECK("inputs: a missing path or a FIFO notes nothing",
	      hs_input_note_path(fifo, &err) == 0 && stat(fifo, &st) == 0 && !hs_input_find(&st, NULL, 0) &&
	      hs_input_note_path("/no/such/file", &err) == 0);
	hs_inputs_clear();
	CHECK("inputs: cleared, nothing is found", stat(in, &st) == 0 && !hs_input_find(&st, NULL, 0));
	unlink(fifo);
	unlink(soft);
	unlink(hard);
	unlink(in);
	unlink(other);
}

/* As root: the owner of a replaced file is kept, and a file the caller could
 * not write in place (another user's, in a folder anyone may write) is refused
 * rather than replaced. */
static void test_afile_owner(void)
{
	char dir[512], path[512];
	struct stat st;
	hs_error err = {0};
	const uid_t nobody = 65534;

	if (geteuid() != 0) {
		printf("# afile: not root: owner and permission cases skipped\n");
		return;
	}
	snprintf(dir, sizeof dir, "%s/shared", root);
	snprintf(path, sizeof path, "%s/shared/theirs.txt", root);
	mkdir(dir, 0777);
	chmod(dir, 0777);
	chmod(root, 0755);
	plant(path, 0644);
	int owned = chown(path, nobody, nobody) == 0;
	CHECK("afile: as root, a replaced file keeps its owner, group and mode",
	      owned && hs_afile_write(path, "root's\n", 7, &err) == 0 && stat(path, &st) == 0 &&
	      st.st_uid == nobody && st.st_gid == nobody && (st.st_mode & 0777) == 0644);
	chown(path, 0, 0);
	int as_nobody = setegid(nobody) == 0 && seteuid(nobody) == 0;
	hs_error_clear(&err);
	hs_afile *af = as_nobody ? hs_afile_open(path, &err) : NULL;
	int by_mode = as_nobody && !af && strstr(err.msg, "theirs.txt: Permission denied (the file itself)");
	hs_afile_abort(af);
	if (seteuid(0) != 0 || setegid(0) != 0)
		printf("# afile: cannot become root again\n");
	CHECK("afile: another user's file in a folder anyone may write is refused, not replaced",
	      by_mode && !strcmp(slurp(path), "root's\n") && stat(path, &st) == 0 && st.st_uid == 0 &&
	      temps_in(dir) == 0);
	unlink(path);
	rmdir(dir);
	chmod(root, 0700);
}

/* ---- walk ----------------------------------------------------------- */

/* Each visit as a line "KIND rel depth" ("F a/z.hlo 1"). */
static int record(const hs_walk_entry *e, void *ctx, hs_error *err)
{
	static const char kinds[] = "FBUD";
	hs_strbuf *b = ctx;
	hs_strbuf_printf(b, "%c %s %d%s\n", kinds[e->kind], e->rel, e->depth,
			 e->kind == HS_WALK_BROKEN && e->errnum == ENOENT ? " ENOENT" : "");
	return strcmp(e->name, "stop.txt") ? 0 : hs_fail(err, HS_EUSAGE, "stopped at %s", e->path);
}

static int touch(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/w/%s", root, rel);
	FILE *f = fopen(path, "w");
	return f && fclose(f) == 0 ? 0 : -1;
}

static int mkdir_w(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/w/%s", root, rel);
	return mkdir(path, 0755);
}

static void test_walk(void)
{
	char w[512], path[600];
	hs_strbuf b = {0};
	hs_error err = {0};

	snprintf(w, sizeof w, "%s/w", root);
	/* made in an order that is not the sorted one */
	int made = mkdir(w, 0755) == 0 && mkdir_w("d1") == 0 && mkdir_w("d1/d2") == 0 &&
		   mkdir_w("d1/d2/d3") == 0 && touch("d1/d2/d3/deep.npz") == 0 && touch("d1/d2/f.npz") == 0 &&
		   touch("b.npz") == 0 && mkdir_w("a") == 0 && touch("a/z.hlo") == 0 && touch("a/.hidden") == 0 &&
		   touch("a/B.pb") == 0 && touch(".dot.npz") == 0;
	snprintf(path, sizeof path, "%s/c", w);
	made = made && symlink("a", path) == 0;        /* a second link to a: walked once */
	snprintf(path, sizeof path, "%s/loop", w);
	made = made && symlink(".", path) == 0;        /* a loop */
	snprintf(path, sizeof path, "%s/dangling.npz", w);
	made = made && symlink("nowhere", path) == 0;  /* broken */
	CHECK("walk: a scratch tree", made);

	int rc = hs_walk(w, 3, record, &b, &err);
	const char *want = "F a/B.pb 1\n"
			   "F a/z.hlo 1\n"
			   "F b.npz 0\n"
			   "D d1/d2/d3 2\n"
			   "F d1/d2/f.npz 2\n"
			   "B dangling.npz 0 ENOENT\n";
	CHECK("walk: sorted names, folders where they fall, hidden names, loops and second links skipped",
	      rc == 0 && strcmp(hs_strbuf_str(&b), want) == 0);
	CHECK("walk: the folder past the depth limit is reported, not entered",
	      strstr(hs_strbuf_str(&b), "D d1/d2/d3 2") && !strstr(hs_strbuf_str(&b), "deep.npz"));
	if (rc != 0 || strcmp(hs_strbuf_str(&b), want) != 0)
		printf("# got:\n%s# err: %s\n", hs_strbuf_str(&b), err.msg);
	hs_strbuf_reset(&b);
	rc = hs_walk(w, HS_WALK_MAX_DEPTH, record, &b, &err);
	CHECK("walk: within the limit everything is visited",
	      rc == 0 && strstr(hs_strbuf_str(&b), "F d1/d2/d3/deep.npz 3") && !strstr(hs_strbuf_str(&b), "D "));
	hs_strbuf_reset(&b);
	rc = hs_walk(w, HS_WALK_MAX_DEPTH, record, &b, &err);
	CHECK("walk: the same tree, the same sequence", rc == 0 && strstr(hs_strbuf_str(&b), "F a/B.pb 1\nF a/z.hlo 1"));

	/* the visitor stops the walk with its error */
	CHECK("walk: a stop file", touch("a/stop.txt") == 0);
	hs_strbuf_reset(&b);
	hs_error_clear(&err);
	rc = hs_walk(w, HS_WALK_MAX_DEPTH, record, &b, &err);
	CHECK("walk: a visitor's error stops it and is returned",
	      rc < 0 && err.status == HS_EUSAGE && strstr(err.msg, "stopped at") &&
	      !strstr(hs_strbuf_str(&b), "b.npz"));

	hs_error_clear(&err);
	snprintf(path, sizeof path, "%s/no/such", root);
	CHECK("walk: a root that cannot be read is HS_EDATA with the reason",
	      hs_walk(path, HS_WALK_MAX_DEPTH, record, &b, &err) < 0 && err.status == HS_EDATA &&
	      strstr(err.msg, "no/such: cannot read folder: No such file"));
	if (geteuid() != 0) {
		snprintf(path, sizeof path, "%s/a", w);
		chmod(path, 0);
		hs_strbuf_reset(&b);
		rc = hs_walk(w, HS_WALK_MAX_DEPTH, record, &b, &err);
		CHECK("walk: an unreadable folder is reported", rc == 0 && strstr(hs_strbuf_str(&b), "U a 0"));
		chmod(path, 0755);
	}
	hs_strbuf_free(&b);
}

static void test_path(void)
{
	char *s;
	CHECK("path: base", !strcmp(hs_path_base("npz/layout/unet3d.npz"), "unet3d.npz") &&
	      !strcmp(hs_path_base("unet3d.npz"), "unet3d.npz") && !strcmp(hs_path_base("dir/"), ""));
	CHECK("path: stem strips the last extension",
	      (s = hs_path_stem("npz/layout/unet3d.npz")) && !strcmp(s, "unet3d"));
	free(s);
	CHECK("path: stem of an XLA dump file keeps the dots before it",
	      (s = hs_path_stem("d/module_0001.jit_f.before_optimizations.txt")) &&
	      !strcmp(s, "module_0001.jit_f.before_optimizations"));
	free(s);
	CHECK("path: a leading dot is no extension, no dot no change",
	      hs_path_stem_len("x/.hidden") == 7 && hs_path_stem_len("x/README") == 6 && hs_path_stem_len("a.b/c") == 1);
	CHECK("path: join", (s = hs_path_join("npz", "unet3d.npz")) && !strcmp(s, "npz/unet3d.npz"));
	free(s);
}

/* What hs_escaped makes of s (NAME or TEXT mode), checked against want,
 * and that the other ways of escaping agree with it. */
static int esc_is(const char *s, int mode, const char *want)
{
	hs_strbuf tmp = {0}, b = {0};
	const char *got = hs_escaped(s, &tmp, mode);
	size_t n = strlen(s);
	int ok = !strcmp(got, want) && hs_esc_len(s, n, mode) == strlen(want);

	hs_strbuf_escaped(&b, s, n, mode);
	ok = ok && !strcmp(hs_strbuf_str(&b), want);
	FILE *f = hs_strbuf_open(&b);
	hs_strbuf_reset(&b);
	ok = ok && f && hs_fputs_escaped(f, s, mode) == 0 && fclose(f) == 0 &&
	     !strcmp(hs_strbuf_str(&b), want);
	if (!ok)
		printf("# escaped '%s': got '%s' (%s), wanted '%s'\n", s, got, hs_strbuf_str(&b), want);
	hs_strbuf_free(&tmp);
	hs_strbuf_free(&b);
	return ok;
}

/* s written to an escaping stream in pieces of `step` bytes (a character
 * cut between two writes), read back. */
static char *esc_stream(const char *s, size_t step, int mode)
{
	static char out[256];
	hs_strbuf b = {0};
	FILE *under = hs_strbuf_open(&b), *f = under ? hs_esc_open(under, mode) : NULL;

	out[0] = '\0';
	if (!f)
		return out;
	setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0, n = strlen(s); i < n; i += step)
		fwrite(s + i, 1, n - i < step ? n - i : step, f);
	if (fclose(f) == 0 && fclose(under) == 0)
		snprintf(out, sizeof out, "%s", hs_strbuf_str(&b));
	hs_strbuf_free(&b);
	return out;
}

static void test_escape(void)
{
	static const char clean[] = "fusion.12 jit(f)/layer_3/dot  é 数据 😀 a\\b";
	hs_strbuf tmp = {0};

	CHECK("escape: a clean name is itself, not a copy", hs_escaped(clean, &tmp, HS_ESC_NAME) == clean);
	CHECK("escape: wide UTF-8 is kept", esc_is("数据 😀 é", HS_ESC_NAME, "数据 😀 é"));
	CHECK("escape: ESC, BEL", esc_is("t\x1b]0;title\x07", HS_ESC_NAME, "t\\x1b]0;title\\x07"));
	CHECK("escape: CSI clear", esc_is("\x1b[2Jevil", HS_ESC_NAME, "\\x1b[2Jevil"));
	CHECK("escape: CR, TAB, LF, backspace, DEL", esc_is("a\rb\tc\nd\be\x7f", HS_ESC_NAME,
								  "a\\x0db\\x09c\\x0ad\\x08e\\x7f"));
	CHECK("escape: text keeps LF and TAB only",
	      esc_is("a\rb\tc\nd\x1b", HS_ESC_TEXT, "a\\x0db\tc\nd\\x1b"));
	CHECK("escape: C1 controls (CSI U+009B, U+0080, U+009F)",
	      esc_is("x\xc2\x9b" "31m\xc2\x80\xc2\x9f", HS_ESC_NAME, "x\\xc2\\x9b31m\\xc2\\x80\\xc2\\x9f"));
	CHECK("escape: U+00A0 is not C1", esc_is("\xc2\xa0", HS_ESC_NAME, "\xc2\xa0"));
	CHECK("escape: invalid UTF-8 (stray, overlong, cut, surrogate, past U+10FFFF, 0xff)",
	      esc_is("\x80|\xc0\xaf|\xe2\x82|\xed\xa0\x80|\xf4\x90\x80\x80|\xff", HS_ESC_NAME,
		     "\\x80|\\xc0\\xaf|\\xe2\\x82|\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80|\\xff"));
	CHECK("escape: a cut character at the end", esc_is("ok\xf0\x9f\x98", HS_ESC_NAME, "ok\\xf0\\x9f\\x98"));
	CHECK("escape: the empty string", esc_is("", HS_ESC_NAME, ""));
	int bad;
	CHECK("escape: hs_esc_char measures a character",
	      hs_esc_char("\xe6\x95\xb0", 3, HS_ESC_NAME, &bad) == 3 && !bad &&
	      hs_esc_char("\xe6\x95", 2, HS_ESC_NAME, &bad) == 1 && bad);
	CHECK("escape: span stops at the first byte to escape", hs_esc_span("ab\x1b" "c", 4, HS_ESC_NAME) == 2);
	char small[6];
	hs_strbuf fixed = hs_strbuf_fixed(small, sizeof small);
	hs_strbuf_escaped(&fixed, "a\x1b" "bc", 4, HS_ESC_NAME);
	CHECK("escape: a fixed buffer is cut, not overrun", fixed.len == 7 && !strcmp(small, "a\\x1b"));


	/* the stream: characters cut between writes are joined, bad ones escaped */
	const char *mixed = "é\x1b[2J数\xc2\x9b\xff😀\n\tz";
	for (size_t step = 1; step <= 5; step++) {
		char name[64];
		snprintf(name, sizeof name, "escape: stream in pieces of %zu bytes", step);
		CHECK(name, !strcmp(esc_stream(mixed, step, HS_ESC_TEXT), "é\\x1b[2J数\\xc2\\x9b\\xff😀\n\tz"));
	}
	CHECK("escape: stream ends with a cut character", !strcmp(esc_stream("a\xe6\x95", 1, HS_ESC_NAME),
								   "a\\xe6\\x95"));

	/* JSON: valid and exact for valid UTF-8, U+FFFD for invalid bytes */
	hs_strbuf_reset(&tmp);
	FILE *f = hs_strbuf_open(&tmp);
	if (f) {
		json_write_string(f, "\x1b]0;t\x07 \xc2\x9b é \xff \"\\");
		fclose(f);
	}
	CHECK("escape: JSON strings escape C0, C1 and invalid bytes",
	      !strcmp(hs_strbuf_str(&tmp), "\"\\u001b]0;t\\u0007 \\u009b é \\ufffd \\\"\\\\\""));
	/* CSV: exact bytes, quoted when they hold a control character */
	hs_strbuf_reset(&tmp);
	f = hs_strbuf_open(&tmp);
	if (f) {
		csv_write_field(f, "\x1b[2Jevil");
		fputc(',', f);
		csv_write_field(f, "plain é");
		fputc(',', f);
		csv_write_field(f, "t\x7f");
		fclose(f);
	}
	CHECK("escape: CSV quotes fields with control characters, keeps the bytes",
	      !strcmp(hs_strbuf_str(&tmp), "\"\x1b[2Jevil\",plain é,\"t\x7f\""));
	hs_strbuf_free(&tmp);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof root, "%s/hs_kit_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		printf("FAIL kit: cannot make a scratch folder: %s\n", strerror(errno));
		return 1;
	}
	test_afile_writes();
	test_afile_failures();
	test_afile_refusals();
	test_afile_links();
	test_afile_inputs();
	test_afile_owner();
	test_walk();
	test_path();
	test_escape();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	T_DONE();
}
