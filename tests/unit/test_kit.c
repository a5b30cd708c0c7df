/* test_kit.c - the kit of base/ that touches the file system: the atomic
 * file writer (base/afile.h), the folder walker (base/walk.h) and the
 * path helpers (base/path.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/error.h"
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
	CHECK("afile: mode 0600 under umask 077 (0644 minus the umask)",
	      stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	umask(old);
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

	/* a rename onto a folder fails: the temporary goes, the folder stays */
	snprintf(dir, sizeof dir, "%s/isdir", root);
	mkdir(dir, 0755);
	hs_error_clear(&err);
	hs_afile *af = hs_afile_open(dir, &err);
	if (af)
		fputs("content", hs_afile_stream(af));
	int rc = af ? hs_afile_commit(af, &err) : 0;
	struct stat st;
	CHECK("afile: a rename onto a folder fails with HS_EDATA and its reason",
	      af && rc < 0 && err.status == HS_EDATA && strstr(err.msg, "isdir") &&
	      strstr(err.msg, "rename") && strstr(err.msg, "Is a directory"));
	CHECK("afile: ... and leaves no temporary file, the folder as it was",
	      temps_in(root) == 0 && stat(dir, &st) == 0 && S_ISDIR(st.st_mode));

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
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	T_DONE();
}
