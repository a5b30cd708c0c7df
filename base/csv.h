/* csv.h - CSV as RFC 4180 writes it: writing fields (query --csv, the
 * explorer's :write) and reading records (data files laid over a graph). */
#ifndef HS_CSV_H
#define HS_CSV_H

#include <stdio.h>

/* Writes s as one field: as it is, or in double quotes with every quote
 * doubled when it holds a comma, a quote or a control character (CR, LF,
 * TAB, ESC, ...: 0x00-0x1f, 0x7f), or starts or ends with a space (which a
 * reader might trim).  The bytes are kept exactly (CSV is data: nothing is
 * escaped for a terminal, see base/escape.h).  NULL writes an empty field. */
void csv_write_field(FILE *out, const char *s);

/* Reads the record that starts at text[*pos] (of n bytes): its fields,
 * each terminated, go into *fields (a vector of strings pointing into
 * *buf, which it reuses); *pos moves past the record's line end (LF or
 * CRLF).  A quoted field may hold commas, quotes ("" for one) and line
 * ends; *lines counts the line ends consumed (for messages).  Returns 1
 * for a record, 0 at the end of the text, -1 on a malformed record
 * (*what says why: "an unclosed quote", "text after a closing quote") or
 * out of memory (*what "out of memory"). */
#include <stddef.h>
struct hs_strbuf;
typedef struct csv_fields {
	char **v;
	size_t n, cap;
} csv_fields;
int csv_read_record(const char *text, size_t n, size_t *pos, csv_fields *fields, struct hs_strbuf *buf,
		    int *lines, const char **what);
void csv_fields_free(csv_fields *f);

#endif
