#include "hlo_lex.h"

#include <string.h>

/* Byte classes: word bytes ([A-Za-z0-9_.]; '-' is handled apart) and
 * blanks other than the newline. */
enum { C_WORD = 1, C_BLANK = 2 };
static const unsigned char char_class[256] = {
	['A'] = C_WORD, ['B'] = C_WORD, ['C'] = C_WORD, ['D'] = C_WORD,
	['E'] = C_WORD, ['F'] = C_WORD, ['G'] = C_WORD, ['H'] = C_WORD,
	['I'] = C_WORD, ['J'] = C_WORD, ['K'] = C_WORD, ['L'] = C_WORD,
	['M'] = C_WORD, ['N'] = C_WORD, ['O'] = C_WORD, ['P'] = C_WORD,
	['Q'] = C_WORD, ['R'] = C_WORD, ['S'] = C_WORD, ['T'] = C_WORD,
	['U'] = C_WORD, ['V'] = C_WORD, ['W'] = C_WORD, ['X'] = C_WORD,
	['Y'] = C_WORD, ['Z'] = C_WORD, ['a'] = C_WORD, ['b'] = C_WORD,
	['c'] = C_WORD, ['d'] = C_WORD, ['e'] = C_WORD, ['f'] = C_WORD,
	['g'] = C_WORD, ['h'] = C_WORD, ['i'] = C_WORD, ['j'] = C_WORD,
	['k'] = C_WORD, ['l'] = C_WORD, ['m'] = C_WORD, ['n'] = C_WORD,
	['o'] = C_WORD, ['p'] = C_WORD, ['q'] = C_WORD, ['r'] = C_WORD,
	['s'] = C_WORD, ['t'] = C_WORD, ['u'] = C_WORD, ['v'] = C_WORD,
	['w'] = C_WORD, ['x'] = C_WORD, ['y'] = C_WORD, ['z'] = C_WORD,
	['0'] = C_WORD, ['1'] = C_WORD, ['2'] = C_WORD, ['3'] = C_WORD,
	['4'] = C_WORD, ['5'] = C_WORD, ['6'] = C_WORD, ['7'] = C_WORD,
	['8'] = C_WORD, ['9'] = C_WORD, ['_'] = C_WORD, ['.'] = C_WORD,
	[' '] = C_BLANK, ['\t'] = C_BLANK, ['\r'] = C_BLANK, ['\f'] = C_BLANK, ['\v'] = C_BLANK,
};

static int is_digit(int c) { return (unsigned)(c - '0') < 10; }
static int is_alpha(int c) { return (unsigned)((c | 32) - 'a') < 26; }

/* A word character at offset i: '-' only when no '>' follows. */
static int word_char_at(const hlo_lex *lx, size_t i)
{
	unsigned char c = (unsigned char)lx->buf[i];
	if (char_class[c] & C_WORD)
		return 1;
	return c == '-' && !(i + 1 < lx->n && lx->buf[i + 1] == '>');
}

void hlo_lex_init(hlo_lex *lx, const char *buf, size_t n)
{
	lx->buf = buf;
	lx->n = n;
	lx->pos = 0;
	lx->line = 1;
	lx->line_start = 0;
}

void hlo_lex_seek(hlo_lex *lx, size_t pos)
{
	if (pos > lx->n)
		pos = lx->n;
	while (lx->pos < pos) {
		const char *nl = memchr(lx->buf + lx->pos, '\n', pos - lx->pos);
		if (!nl) {
			lx->pos = pos;
			break;
		}
		lx->pos = (size_t)(nl - lx->buf) + 1;
		lx->line++;
		lx->line_start = lx->pos;
	}
}

/* Skips blanks and comments; returns 0, or -1 at an unterminated comment
 * (the cursor then stays on its first byte). */
static int skip_space(hlo_lex *lx)
{
	for (;;) {
		const unsigned char *b = (const unsigned char *)lx->buf;
		size_t i = lx->pos, n = lx->n;
		for (;;) {
			while (i < n && (char_class[b[i]] & C_BLANK))
				i++;
			if (i >= n || b[i] != '\n')
				break;
			i++;
			lx->line++;
			lx->line_start = i;
		}
		lx->pos = i;
		if (lx->pos + 1 >= lx->n || lx->buf[lx->pos] != '/')
			return 0;
		char c2 = lx->buf[lx->pos + 1];
		if (c2 == '/') {
			const char *nl = memchr(lx->buf + lx->pos, '\n', lx->n - lx->pos);
			lx->pos = nl ? (size_t)(nl - lx->buf) : lx->n;
		} else if (c2 == '*') {
			const char *e = lx->pos + 2 < n
					? memmem(lx->buf + lx->pos + 2, n - lx->pos - 2, "*/", 2) : NULL;
			if (!e)
				return -1;
			hlo_lex_seek(lx, (size_t)(e - lx->buf) + 2);
		} else {
			return 0;
		}
	}
}

/* Length of a number at offset i (0 when none), and whether it is a float. */
static size_t number_len(const hlo_lex *lx, size_t i, int *is_float)
{
	size_t j = i;
	*is_float = 0;
	if (j < lx->n && lx->buf[j] == '-')
		j++;
	if (j >= lx->n || !is_digit((unsigned char)lx->buf[j]))
		return 0;
	while (j < lx->n && is_digit((unsigned char)lx->buf[j]))
		j++;
	if (j + 1 < lx->n && lx->buf[j] == '.' && is_digit((unsigned char)lx->buf[j + 1])) {
		j++;
		while (j < lx->n && is_digit((unsigned char)lx->buf[j]))
			j++;
		*is_float = 1;
	}
	if (j < lx->n && (lx->buf[j] == 'e' || lx->buf[j] == 'E')) {
		size_t k = j + 1;
		if (k < lx->n && (lx->buf[k] == '+' || lx->buf[k] == '-'))
			k++;
		if (k < lx->n && is_digit((unsigned char)lx->buf[k])) {
			while (k < lx->n && is_digit((unsigned char)lx->buf[k]))
				k++;
			j = k;
			*is_float = 1;
		}
	}
	return j - i;
}

/* The end of a string starting at offset i (its opening quote): the offset
 * past the closing quote, or 0 when it is not closed on its line.  A quote
 * ends the string when an even number of backslashes comes before it. */
static size_t string_end(const char *buf, size_t n, size_t i)
{
	size_t j = i + 1;
	for (;;) {
		const char *q = j < n ? memchr(buf + j, '"', n - j) : NULL;
		if (!q)
			return 0;
		size_t k = (size_t)(q - buf);
		if (memchr(buf + j, '\n', k - j))
			return 0;
		size_t b = k;
		while (b > i + 1 && buf[b - 1] == '\\')
			b--;
		if (((k - b) & 1) == 0)
			return k + 1;
		j = k + 1;
	}
}

static hlo_tok_kind punct_kind(int c)
{
	switch (c) {
	case '(': return HT_LPAREN;
	case ')': return HT_RPAREN;
	case '{': return HT_LBRACE;
	case '}': return HT_RBRACE;
	case '[': return HT_LBRACKET;
	case ']': return HT_RBRACKET;
	case ',': return HT_COMMA;
	case '=': return HT_EQUAL;
	case ':': return HT_COLON;
	case '?': return HT_QUESTION;
	default: return HT_EOF;
	}
}

static void lex_word(hlo_lex *lx, hlo_tok *t, size_t from)
{
	const unsigned char *b = (const unsigned char *)lx->buf;
	size_t j = from, n = lx->n;
	for (;;) {
		while (j < n && (char_class[b[j]] & C_WORD))
			j++;
		if (j < n && b[j] == '-' && !(j + 1 < n && b[j + 1] == '>')) {
			j++;
			continue;
		}
		break;
	}
	t->kind = HT_WORD;
	t->text = lx->buf + from;
	t->len = j - from;
	lx->pos = j;
}

void hlo_lex_next(hlo_lex *lx, hlo_tok *t)
{
	t->len = 0;
	t->pct = 0;
	t->msg = NULL;
	int bad_comment = skip_space(lx) != 0;
	t->pos = lx->pos;
	t->line = lx->line;
	t->col = (int)(lx->pos - lx->line_start) + 1;
	t->text = lx->buf + lx->pos;
	if (bad_comment) {
		t->kind = HT_ERROR;
		t->msg = "unterminated comment";
		t->len = 2;
		goto done;
	}
	if (lx->pos >= lx->n) {
		t->kind = HT_EOF;
		goto done;
	}
	size_t i = lx->pos;
	int c = (unsigned char)lx->buf[i];
	int c1 = i + 1 < lx->n ? (unsigned char)lx->buf[i + 1] : 0;
	hlo_tok_kind pk = punct_kind(c);
	if (pk != HT_EOF) {
		t->kind = pk;
		t->len = 1;
		lx->pos = i + 1;
	} else if (c == '-' && c1 == '>') {
		t->kind = HT_ARROW;
		t->len = 2;
		lx->pos = i + 2;
	} else if (c == '<' && c1 == '=') {
		t->kind = HT_LEQ;
		t->len = 2;
		lx->pos = i + 2;
	} else if (c == '"') {
		size_t e = string_end(lx->buf, lx->n, i);
		if (!e) {
			t->kind = HT_ERROR;
			t->msg = "unterminated string";
			t->len = 1;
		} else {
			t->kind = HT_STRING;
			t->len = e - i;
			lx->pos = e;
		}
	} else if (c == '%' && i + 1 < lx->n && word_char_at(lx, i + 1)) {
		lex_word(lx, t, i + 1);
		t->pct = 1;
	} else if (is_digit(c) || (c == '-' && (is_digit(c1) || is_alpha(c1) || c1 == '_'))) {
		int fl;
		size_t len = number_len(lx, i, &fl);
		if (len && !(i + len < lx->n && word_char_at(lx, i + len))) {
			t->kind = fl ? HT_FLOAT : HT_INT;
			t->len = len;
			lx->pos = i + len;
		} else {
			lex_word(lx, t, i);
		}
	} else if (is_alpha(c) || c == '_' || c == '.') {
		lex_word(lx, t, i);
	} else {
		t->kind = HT_ERROR;
		t->msg = "unexpected character";
		t->len = 1;
	}
done:
	t->end = t->pos + (t->kind == HT_WORD && t->pct ? t->len + 1 : t->len);
}

long hlo_lex_scan(const hlo_lex *lx, size_t start, int flags, int max_depth,
		  size_t *bad_pos, const char **bad_msg)
{
	char stack[256];
	size_t opened[256];
	int depth = 0;
	size_t i = start, last = start;

	if (max_depth > (int)sizeof stack)
		max_depth = (int)sizeof stack;
	while (i < lx->n) {
		char c = lx->buf[i];
		if (c == '"') {
			size_t e = string_end(lx->buf, lx->n, i);
			if (!e) {
				*bad_pos = i;
				*bad_msg = "unterminated string";
				return -1;
			}
			i = last = e;
			continue;
		}
		if (depth == 0) {
			if ((flags & HLS_COMMA) && c == ',')
				break;
			if ((flags & HLS_LINE) && (c == '\n' ||
			    (c == '/' && i + 1 < lx->n && lx->buf[i + 1] == '/')))
				break;
		}
		if (c == '/' && i + 1 < lx->n && (lx->buf[i + 1] == '/' || lx->buf[i + 1] == '*')) {
			/* a comment stays in the value whole, with the newline
			 * that ends a line comment, so the text reads back */
			const char *e;
			if (lx->buf[i + 1] == '/') {
				e = memchr(lx->buf + i, '\n', lx->n - i);
				i = e ? (size_t)(e - lx->buf) + 1 : lx->n;
			} else {
				e = i + 2 < lx->n ? memmem(lx->buf + i + 2, lx->n - i - 2, "*/", 2) : NULL;
				if (!e) {
					*bad_pos = i;
					*bad_msg = "unterminated comment";
					return -1;
				}
				i = (size_t)(e - lx->buf) + 2;
			}
			last = i;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (depth >= max_depth) {
				*bad_pos = i;
				*bad_msg = "nesting too deep";
				return -1;
			}
			stack[depth] = c == '(' ? ')' : c == '[' ? ']' : '}';
			opened[depth++] = i;
		} else if (c == ')' || c == ']' || c == '}') {
			if (depth == 0)
				break;
			if (stack[depth - 1] != c) {
				*bad_pos = i;
				*bad_msg = "mismatched bracket";
				return -1;
			}
			if (--depth == 0 && (flags & HLS_ONE))
				return (long)i + 1;
		}
		i++;
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			last = i;
	}
	if (depth > 0) {
		*bad_pos = opened[depth - 1];
		*bad_msg = "bracket never closed";
		return -1;
	}
	return (long)last;
}

const char *hlo_tok_kind_name(hlo_tok_kind k)
{
	switch (k) {
	case HT_EOF: return "end of input";
	case HT_ERROR: return "bad input";
	case HT_WORD: return "a name";
	case HT_INT: return "an integer";
	case HT_FLOAT: return "a number";
	case HT_STRING: return "a string";
	case HT_LPAREN: return "'('";
	case HT_RPAREN: return "')'";
	case HT_LBRACE: return "'{'";
	case HT_RBRACE: return "'}'";
	case HT_LBRACKET: return "'['";
	case HT_RBRACKET: return "']'";
	case HT_COMMA: return "','";
	case HT_EQUAL: return "'='";
	case HT_COLON: return "':'";
	case HT_ARROW: return "'->'";
	case HT_LEQ: return "'<='";
	case HT_QUESTION: return "'?'";
	}
	return "?";
}

static int hex_value(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hlo_unescape(const char *s, size_t n, char *out, size_t *out_len, size_t *bad)
{
	static const char from[] = "\"\\'?abfnrtv";
	static const char to[] = "\"\\'?\a\b\f\n\r\t\v";
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			/* copy the run up to the next backslash at once */
			const char *bs = memchr(s + i, '\\', n - i);
			size_t run = bs ? (size_t)(bs - s) - i : n - i;
			memcpy(out + o, s + i, run);
			o += run;
			i += run - 1;
			continue;
		}
		size_t at = i++;
		if (i >= n) {
			*bad = at;
			return -1;
		}
		const char *e = s[i] ? strchr(from, s[i]) : NULL;
		if (e) {
			out[o++] = to[e - from];
		} else if (s[i] >= '0' && s[i] <= '7') {
			int v = 0, k = 0;
			while (k < 3 && i < n && s[i] >= '0' && s[i] <= '7') {
				v = v * 8 + (s[i++] - '0');
				k++;
			}
			i--;
			if (v > 255) {
				*bad = at;
				return -1;
			}
			out[o++] = (char)v;
		} else if (s[i] == 'x' && i + 1 < n && hex_value((unsigned char)s[i + 1]) >= 0) {
			int v = 0, k = 0;
			i++;
			while (k < 2 && i < n && hex_value((unsigned char)s[i]) >= 0) {
				v = v * 16 + hex_value((unsigned char)s[i++]);
				k++;
			}
			i--;
			out[o++] = (char)v;
		} else {
			*bad = at;
			return -1;
		}
	}
	*out_len = o;
	return 0;
}
