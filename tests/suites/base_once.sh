#!/bin/sh
# base_once: the basics of base/ exist once.  Each rule below finds a copy
# that was once written outside base/ (a clock, a comparator, a generator, a
# JSON escaper, a CSV quoter, a terminal escaper (issue 28), a hash table
# probing slots of its own and a number with its unit written by hand (issue
# 29), a vector grown by an element size its caller passes: issue 25's overflow; issue 23's FNV-1a hashes, printf appenders, a
# second arena, temporary files renamed into place, caret formatters, folder
# walkers, file-stem helpers; issue 28's files written in place, fopen "w"
# or O_CREAT, which replaced devices and inputs, and glibc's unbounded
# regcomp in four places) or an allocation failure
# reported as something other than HS_ENOMEM; a hit is a FAIL naming the
# file and line, to be
# replaced by a call into base/.  The rules also run on a made-up tree with
# one copy of each, so that they are seen to fail.
#
# pass: release (reads the source tree; runs no binary a sanitizer could watch)
. tests/lib.sh

# rules DIR: "FILE:LINE: what" for every copy under DIR (nothing when clean).
rules() {
	(cd "$1" && find . -path ./build -prune -o -path './.*' -prune -o -path ./base -prune -o \
		-type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort |
		xargs -r awk -v sq="'" '
		BEGIN { quote_if = "if \\(\\*s == " sq "\"" sq "\\)"; put_quote = "fputc\\(" sq "\"" sq ", " }
		FNR == 1 { quote = 0; cmp = 0; prev = ""; sig = "" }
		function hit(why, line) { print FILENAME ":" (line ? line : FNR) ": " why " (use base/)" }
		FNR == 1 { lib = FILENAME !~ /^tests\// }
		/^[A-Za-z_][A-Za-z0-9_ *]*\(/ { sig = $0 }
		lib && /(1099511628211|0x100000001b3|16777619)/ && ($0 ~ /\^/ || prev ~ /\^=/) {
			hit("an FNV-1a hash: base/hash.h")
		}
		lib && /vsnprintf\([^;]*\+/ { hit("a printf appender: base/strbuf.h") }
		lib && /_Alignas\([0-9]+\) unsigned char [a-z_]+\[\];/ { hit("an arena: base/arena.h") }
		lib && /mkstemp\(/ { hit("a temporary file renamed into place: base/afile.h") }
		lib && /fopen\([^;]*"w/ && $0 !~ /"\/dev\/null"/ { hit("a file written in place: base/afile.h") }
		lib && /O_CREAT/ && $0 !~ /O_APPEND/ { hit("a file written in place: base/afile.h") }
		lib && /\^\\n"/ && $0 !~ /^[ \t]*(\/\*|\*)/ { hit("a caret formatter: base/caret.h") }
		lib && /opendir\(/ && sig ~ /depth/ { hit("a folder walker: base/walk.h") }
		lib && /^(static )?(const )?char \*[a-z_]*stem\(/ { hit("a file-stem helper: base/path.h") }
		lib && /(regcomp|regexec|pcre2_compile|pcre2_match)(_8)?\(/ {
			hit("a regular expression matcher: base/regex.h")
		}
		/clock_gettime\(/ { hit("a clock: base/clock.h") }
		/=[ \t]*\*\(const (int64_t|double) \*\)[a-z]+, [a-z]+ = \*\(const (int64_t|double) \*\)[a-z]+;/ {
			cmp = FNR
		}
		/return \([a-z] > [a-z]\) - \([a-z] < [a-z]\);/ && cmp && FNR - cmp <= 2 {
			hit("a qsort comparator of a plain type: base/cmp.h", cmp)
		}
		/0xbf58476d1ce4e5b9/ { hit("a splitmix64 generator: base/rng.h") }
		/\\\\u%04x/ { hit("a JSON string escaper: base/jsonw.h") }
		/\\\\x%0?2[xX]/ { hit("a terminal escaper: base/escape.h") }
		$0 ~ quote_if { quote = FNR }
		$0 ~ put_quote && quote && FNR == quote + 1 { hit("a CSV quote doubler: base/csv.h") }
		/realloc\([^;]*\* *elem[^A-Za-z0-9_]/ {
			hit("a vector grown by an element size its caller passes: base/vec.h")
		}
		/[a-z_]+ = \([a-z_]+ \+ 1\) & / { hit("a hash table probing slots of its own: base/index.h") }
		lib && (/%[-+ #0-9.*]*(l?l?[dfgeu]|zu) ?(ns|us|ms|s|kB|MB|GB|TB|KiB|MiB|GiB|[kMGTP]?FLOP)"/ ||
			/"(KiB|MiB|GiB|kB|MB|GB)"/) { hit("a number with its unit written by hand: base/units.h") }
		/(hs_fail|hs_vfail)\([^,]+, HS_E(DATA|USAGE),.*out of memory/ {
			hit("an allocation failure that is not HS_ENOMEM: base/error.h")
		}
		{ prev = $0 }
		')
}

S="$T/tree"
mkdir -p "$S/base" "$S/model" "$S/tui" "$S/query" "$S/loader" "$S/build/release"
cat >"$S/model/train.c" <<'EOF'
static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return 0; }
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	snprintf(buf, cap, "%.3f ms", seconds * 1e3);
	static const char *const unit[] = {"B", "KiB", "MiB"};
	return hs_fail(err, HS_EDATA, "%s: a header of %zu bytes", path, n); /* a count: no unit to show */
EOF
cat >"$S/loader/text.c" <<'EOF'
		void *nv = cap <= SIZE_MAX / elem ? realloc(v->v, cap * elem) : NULL;
EOF
cat >"$S/query/print.c" <<'EOF'
			if (c < 0x20) fprintf(out, "\\u%04x", c);
			if (c < 0x20 || c == 0x7f) fprintf(out, "\\x%02x", c);
		return hs_fail(err, HS_EDATA, "%s: out of memory", path);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
EOF
cat >"$S/tui/table.c" <<'EOF'
		i = (i + 1) & (t->cap - 1);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
EOF
cat >"$S/query/kit.c" <<'EOF'
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
		h ^= b[i];
		h *= 16777619u;
	.g = hs_splitmix_seed(o->seed * 0x100000001b3ULL + (uint64_t)kind),
	int k = vsnprintf(b->s ? b->s + b->n : NULL, b->cap - b->n, fmt, ap);
	_Alignas(16) unsigned char data[];
	fd = mkstemp(tmp);
	return snprintf(buf, cap, "  %s\n  %*s^\n", w->text, w->col - 1, "");
/* "MSG\n  LINE\n  ^\n" in a comment is no copy */
static int check_path(const char *path, int depth, int *files)
{
	DIR *d = opendir(path);
}
static int list_completions(const char *dir)
{
	DIR *d = opendir(dir);
}
static char *stem(const char *path)
	FILE *f = fopen(path, "w");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	t->devnull_out = fopen("/dev/null", "w");
	int fd = open(h->path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	int rc = regcomp(re, lit->str, REG_EXTENDED | REG_NOSUB);
EOF
printf 'clock_gettime(CLOCK_MONOTONIC, &ts);\n' >"$S/base/clock.c"
printf 'clock_gettime(CLOCK_MONOTONIC, &ts);\n' >"$S/build/release/x.c"
rules "$S" >"$T/made_up"
cat >"$T/made_up.want" <<'EOF'
loader/text.c:1: a vector grown by an element size its caller passes: base/vec.h (use base/)
model/train.c:1: a clock: base/clock.h (use base/)
model/train.c:4: a qsort comparator of a plain type: base/cmp.h (use base/)
model/train.c:7: a splitmix64 generator: base/rng.h (use base/)
model/train.c:9: a number with its unit written by hand: base/units.h (use base/)
model/train.c:10: a number with its unit written by hand: base/units.h (use base/)
query/kit.c:1: an FNV-1a hash: base/hash.h (use base/)
query/kit.c:3: an FNV-1a hash: base/hash.h (use base/)
query/kit.c:5: a printf appender: base/strbuf.h (use base/)
query/kit.c:6: an arena: base/arena.h (use base/)
query/kit.c:7: a temporary file renamed into place: base/afile.h (use base/)
query/kit.c:8: a caret formatter: base/caret.h (use base/)
query/kit.c:12: a folder walker: base/walk.h (use base/)
query/kit.c:18: a file-stem helper: base/path.h (use base/)
query/kit.c:19: a file written in place: base/afile.h (use base/)
query/kit.c:20: a file written in place: base/afile.h (use base/)
query/kit.c:23: a regular expression matcher: base/regex.h (use base/)
query/print.c:1: a JSON string escaper: base/jsonw.h (use base/)
query/print.c:2: a terminal escaper: base/escape.h (use base/)
query/print.c:3: an allocation failure that is not HS_ENOMEM: base/error.h (use base/)
tui/table.c:1: a hash table probing slots of its own: base/index.h (use base/)
tui/table.c:4: a CSV quote doubler: base/csv.h (use base/)
EOF
if diff "$T/made_up.want" "$T/made_up" >"$T/made_up.diff"; then
	ok "base_once: the rules find the 21 copies of a made-up tree"
else
	bad "base_once: rules on a made-up tree" "$(tr '\n' '|' <"$T/made_up.diff")"
fi

# Copies in files others were changing while issue 23's kit was built: the
# lead (loader speed; the model files after issue 24) replaces them (the
# session part's, in tui/table_rows.c, are base/hash.h's now).  Each line goes with its copy; a copy of
# another kind in these files, or a new one anywhere, still fails.
PENDING=''

rules "$ROOT" | awk -v pending="$PENDING" '
	BEGIN { n = split(pending, p, "\n"); for (i = 1; i <= n; i++) want[p[i]] = 1 }
	{ key = $0; sub(/:[0-9]+: /, ": ", key); sub(/: base\/.*$/, "", key) }
	key in want { print > "/dev/stderr"; next }
	{ print }' >"$T/real" 2>"$T/pending"
if [ -s "$T/real" ]; then
	while IFS= read -r line; do
		bad "base_once" "$line"
	done <"$T/real"
else
	ok "base_once: no clock, comparator, generator, hash table, number with its unit by hand, JSON escaper, CSV quoter, terminal escaper, untyped vector, FNV-1a hash, printf appender, arena, temporary file renamed into place, file written in place, caret formatter, folder walker file stem or regular expression matcher outside base/, no out of memory but HS_ENOMEM ($(wc -l <"$T/pending") copies pending in files of the lead and the session part)"
fi
exit 0
