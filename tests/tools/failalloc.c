/* failalloc.c - a preload library that runs a program out of memory at a
 * chosen allocation, to check that out of memory is exit 3 everywhere
 * (tests/suites/out_of_memory.sh):
 *
 *   LD_PRELOAD=build/release/tests/failalloc.so HS_FAILALLOC_AFTER=N hloscope ...
 *
 * The first N allocations (malloc, calloc, realloc, reallocarray,
 * posix_memalign, aligned_alloc, memalign, valloc) succeed and every later
 * one fails with ENOMEM, as when memory runs out for good.  Without
 * HS_FAILALLOC_AFTER nothing fails; with HS_FAILALLOC_COUNT=FILE the number
 * of allocations made is written to FILE at exit (to choose the N to try).
 * Only the allocations of the program itself count: none before main.
 *
 * HS_FAILALLOC_SPARE=NAME[:NAME...] spares the libraries whose file name
 * contains a NAME: an allocation made with one of them on the stack (its
 * own, or libc's on its behalf) neither fails nor counts.  ncurses 6.4
 * crashes when an allocation fails inside it (tparm's cache, newterm's
 * terminfo reader exits), as Graphviz 2.43's agopen does, and no caller can
 * catch that: the explorer's sweep spares "ncurses:tinfo" to test what is
 * ours.
 *
 * The release build only: the sanitizers bring their own allocator.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static long long after = -1, count;
static int counting, started;
static const char *spare; /* HS_FAILALLOC_SPARE */
static __thread int in_spare_check;

/* dlsym itself may calloc before the real one is known: a small static
 * pool answers it (never freed: free ignores it). */
static unsigned char boot[4096];
static size_t boot_used;

static int in_boot(const void *p)
{
	return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof boot;
}

static void *boot_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > sizeof boot - boot_used)
		return NULL;
	void *p = boot + boot_used;
	boot_used += n;
	return p;
}

static void resolve(void)
{
	static int resolving;
	if (real_malloc || resolving)
		return;
	resolving = 1;
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	resolving = 0;
}

static void report(void)
{
	const char *path = getenv("HS_FAILALLOC_COUNT");
	if (!path)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%lld\n", count);
		fclose(f);
	}
}

/* Runs before main (after the libraries' own constructors). */
__attribute__((constructor(65535))) static void start(void)
{
	const char *a = getenv("HS_FAILALLOC_AFTER");
	resolve();
	spare = getenv("HS_FAILALLOC_SPARE");
	if (spare && *spare) { /* backtrace's first call loads the unwinder: now */
		void *f[4];
		backtrace(f, 4);
	} else {
		spare = NULL;
	}
	after = a && *a ? strtoll(a, NULL, 10) : -1;
	counting = getenv("HS_FAILALLOC_COUNT") != NULL;
	if (counting)
		atexit(report);
	started = 1;
}

/* 1 when a library named in `spare` is on the stack. */
static int spared(void)
{
	void *f[16];
	int n, hit = 0;

	if (!spare || in_spare_check)
		return in_spare_check;
	in_spare_check = 1;
	n = backtrace(f, 16);
	for (int i = 2; i < n && !hit; i++) { /* past fails() and the allocator */
		Dl_info d;
		if (!dladdr(f[i], &d) || !d.dli_fname)
			continue;
		for (const char *p = spare; *p && !hit;) {
			size_t k = strcspn(p, ":");
			const char *base = strrchr(d.dli_fname, '/');
			base = base ? base + 1 : d.dli_fname;
			hit = k && memmem(base, strlen(base), p, k) != NULL;
			p += k + (p[k] == ':');
		}
	}
	in_spare_check = 0;
	return hit;
}

/* 1 when this allocation is to fail. */
static int fails(void)
{
	if (!started || spared())
		return 0;
	if (after >= 0 && count++ >= after) {
		errno = ENOMEM;
		return 1;
	}
	if (after < 0)
		count++;
	return 0;
}

void *malloc(size_t n)
{
	resolve();
	if (!real_malloc)
		return boot_alloc(n);
	return fails() ? NULL : real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	resolve();
	if (!real_calloc)
		return k && n > sizeof boot / k ? NULL : boot_alloc(k * n);
	return fails() ? NULL : real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	resolve();
	if (in_boot(p)) {
		void *q = malloc(n);
		if (q)
			memcpy(q, p, n < sizeof boot ? n : sizeof boot);
		return q;
	}
	return fails() ? NULL : real_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n)
{
	if (n && k > (size_t)-1 / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, k * n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	return fails() ? ENOMEM : real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	return fails() ? NULL : real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n)
{
	resolve();
	return fails() ? NULL : real_memalign(align, n);
}

void *valloc(size_t n)
{
	return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

void free(void *p)
{
	static void (*real_free)(void *);
	if (!p || in_boot(p))
		return;
	if (!real_free)
		real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_free(p);
}
