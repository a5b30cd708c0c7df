/* csv.h - CSV fields as RFC 4180 writes them (query --csv, the explorer's
 * :write). */
#ifndef HS_CSV_H
#define HS_CSV_H

#include <stdio.h>

/* Writes s as one field: as it is, or in double quotes with every quote
 * doubled when it holds a comma, a quote, CR or LF, or starts or ends with
 * a space (which a reader might trim).  NULL writes an empty field. */
void csv_write_field(FILE *out, const char *s);

#endif
