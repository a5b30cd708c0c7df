/* caret.c - see caret.h. */
#include "caret.h"

#include <limits.h>
#include <string.h>

#include "strbuf.h"

int hs_caret(char *buf, size_t cap, const char *line, int column)
{
	hs_strbuf b = hs_strbuf_fixed(buf, cap);

	if (line && column > 0) {
		size_t len = strcspn(line, "\n");
		hs_strbuf_puts(&b, "  ");
		hs_strbuf_putn(&b, line, len);
		hs_strbuf_puts(&b, "\n  ");
		for (size_t i = 0; i + 1 < (size_t)column; i++)
			hs_strbuf_putc(&b, i < len && line[i] == '\t' ? '\t' : ' ');
		hs_strbuf_puts(&b, "^\n");
	}
	return b.len > INT_MAX ? INT_MAX : (int)b.len;
}
