#include "csv.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* A comma, a quote, a control character (CR, LF, TAB, ESC, ...: C0 or DEL),
 * or a space first or last. */
static int needs_quotes(const char *s, size_t n)
{
	if (s[0] == ' ' || s[n - 1] == ' ')
		return 1;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == ',' || *p == '"' || *p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

void csv_write_field(FILE *out, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n)
		return;
	if (!needs_quotes(s, n)) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Ends the current field with a NUL; the next one's start offset in buf
 * goes on the list. */
static int end_field(struct hs_strbuf *buf, size_t *starts, size_t *ns, size_t cap)
{
	if (*ns >= cap)
		return -1;
	starts[(*ns)++] = buf->len + 1;      /* the next field starts after the NUL */
	hs_strbuf_putc(buf, '\0');
	return buf->failed ? -1 : 0;
}

int csv_read_record(const char *text, size_t n, size_t *pos, csv_fields *fields, struct hs_strbuf *buf,
		    int *lines, const char **what)
{
	size_t i = *pos, cap = 16, ns = 1;
	size_t *starts = malloc(cap * sizeof *starts);
	int rc = -1;
	*what = "out of memory";
	if (!starts)
		return -1;
	if (i >= n) {
		free(starts);
		return 0;
	}
	hs_strbuf_reset(buf);
	hs_strbuf_putc(buf, '\0');           /* fields start at offset 1 */
	starts[0] = 1;
	for (;;) {
		if (ns + 1 >= cap) {
			size_t *ns2 = realloc(starts, cap * 2 * sizeof *starts);
			if (!ns2)
				goto done;
			starts = ns2;
			cap *= 2;
		}
		if (i < n && text[i] == '"') {
			for (i++;; i++) {
				if (i >= n) {
					*what = "an unclosed quote";
					goto done;
				}
				if (text[i] == '"') {
					if (i + 1 < n && text[i + 1] == '"') {
						hs_strbuf_putc(buf, '"');
						i++;
						continue;
					}
					i++;
					break;
				}
				if (text[i] == '\n')
					(*lines)++;
				hs_strbuf_putc(buf, text[i]);
			}
			if (i < n && text[i] != ',' && text[i] != '\n' && !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
				*what = "text after a closing quote";
				goto done;
			}
		} else {
			while (i < n && text[i] != ',' && text[i] != '\n' &&
			       !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n'))
				hs_strbuf_putc(buf, text[i++]);
		}
		if (end_field(buf, starts, &ns, cap) != 0)
			goto done;
		if (i < n && text[i] == ',') {
			i++;
			continue;
		}
		if (i < n && text[i] == '\r')
			i++;
		if (i < n && text[i] == '\n') {
			i++;
			(*lines)++;
		}
		break;
	}
	/* ns - 1 fields: starts[0 .. ns - 2] */
	fields->n = 0;
	if (fields->cap < ns) {
		char **v = realloc(fields->v, ns * sizeof *v);
		if (!v)
			goto done;
		fields->v = v;
		fields->cap = ns;
	}
	for (size_t k = 0; k + 1 < ns; k++)
		fields->v[fields->n++] = buf->s + starts[k];
	*pos = i;
	rc = 1;
done:
	free(starts);
	return rc;
}

void csv_fields_free(csv_fields *f)
{
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}
