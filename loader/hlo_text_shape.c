/* hlo_text_shape.c - shapes and layouts of HLO text (see hlo_text.h for the
 * grammar): tuples, arrays with dynamic and unbounded dimensions, layouts
 * with a TPU suffix kept as text, and the default layout XLA's parser fills
 * in.  Part of the HLO text parser (hlo_parse.h). */
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "hlo_parse.h"

static int nest(hp *p, const char *what)
{
	if (++p->depth > HLO_TEXT_MAX_DEPTH)
		return hp_fail(p, "%s nested deeper than %d levels", what, HLO_TEXT_MAX_DEPTH);
	return 0;
}

/* Reads "N,N,...N" + `close` byte by byte from the lexer's position into
 * p->ints (and p->dyn when dims: "<=N" and "?" too): the compact form
 * XLA prints, without tokens.  Returns the offset past `close`, or 0 when
 * the text is in any other form (blanks, comments, a layout suffix, a
 * number out of range...): the token path then reads it and reports what
 * is wrong. */
static size_t compact_list(hp *p, char close, int dims)
{
	const char *b = p->lx.buf;
	size_t i = p->lx.pos, n = p->lx.n;
	p->ints.n = p->dyn.n = 0;
	if (i < n && b[i] == close)
		return i + 1;
	for (;;) {
		uint8_t dyn = 0;
		int64_t v = 0;
		if (dims && i + 1 < n && b[i] == '<' && b[i + 1] == '=') {
			dyn = 1;
			i += 2;
		} else if (dims && i < n && b[i] == '?') {
			dyn = 1;
			v = -1;
			i++;
		}
		if (v == 0) {
			size_t start = i;
			while (i < n && b[i] >= '0' && b[i] <= '9' && i - start < 18)
				v = v * 10 + (b[i++] - '0');
			if (i == start || (i < n && b[i] >= '0' && b[i] <= '9'))
				return 0;
		}
		if (p->ints.n >= HLO_TEXT_MAX_RANK || HP_PUSH(p, ints, v) != 0 ||
		    (dims && HP_PUSH(p, dyn, dyn) != 0))
			return 0;
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		return i < n && b[i] == close ? i + 1 : 0;
	}
}

/* '{' [N (',' N)*] [':' text] '}' after an array shape of `rank` dims. */
static int layout(hp *p, hm_shape *out, int rank)
{
	hlo_tok open = p->tok;
	char *extra = NULL;
	size_t end = compact_list(p, '}', 0);

	if (end) {
		p->lx.pos = end;
		hp_next(p);
		goto check;
	}
	hp_next(p);
	p->ints.n = 0;
	while (p->tok.kind == HT_INT) {
		int64_t v;
		if (hp_int(p, &v, "an integer") != 0 || HP_PUSH(p, ints, v) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	if (hp_accept(p, HT_COLON) && p->tok.kind != HT_RBRACE &&
	    hp_raw(p, 0, &extra, "the layout") != 0)
		return -1;
	if (hp_expect(p, HT_RBRACE, "to close the layout") != 0)
		return -1;
check:
	if ((int)p->ints.n != rank)
		return hp_fail_at(p, open.line, open.col, open.pos,
				  "the layout lists %zu dimension%s, the shape has %d",
				  p->ints.n, hs_s(p->ints.n), rank);
	const int64_t *m2m = p->ints.v;
	for (int i = 0; i < rank; i++) {
		int dup = 0;
		for (int j = 0; j < i && rank <= 64; j++)
			dup |= m2m[j] == m2m[i];
		if (m2m[i] < 0 || m2m[i] >= rank || dup)
			return hp_fail_at(p, open.line, open.col, open.pos,
					  "layout is not a permutation of the %d dimensions", rank);
	}
	if (!out)
		return 0;
	out->has_layout = 1;
	out->layout_rank = rank;
	out->minor_to_major = hp_shared_i64(p, p->ints.v, p->ints.n);
	out->layout_extra = extra;
	return rank && !out->minor_to_major ? -1 : 0;
}

/* Is the current '{' a layout?  After a signature's result shape a '{'
 * opens the computation instead, so there only '{N' and '{:' count. */
static int layout_follows(const hp *p)
{
	if (p->tok.kind != HT_LBRACE)
		return 0;
	char c = p->tok.pos + 1 < p->lx.n ? p->lx.buf[p->tok.pos + 1] : 0;
	if (c >= '0' && c <= '9')
		return 1;
	hlo_tok_kind k = hp_peek(p);
	return k == HT_INT || k == HT_COLON || (k == HT_RBRACE && !p->sig_result);
}

/* The dimensions between '[' and ']' (the current token is '[') into
 * p->dims and p->dyn; *any_dynamic tells whether one is dynamic. */
static int dimensions(hp *p, int *any_dynamic)
{
	size_t end = compact_list(p, ']', 1);
	*any_dynamic = 0;
	if (end) {
		/* swap the lists read into their places; no newline crossed */
		hp_vec_i64 t = p->dims;
		p->dims = p->ints;
		p->ints = t;
		for (size_t i = 0; i < p->dyn.n; i++)
			*any_dynamic |= p->dyn.v[i];
		p->lx.pos = end;
		hp_next(p);
		return 0;
	}
	hp_next(p);
	p->dims.n = p->dyn.n = 0;
	while (p->tok.kind != HT_RBRACKET) {
		int64_t d = -1;
		uint8_t dyn = 0;
		hlo_tok at = p->tok;
		if (hp_accept(p, HT_LEQ)) {
			dyn = 1;
			at = p->tok;
			if (hp_int(p, &d, "a dimension bound after '<='") != 0)
				return -1;
		} else if (hp_accept(p, HT_QUESTION)) {
			dyn = 1;
		} else if (hp_int(p, &d, "a dimension") != 0) {
			return -1;
		}
		if (d < 0 && !(dyn && at.kind != HT_INT))
			return hp_fail_at(p, at.line, at.col, at.pos, "a dimension must not be negative");
		if (p->dims.n >= HLO_TEXT_MAX_RANK)
			return hp_fail(p, "shape has more than %d dimensions", HLO_TEXT_MAX_RANK);
		*any_dynamic |= dyn;
		if (HP_PUSH(p, dims, d) != 0 || HP_PUSH(p, dyn, dyn) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACKET, "after the dimensions");
}

/* type '[' [dim (',' dim)*] ']' [layout] */
static int array_shape(hp *p, hm_shape *out)
{
	int type = -1;
	if (p->tok.kind == HT_WORD && !p->tok.pct) {
		/* most shapes repeat the previous one's type: compare with it first */
		if (p->tok.len == p->type_len && p->type_len &&
		    memcmp(p->tok.text, p->type_text, p->type_len) == 0) {
			type = p->type_id;
		} else {
			type = hm_element_type_id(p->tok.text, p->tok.len);
			p->type_text = p->tok.text;
			p->type_len = type > 0 ? p->tok.len : 0;
			p->type_id = type;
		}
	}
	int any_dynamic = 0;

	if (type <= 0 || type == HM_TUPLE)
		return hp_expected(p, "a shape");
	hp_next(p);
	if (p->tok.kind != HT_LBRACKET)
		return hp_expected(p, "'[' after the element type");
	if (dimensions(p, &any_dynamic) != 0)
		return -1;
	int rank = (int)p->dims.n;
	if (out) {
		out->element_type = type;
		out->rank = rank;
		out->dims = hp_shared_i64(p, p->dims.v, p->dims.n);
		out->dynamic = any_dynamic ? hp_arena_copy(p, &p->dyn) : NULL;
		if (rank && (!out->dims || (any_dynamic && !out->dynamic)))
			return -1;
	}
	if (layout_follows(p))
		return layout(p, out, rank);
	if (out && rank > 0 && type != HM_TOKEN && type != HM_OPAQUE) {
		/* XLA's parser fills the default layout: major to minor */
		int64_t small[16];
		int64_t *m2m = rank <= 16 ? small : hs_arena_array(p->a, (size_t)rank, sizeof *m2m);
		if (!m2m)
			return hp_oom(p);
		for (int i = 0; i < rank; i++)
			m2m[i] = rank - 1 - i;
		out->layout_rank = rank;
		out->minor_to_major = m2m == small ? hp_shared_i64(p, m2m, (size_t)rank) : m2m;
		if (!out->minor_to_major)
			return -1;
	}
	return 0;
}

/* '(' [shape (',' shape)*] ')' */
static int tuple_shape(hp *p, hm_shape *out)
{
	HS_VEC(hm_shape) elems = {0};
	int rc = -1;

	if (nest(p, "tuple shapes") != 0)
		return -1;
	int sig = p->sig_result;
	p->sig_result = 0;      /* inside a tuple '{' can only be a layout */
	hp_next(p);
	while (p->tok.kind != HT_RPAREN) {
		hm_shape e = {0};
		if (hp_shape(p, out ? &e : NULL) != 0 ||
		    (out && hp_push(p, &elems, e) != 0))
			goto done;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	if (hp_expect(p, HT_RPAREN, "to close the tuple shape") != 0)
		goto done;
	if (out) {
		out->element_type = HM_TUPLE;
		out->n_tuple = (int)elems.n;
		out->tuple = hp_arena_copy(p, &elems);
		if (elems.n && !out->tuple)
			goto done;
	}
	rc = 0;
done:
	p->sig_result = sig;
	p->depth--;
	free(elems.v);
	return rc;
}

int hp_shape(hp *p, hm_shape *out)
{
	if (p->tok.kind == HT_LPAREN)
		return tuple_shape(p, out);
	return array_shape(p, out);
}
