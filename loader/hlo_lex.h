/* hlo_lex.h - the tokens of HLO text as XLA prints it.
 *
 * The lexer is a cursor over a buffer it does not own: hlo_lex_next()
 * hands out one token at a time with its byte offset, line and column
 * (1-based, columns count bytes).  Whitespace, "//" line comments and
 * "/ * ... * /" block comments (XLA's "/ *index=5* /" markers) are skipped.
 *
 * Tokens:
 *   HT_WORD    names, keywords, opcodes, element types, and the compact
 *              words of attribute values: [A-Za-z0-9_.-]+, where a '-'
 *              followed by '>' ends the word (so "b01f_01io->b01f" is a
 *              word, an arrow and a word).  "%name" is a word with pct = 1
 *              whose text leaves the '%' out.  Words starting like a number
 *              ("3x3", "1_1x0_0", "01bf") are words too.
 *   HT_INT     -?[0-9]+ followed by no word character
 *   HT_FLOAT   -?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)? with a '.' or exponent
 *   HT_STRING  "..." with backslash escapes; text and len cover the quotes
 *   punctuation ( ) { } [ ] , = : -> <= ? and HT_EOF at the end.
 *   HT_ERROR   a character no token starts with, an unterminated string or
 *              comment; `msg` says which.
 *
 * Raw values (attribute values the parser keeps as text, TPU layout
 * suffixes, constant literals) are taken with hlo_lex_scan(), which skips
 * balanced brackets and strings from a byte offset.
 */
#ifndef HS_HLO_LEX_H
#define HS_HLO_LEX_H

#include <stddef.h>

typedef enum hlo_tok_kind {
	HT_EOF, HT_ERROR, HT_WORD, HT_INT, HT_FLOAT, HT_STRING,
	HT_LPAREN, HT_RPAREN, HT_LBRACE, HT_RBRACE, HT_LBRACKET, HT_RBRACKET,
	HT_COMMA, HT_EQUAL, HT_COLON, HT_ARROW, HT_LEQ, HT_QUESTION
} hlo_tok_kind;

typedef struct hlo_tok {
	hlo_tok_kind kind;
	const char *text;  /* into the buffer; for a %word, after the '%' */
	size_t len;
	size_t pos;        /* byte offset of the token's first byte ('%' included) */
	size_t end;        /* byte offset just past the token */
	int line, col;     /* 1-based */
	int pct;           /* HT_WORD written as %word */
	const char *msg;   /* HT_ERROR: static text */
} hlo_tok;

typedef struct hlo_lex {
	const char *buf;
	size_t n, pos;
	int line;          /* line of pos */
	size_t line_start; /* offset of that line's first byte */
} hlo_lex;

void hlo_lex_init(hlo_lex *lx, const char *buf, size_t n);
void hlo_lex_next(hlo_lex *lx, hlo_tok *t);
/* Moves the cursor to byte offset `pos` (>= the current one), keeping the
 * line count. */
void hlo_lex_seek(hlo_lex *lx, size_t pos);

/* Flags of hlo_lex_scan: where a raw value ends at bracket depth 0. */
enum {
	HLS_COMMA = 1,     /* before a ',' */
	HLS_LINE = 2,      /* before a newline or a "//" comment */
	HLS_ONE = 4        /* after the first bracket group closes */
};
/* Scans a raw value from byte offset `start`: ( [ { nest and must close
 * with their own kind, strings are skipped whole.  Stops before a closing
 * bracket that has no opener, at the end of input and, at depth 0, where
 * `flags` say.  Returns the end offset (trailing blanks not included), or
 * -1 with *bad_pos / *bad_msg set (mismatched bracket, an unterminated
 * string or bracket, nesting deeper than max_depth). */
long hlo_lex_scan(const hlo_lex *lx, size_t start, int flags, int max_depth,
		  size_t *bad_pos, const char **bad_msg);

/* "a word", "')'", ... for messages. */
const char *hlo_tok_kind_name(hlo_tok_kind k);

/* Decodes the body of a string token (text without the quotes): C escapes
 * \" \\ \' \? \a \b \f \n \r \t \v, octal \NNN and hex \xHH.  `out` needs
 * `n` bytes; *out_len gets the decoded length.  Returns -1 (and the offset
 * of the bad escape in *bad) on a malformed escape. */
int hlo_unescape(const char *s, size_t n, char *out, size_t *out_len, size_t *bad);

#endif
