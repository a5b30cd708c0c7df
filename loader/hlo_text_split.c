/* hlo_text_split.c - a big module's text read by two threads.
 *
 * XLA writes a module as computations one after another, each closed by a
 * line "}" at the line's start.  When a module's text is large
 * (hlo_text_set_split_min, 8 MB by default) and the file holds one module,
 * hp_split_start cuts it at such a line near the middle: a thread reads
 * the second half into a parser state and arena of its own while the
 * caller reads the first half; hp_split_finish joins it and appends what
 * it read, numbered as a whole read numbers it (computation ids and
 * instruction ids go on from the first half's), so the module is the same
 * byte for byte.  Calls the second half makes to the first are resolved by
 * name at the module's end, as every forward call is.
 *
 * Anything unusual (a read error in either half, a name or an ENTRY found
 * in both halves, a half that does not end where it should, a thread that
 * cannot start) gives up the split: hp_split_finish says to read the whole
 * text again in one piece (p->split_retry), which then gives the error
 * and its place exactly as they are without threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo_parse.h"

static size_t split_min = 8u << 20;

void hlo_text_set_split_min(size_t bytes)
{
	split_min = bytes;
}

struct hp_split {
	pthread_t thread;
	hp w;                      /* the second half's parser */
	hs_arena arena;            /* what it read */
	hs_error err;
	size_t at, end;            /* its bytes */
	int rc;
	_Atomic int halt;          /* the first half failed: stop */
};

/* Where the second half starts: the first byte of a line that opens a
 * computation after a line "}" (a comment may follow it), at or after the
 * middle of [from, n); 0 when there is none or a module starts there.  (A
 * file of several modules: the half stops at the next one, which gives up
 * the split.) */
static size_t split_point(const char *t, size_t from, size_t n)
{
	const char *end = t + n;
	for (const char *s = t + from + (n - from) / 2; s < end && (s = memmem(s, (size_t)(end - s), "\n}", 2));
	     s += 2) {
		const char *e = s + 2;
		while (e < end && (*e == ' ' || *e == '\t' || *e == '\r'))
			e++;
		if (e < end && *e == '/' && e + 1 < end && e[1] == '/')
			e = memchr(e, '\n', (size_t)(end - e));
		if (!e || e >= end || *e != '\n')
			continue;
		const char *q = e;
		while (q < end && (*q == '\n' || *q == '\r'))
			q++;
		if (q >= end)
			return 0;
		if (*q == ' ' || *q == '\t' || *q == '}' || *q == '/')
			continue;
		if ((size_t)(end - q) >= 9 && memcmp(q, "HloModule", 9) == 0)
			return 0;
		/* a second module after it shows when the half meets it (no scan
		 * here: it would bring the whole half's pages in at once) */
		return (size_t)(q - t);
	}
	return 0;
}

static void *read_half(void *arg)
{
	struct hp_split *s = arg;
	hp *w = &s->w;
	hlo_lex_init(&w->lx, w->lx.buf, s->end);
	hlo_lex_seek(&w->lx, s->at);
	/* madvise wants a page's start: the half gives back from the first
	 * page wholly its own */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	w->released = (s->at + page - 1) & ~(page - 1);
	hp_next(w);
	hp_reset_module(w);
	s->rc = 0;
	while (!s->rc && w->tok.kind != HT_EOF && !hp_is_word(w, "HloModule"))
		s->rc = hp_module_item(w);
	if (!s->rc && (w->failed || w->tok.kind != HT_EOF))
		s->rc = -1;
	hp_release_text(w, 1);
	return NULL;
}

void hp_split_start(hp *p)
{
	size_t n = p->lx.n, from = p->tok.pos;
	if (p->no_split || !split_min || n - from < split_min || p->split)
		return;
	size_t at = split_point(p->lx.buf, from, n);
	if (!at)
		return;
	struct hp_split *s = calloc(1, sizeof *s);
	if (!s)
		return;        /* read in one piece */
	s->at = at;
	s->end = n;
	s->w.file = p->file;
	s->w.f = p->f;
	s->w.a = &s->arena;
	s->w.err = &s->err;
	s->w.comp_names.comps = 1;
	s->w.lx.buf = p->lx.buf;
	s->w.halt = &s->halt;
	if (pthread_create(&s->thread, NULL, read_half, s) != 0) {
		free(s);
		return;
	}
	p->split = s;
	p->lx.n = at;      /* the first half ends there */
}

/* Appends the second half's computations to p's: -1 when they cannot be
 * (a name or ENTRY in both halves, out of memory). */
static int merge(hp *p, hp *w)
{
	int64_t c0 = (int64_t)p->comps.n, i0 = p->next_instr_id;
	if (p->entry_line && w->entry_line)
		return -1;
	if (hs_vec_reserve(&p->comps, p->comps.n + w->comps.n) != 0)
		return -1;
	for (size_t c = 0; c < w->comps.n; c++) {
		hm_comp *cp = &w->comps.v[c];
		if (hp_names_find(p, &p->comp_names, cp->name, strlen(cp->name)) >= 0)
			return -1;
		cp->id += c0;
		cp->root_id += i0;
		for (int i = 0; i < cp->n_instrs; i++) {
			hm_instr *in = &cp->instrs[i];
			in->id += i0;
			for (int k = 0; k < in->n_operands; k++)
				in->operand_ids[k] += i0;
			for (int k = 0; k < in->n_called; k++)
				if (in->called_ids[k] >= 0)   /* resolved in the half */
					in->called_ids[k] += c0;
			if (in->x)
				for (int k = 0; k < in->x->n_control_predecessors; k++)
					in->x->control_predecessor_ids[k] += i0;
		}
		p->comps.v[p->comps.n++] = *cp;
		if (hp_names_add(p, &p->comp_names, cp->name, strlen(cp->name), (int)(c0 + (int64_t)c)) != 0)
			return -1;
	}
	if (hs_vec_append(&p->comp_lines, w->comp_lines.v, w->comp_lines.n) != 0)
		return -1;
	/* calls and frame references name their computation by index */
	size_t calls0 = p->calls.n, refs0 = p->frame_refs.n;
	if (hs_vec_append(&p->calls, w->calls.v, w->calls.n) != 0 ||
	    hs_vec_append(&p->frame_refs, w->frame_refs.v, w->frame_refs.n) != 0 ||
	    hs_vec_append(&p->st.file_names, w->st.file_names.v, w->st.file_names.n) != 0 ||
	    hs_vec_append(&p->st.locations, w->st.locations.v, w->st.locations.n) != 0 ||
	    hs_vec_append(&p->st.frames, w->st.frames.v, w->st.frames.n) != 0)
		return -1;
	for (size_t i = calls0; i < p->calls.n; i++)
		p->calls.v[i].comp += (int)c0;
	for (size_t i = refs0; i < p->frame_refs.n; i++)
		p->frame_refs.v[i].comp += (int)c0;
	if (!p->entry_line)
		p->entry_line = w->entry_line;
	p->next_instr_id += w->next_instr_id;
	return p->failed ? -1 : 0;
}

int hp_split_finish(hp *p, int rc)
{
	struct hp_split *s = p->split;
	if (!s)
		return rc;
	if (rc || p->failed)
		s->halt = 1;      /* its work is wasted: stop it soon */
	hp_release_text(p, 1);
	pthread_join(s->thread, NULL);
	p->split = NULL;
	if (!rc && !s->rc && !p->failed && p->tok.kind == HT_EOF && merge(p, &s->w) == 0) {
		hs_arena_merge(p->a, &s->arena);
		/* the whole text read: the cursor where the second half ended */
		p->lx = s->w.lx;
		p->tok = s->w.tok;
		p->released = s->w.released;   /* the second half gave back its own */
		rc = 0;
	} else {
		p->split_retry = 1;
		rc = -1;
	}
	hp_free_scratch(&s->w);
	hs_arena_free(&s->arena);
	free(s);
	return rc;
}
