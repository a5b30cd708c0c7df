/* hlo_mutate.h - structure-aware mutations of HLO text for libFuzzer
 * (LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver of fuzz_hlo_text.c).
 *
 * Byte-level mutations rarely turn one valid module into another: they break
 * a bracket or a name long before they reach a new grammar path.  These
 * edits keep the text well formed while changing its structure, in the ways
 * that found (or would have found) the reader's bugs:
 *   - repeat an element of a bracketed list: long slices, deep layouts, many
 *     operands, big replica groups (a slice of 6+ dimensions after an
 *     integer list overflowed a scratch vector, issue 25);
 *   - copy an attribute from one instruction to another, or replace one
 *     there: attributes on opcodes that never carry them;
 *   - duplicate a computation under a new name (ENTRY dropped in the copy);
 *   - nest an instruction's shape in a tuple;
 *   - append an attribute from a table of whole attributes;
 *   - (cross-over) splice a computation or an instruction line of another
 *     input in at a line start.
 * Half of the mutations are libFuzzer's own (LLVMFuzzerMutate, with the
 * dictionary).  Compiled with -DHLO_FUZZ_PLAIN the target has neither hook
 * (libFuzzer's own mutations and cross-over only), to measure what they add
 * (tests/fuzz/README.md has the numbers).
 *
 * Every function works on a copy in a scratch buffer of max_size bytes and
 * gives up (returns 0) rather than exceed it.
 */
#ifndef HS_FUZZ_HLO_MUTATE_H
#define HS_FUZZ_HLO_MUTATE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
				 uint8_t *out, size_t max_out, unsigned int seed);

typedef struct hm_span { size_t a, b; } hm_span; /* bytes [a, b) */

/* Replaces d[a, b) (of *n bytes, room for max) with r[0, rn). */
static int mu_splice(uint8_t *d, size_t *n, size_t max, size_t a, size_t b, const uint8_t *r,
		     size_t rn)
{
	if (a > b || b > *n || *n - (b - a) > max - rn)
		return -1;
	memmove(d + a + rn, d + b, *n - b);
	if (rn)
		memcpy(d + a, r, rn);
	*n = *n - (b - a) + rn;
	return 0;
}

static int mu_is_open(uint8_t c) { return c == '{' || c == '[' || c == '('; }
static int mu_is_close(uint8_t c) { return c == '}' || c == ']' || c == ')'; }

/* The byte after the string that opens at d[i] == '"', or n. */
static size_t mu_skip_string(const uint8_t *d, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (d[i] == '\\')
			i++;
		else if (d[i] == '"')
			return i + 1;
	}
	return n;
}

/* Index of the bracket closing the one at d[open], or n. */
static size_t mu_match(const uint8_t *d, size_t n, size_t open)
{
	int depth = 0;
	for (size_t i = open; i < n;) {
		if (d[i] == '"') {
			i = mu_skip_string(d, n, i);
			continue;
		}
		if (mu_is_open(d[i]))
			depth++;
		else if (mu_is_close(d[i]) && --depth == 0)
			return i;
		if (d[i] == '\n' && d[open] != '{')
			return n;      /* lists of () and [] are on one line */
		i++;
	}
	return n;
}

/* The top-level items of the list between brackets at open and close. */
static size_t mu_items(const uint8_t *d, size_t open, size_t close, hm_span *it, size_t max)
{
	size_t k = 0, start = open + 1;
	int depth = 0;
	for (size_t i = open + 1; i < close && k < max;) {
		if (d[i] == '"') {
			i = mu_skip_string(d, close, i);
			continue;
		}
		if (mu_is_open(d[i]))
			depth++;
		else if (mu_is_close(d[i]))
			depth--;
		else if (d[i] == ',' && depth == 0) {
			it[k++] = (hm_span){start, i};
			start = i + 1;
		}
		i++;
	}
	if (k < max && start < close)
		it[k++] = (hm_span){start, close};
	return k;
}

/* A random position, then the first byte at or after it (wrapping) for
 * which ok() holds; n when there is none. */
static size_t mu_find(const uint8_t *d, size_t n, hs_splitmix *r, int (*ok)(const uint8_t *, size_t, size_t))
{
	if (!n)
		return n;
	size_t s = (size_t)hs_splitmix_below(r, n);
	for (size_t k = 0; k < n; k++) {
		size_t i = (s + k) % n;
		if (ok(d, n, i))
			return i;
	}
	return n;
}

static int mu_at_open(const uint8_t *d, size_t n, size_t i) { (void)n; return mu_is_open(d[i]); }
static int mu_at_line(const uint8_t *d, size_t n, size_t i) { (void)n; return i == 0 || d[i - 1] == '\n'; }

/* The line around byte i: [a, b) without its newline. */
static hm_span mu_line(const uint8_t *d, size_t n, size_t i)
{
	size_t a = i, b = i;
	while (a > 0 && d[a - 1] != '\n')
		a--;
	while (b < n && d[b] != '\n')
		b++;
	return (hm_span){a, b};
}

/* An instruction line: "name = shape opcode(...)...". */
static int mu_is_instr(const uint8_t *d, size_t n, size_t i)
{
	if (!mu_at_line(d, n, i))
		return 0;
	hm_span l = mu_line(d, n, i);
	const uint8_t *eq = memchr(d + l.a, '=', l.b - l.a);
	return eq && eq > d + l.a && eq + 2 < d + l.b && eq[-1] == ' ' && eq[1] == ' ' &&
	       memchr(d + l.a, '(', l.b - l.a);
}

/* A computation's first line: ends in '{' and is not an instruction. */
static int mu_is_comp(const uint8_t *d, size_t n, size_t i)
{
	if (!mu_at_line(d, n, i))
		return 0;
	hm_span l = mu_line(d, n, i);
	size_t b = l.b;
	while (b > l.a && (d[b - 1] == ' ' || d[b - 1] == '\r'))
		b--;
	return b > l.a && d[b - 1] == '{' && !mu_is_instr(d, n, i) && d[l.a] != ' ';
}

/* The attributes of the instruction line l: ", name=value" at depth 0. */
static size_t mu_attrs(const uint8_t *d, hm_span l, hm_span *at, size_t max)
{
	size_t k = 0;
	int depth = 0;
	for (size_t i = l.a; i < l.b;) {
		if (d[i] == '"') {
			i = mu_skip_string(d, l.b, i);
			continue;
		}
		if (mu_is_open(d[i]))
			depth++;
		else if (mu_is_close(d[i]))
			depth--;
		else if (d[i] == ',' && depth == 0) {
			if (k)
				at[k - 1].b = i;
			if (k < max)
				at[k++] = (hm_span){i, l.b};
		}
		i++;
	}
	return k;
}

/* 1. One element of a bracketed list, repeated 1, 2, 5 or 9 times. */
static int mu_repeat_item(uint8_t *d, size_t *n, size_t max, hs_splitmix *r)
{
	static const int times[] = {1, 2, 5, 9};
	hm_span it[64];
	size_t open = mu_find(d, *n, r, mu_at_open);
	if (open == *n)
		return -1;
	size_t close = mu_match(d, *n, open);
	if (close == *n)
		return -1;
	size_t k = mu_items(d, open, close, it, 64);
	if (!k)
		return -1;
	hm_span s = it[hs_splitmix_below(r, k)];
	int t = times[hs_splitmix_below(r, 4)];
	int sp = d[s.a] == ' ';           /* items after the first: " x" */
	size_t len = s.b - s.a, piece = len + (sp ? 1 : 2), add = piece * (size_t)t;
	if (add > max - *n)
		return -1;
	uint8_t *tmp = malloc(add ? add : 1);
	if (!tmp)
		return -1;
	for (size_t j = 0, o = 0; j < (size_t)t; j++) {
		tmp[o++] = ',';
		if (!sp)
			tmp[o++] = ' ';
		memcpy(tmp + o, d + s.a, len);
		o += len;
	}
	int rc = mu_splice(d, n, max, s.b, s.b, tmp, add);
	free(tmp);
	return rc;
}

/* 2. An attribute of one instruction given to another (appended, or in
 * place of one of its own). */
static int mu_move_attr(uint8_t *d, size_t *n, size_t max, hs_splitmix *r)
{
	hm_span from[32], to[32];
	size_t i = mu_find(d, *n, r, mu_is_instr), j = mu_find(d, *n, r, mu_is_instr);
	if (i == *n || j == *n)
		return -1;
	hm_span li = mu_line(d, *n, i), lj = mu_line(d, *n, j);
	size_t ki = mu_attrs(d, li, from, 32), kj = mu_attrs(d, lj, to, 32);
	if (!ki)
		return -1;
	hm_span a = from[hs_splitmix_below(r, ki)];
	size_t len = a.b - a.a;
	uint8_t *tmp = malloc(len ? len : 1);
	if (!tmp)
		return -1;
	memcpy(tmp, d + a.a, len);
	int rc;
	if (kj && hs_splitmix_below(r, 2)) {
		hm_span b = to[hs_splitmix_below(r, kj)];
		rc = mu_splice(d, n, max, b.a, b.b, tmp, len);
	} else {
		rc = mu_splice(d, n, max, lj.b, lj.b, tmp, len);
	}
	free(tmp);
	return rc;
}

/* 3. A computation copied before itself under a new name, without ENTRY. */
static int mu_dup_comp(uint8_t *d, size_t *n, size_t max, hs_splitmix *r)
{
	size_t c = mu_find(d, *n, r, mu_is_comp);
	if (c == *n)
		return -1;
	size_t end = c;
	while (end < *n && !(mu_at_line(d, *n, end) && d[end] == '}'))
		end++;
	end = mu_line(d, *n, end).b;
	if (end < *n)
		end++;
	size_t a = c;
	if (end - c > 7 && memcmp(d + c, "ENTRY ", 6) == 0)
		a += 6;
	size_t name_end = a;
	while (name_end < end && d[name_end] != ' ' && d[name_end] != '(' && d[name_end] != '{')
		name_end++;
	char suffix[24];
	int sl = snprintf(suffix, sizeof suffix, ".dup%u", (unsigned)hs_splitmix_below(r, 1000));
	size_t len = (end - a) + (size_t)sl;
	if (len > max - *n)
		return -1;
	uint8_t *tmp = malloc(len);
	if (!tmp)
		return -1;
	memcpy(tmp, d + a, name_end - a);
	memcpy(tmp + (name_end - a), suffix, (size_t)sl);
	memcpy(tmp + (name_end - a) + (size_t)sl, d + name_end, end - name_end);
	int rc = mu_splice(d, n, max, c, c, tmp, len);
	free(tmp);
	return rc;
}

/* 4. An instruction's shape S becomes (S), (S, S) or ((S), S). */
static int mu_nest_tuple(uint8_t *d, size_t *n, size_t max, hs_splitmix *r)
{
	size_t i = mu_find(d, *n, r, mu_is_instr);
	if (i == *n)
		return -1;
	hm_span l = mu_line(d, *n, i);
	const uint8_t *eq = memchr(d + l.a, '=', l.b - l.a);
	size_t a = (size_t)(eq - d) + 2, b;
	if (a >= l.b)
		return -1;
	if (d[a] == '(') {
		b = mu_match(d, l.b, a);
		if (b >= l.b)
			return -1;
		b++;
	} else {
		b = a;
		int depth = 0;
		while (b < l.b && (depth || d[b] != ' ')) {
			depth += mu_is_open(d[b]) - mu_is_close(d[b]);
			b++;
		}
	}
	size_t len = b - a, form = (size_t)hs_splitmix_below(r, 3);
	size_t out = form == 0 ? len + 2 : form == 1 ? 2 * len + 4 : 2 * len + 6;
	if (out > max - *n + len)
		return -1;
	uint8_t *tmp = malloc(out);
	if (!tmp)
		return -1;
	size_t k = 0;
	tmp[k++] = '(';
	if (form == 2)
		tmp[k++] = '(';
	memcpy(tmp + k, d + a, len);
	k += len;
	if (form == 2)
		tmp[k++] = ')';
	if (form) {
		tmp[k++] = ',';
		tmp[k++] = ' ';
		memcpy(tmp + k, d + a, len);
		k += len;
	}
	tmp[k++] = ')';
	int rc = mu_splice(d, n, max, a, b, tmp, k);
	free(tmp);
	return rc;
}

/* 5. A whole attribute from the grammar appended to an instruction. */
static int mu_add_attr(uint8_t *d, size_t *n, size_t max, hs_splitmix *r)
{
	static const char *const attrs[] = {
		", slice={[0:1], [0:1], [0:1], [0:1], [0:1], [0:1], [0:1:1]}",
		", dimensions={0,1,2,3,4,5,6,7}",
		", window={size=1x1x1x1x1 stride=1x1x1x1x1 pad=0_0x0_0x0_0x0_0x0_0 lhs_dilate=1x1x1x1x1}",
		", dim_labels=b012f_012io->b012f",
		", padding=0_0_0x0_0_0x0_0_0x0_0_0x0_0_0x0_0_0x0_0_0",
		", replica_groups={{0,1,2,3},{4,5,6,7}}",
		", replica_groups=[2,4]<=[8]",
		", channel_id=1",
		", to_apply=%c",
		", calls=%c",
		", index=3",
		", lhs_contracting_dims={1,2,3}, rhs_contracting_dims={0,1,2}, lhs_batch_dims={0}",
		(", metadata={op_type=\"a\\\"b\" op_name=\"jit(f)/x\\'y/z\" source_file=\"a.py\" "
		 "source_line=1 source_end_line=2 source_column=3 source_end_column=4}"),
		", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}",
		", frontend_attributes={_xla_x=\"1\",y=\"{}\"}",
		", backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[]}",
		", control-predecessors={%a}",
		", dynamic_slice_sizes={1,1,1,1,1,1,1}",
		", feature_group_count=1, batch_group_count=1",
		", custom_call_target=\"__cublas$gemm\"",
	};
	size_t i = mu_find(d, *n, r, mu_is_instr);
	if (i == *n)
		return -1;
	hm_span l = mu_line(d, *n, i);
	const char *a = attrs[hs_splitmix_below(r, sizeof attrs / sizeof attrs[0])];
	return mu_splice(d, n, max, l.b, l.b, (const uint8_t *)a, strlen(a));
}

#ifndef HLO_FUZZ_PLAIN
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static int (*const ops[])(uint8_t *, size_t *, size_t, hs_splitmix *) = {
		mu_repeat_item, mu_move_attr, mu_dup_comp, mu_nest_tuple, mu_add_attr,
	};
	hs_splitmix r = hs_splitmix_seed(seed);
	if (size <= max_size && hs_splitmix_below(&r, 2)) {
		size_t n = size;
		if (ops[hs_splitmix_below(&r, sizeof ops / sizeof ops[0])](data, &n, max_size, &r) == 0)
			return n;
	}
	return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
}

/* A computation (or an instruction line) of d2 spliced into d1 at a line
 * start. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
				 uint8_t *out, size_t max_out, unsigned int seed)
{
	hs_splitmix r = hs_splitmix_seed(seed);
	if (n1 > max_out)
		return 0;
	memcpy(out, d1, n1);
	size_t c = mu_find(d2, n2, &r, hs_splitmix_below(&r, 2) ? mu_is_comp : mu_is_instr);
	if (c == n2)
		return 0;
	size_t end;
	if (mu_is_comp(d2, n2, c)) {
		end = c;
		while (end < n2 && !(mu_at_line(d2, n2, end) && d2[end] == '}'))
			end++;
	} else {
		end = c;
	}
	end = mu_line(d2, n2, end).b;
	if (end < n2)
		end++;
	size_t at = mu_find(out, n1, &r, mu_at_line), n = n1;
	if (at == n1)
		at = n1;
	if (mu_splice(out, &n, max_out, at, at, d2 + c, end - c) != 0)
		return 0;
	return n;
}

#endif

#endif
