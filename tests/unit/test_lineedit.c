/* test_lineedit.c - the explorer's line editor without a terminal: insert
 * and delete, the cursor and word moves, kills, history browsing,
 * completion of the word before the cursor, and UTF-8 text (characters,
 * not bytes; display widths). */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/t.h"
#include "tui/lineedit.h"

static char out[LINEEDIT_MAX * 4 + 1];

static const char *text(const lineedit *e)
{
	if (lineedit_text(e, out, sizeof out) < 0)
		return "(encoding error)";
	return out;
}

/* Typing one character at a time, as the prompt does. */
static void type(lineedit *e, const wchar_t *s)
{
	for (; *s; s++)
		lineedit_insert(e, *s);
}

static void edits(void)
{
	lineedit e;

	lineedit_init(&e, NULL, NULL);
	CHECK("a new line is empty", e.len == 0 && e.pos == 0 && !strcmp(text(&e), ""));
	type(&e, L"sort users");
	CHECK("typed text", !strcmp(text(&e), "sort users") && e.pos == 10);
	CHECK("left moves one character", lineedit_do(&e, LINEEDIT_LEFT) && e.pos == 9);
	lineedit_do(&e, LINEEDIT_HOME);
	CHECK("home", e.pos == 0);
	CHECK("left at the start does nothing", !lineedit_do(&e, LINEEDIT_LEFT) && e.pos == 0);
	CHECK("backspace at the start does nothing", !lineedit_do(&e, LINEEDIT_DEL_BACK));
	lineedit_insert(&e, L':');
	CHECK("insert at the cursor", !strcmp(text(&e), ":sort users") && e.pos == 1);
	lineedit_do(&e, LINEEDIT_DEL_BACK);
	CHECK("backspace deletes before the cursor", !strcmp(text(&e), "sort users") && e.pos == 0);
	lineedit_do(&e, LINEEDIT_DEL_FWD);
	CHECK("delete takes the character under the cursor", !strcmp(text(&e), "ort users") && e.pos == 0);
	lineedit_do(&e, LINEEDIT_END);
	CHECK("end", e.pos == e.len);
	CHECK("delete at the end does nothing", !lineedit_do(&e, LINEEDIT_DEL_FWD));
	CHECK("right at the end does nothing", !lineedit_do(&e, LINEEDIT_RIGHT));
	CHECK("control characters are not inserted", !lineedit_insert(&e, L'\t') && !lineedit_insert(&e, 127));
	lineedit_free(&e);
}

static void kills_and_words(void)
{
	lineedit e;

	lineedit_init(&e, "nodes where opcode = convolution", NULL);
	CHECK("initial text, cursor at its end", e.pos == e.len && e.len == 32);
	lineedit_do(&e, LINEEDIT_WORD_LEFT);
	CHECK("word left: start of the last word", e.pos == 21);
	lineedit_do(&e, LINEEDIT_WORD_LEFT);
	CHECK("word left skips '= ' to the previous word", e.pos == 12);
	lineedit_do(&e, LINEEDIT_WORD_RIGHT);
	CHECK("word right: end of this word", e.pos == 18);
	lineedit_do(&e, LINEEDIT_WORD_RIGHT);
	CHECK("word right: end of the next word", e.pos == 32);
	CHECK("word right at the end does nothing", !lineedit_do(&e, LINEEDIT_WORD_RIGHT));
	lineedit_do(&e, LINEEDIT_KILL_WORD);
	CHECK("ctrl-w deletes back to the space", !strcmp(text(&e), "nodes where opcode = "));
	lineedit_do(&e, LINEEDIT_KILL_WORD);
	CHECK("ctrl-w skips trailing spaces first", !strcmp(text(&e), "nodes where opcode "));
	e.pos = 6;
	lineedit_do(&e, LINEEDIT_KILL_END);
	CHECK("ctrl-k keeps what is before the cursor", !strcmp(text(&e), "nodes ") && e.pos == 6);
	e.pos = 3;
	lineedit_do(&e, LINEEDIT_KILL_START);
	CHECK("ctrl-u keeps what is after the cursor", !strcmp(text(&e), "es ") && e.pos == 0);
	lineedit_free(&e);

	lineedit_init(&e, "a_b-c", NULL);
	lineedit_do(&e, LINEEDIT_WORD_LEFT);
	CHECK("underscores belong to words, dashes do not", e.pos == 4);
	lineedit_free(&e);
}

static void full_line(void)
{
	lineedit e;
	char big[LINEEDIT_MAX + 2];

	memset(big, 'x', LINEEDIT_MAX);
	big[LINEEDIT_MAX] = '\0';
	lineedit_init(&e, big, NULL);
	CHECK("a line of the maximum length", e.len == LINEEDIT_MAX);
	CHECK("a full line takes no more", !lineedit_insert(&e, L'y') && e.len == LINEEDIT_MAX);
	CHECK("text that does not fit is refused whole", !lineedit_insert_text(&e, "yz") && e.len == LINEEDIT_MAX);
	lineedit_free(&e);
	big[LINEEDIT_MAX] = 'x';
	big[LINEEDIT_MAX + 1] = '\0';
	lineedit_init(&e, big, NULL);
	CHECK("initial text over the maximum starts empty", e.len == 0);
	lineedit_free(&e);
}

static void history(void)
{
	lineedit_history h = {0};
	lineedit e;

	lineedit_history_add(&h, "first");
	lineedit_history_add(&h, "");
	lineedit_history_add(&h, "second");
	lineedit_history_add(&h, "second");
	CHECK("history skips empty lines and repeats", h.n == 2);
	lineedit_init(&e, NULL, &h);
	type(&e, L"draft");
	CHECK("up shows the newest entry", lineedit_do(&e, LINEEDIT_HIST_PREV) && !strcmp(text(&e), "second"));
	CHECK("the cursor goes to its end", e.pos == 6);
	lineedit_do(&e, LINEEDIT_HIST_PREV);
	CHECK("up again: the older one", !strcmp(text(&e), "first"));
	CHECK("no entry before the oldest", !lineedit_do(&e, LINEEDIT_HIST_PREV) && !strcmp(text(&e), "first"));
	lineedit_do(&e, LINEEDIT_HIST_NEXT);
	lineedit_do(&e, LINEEDIT_HIST_NEXT);
	CHECK("down past the newest: the draft is back", !strcmp(text(&e), "draft"));
	CHECK("nothing after the draft", !lineedit_do(&e, LINEEDIT_HIST_NEXT));
	lineedit_free(&e);

	for (int i = 0; i < LINEEDIT_HIST + 5; i++) {
		char s[16];
		snprintf(s, sizeof s, "line %d", i);
		lineedit_history_add(&h, s);
	}
	CHECK("history keeps the newest lines", h.n == LINEEDIT_HIST && !strcmp(h.item[0], "line 5") &&
						!strcmp(h.item[LINEEDIT_HIST - 1], "line 68"));
	lineedit_init(&e, NULL, NULL);
	CHECK("no history: up does nothing", !lineedit_do(&e, LINEEDIT_HIST_PREV));
	lineedit_free(&e);
	lineedit_history_free(&h);
	CHECK("history freed", h.n == 0);
}

static void completion(void)
{
	lineedit e;
	char before[256];
	size_t word;

	lineedit_init(&e, "sort us", NULL);
	lineedit_before_cursor(&e, before, sizeof before, &word);
	CHECK("the word before the cursor", !strcmp(before, "sort us") && word == 5);
	const char *one[] = {"users"};
	CHECK("one candidate", lineedit_complete(&e, one, 1, 1));
	CHECK("one candidate: the word and a space", !strcmp(text(&e), "sort users ") && e.pos == 11);
	lineedit_free(&e);

	lineedit_init(&e, "sor", NULL);
	const char *two[] = {"sort", "sort-desc"};
	lineedit_complete(&e, two, 2, 1);
	CHECK("several: their common prefix, no space", !strcmp(text(&e), "sort") && e.pos == 4);
	CHECK("no candidate: nothing", !lineedit_complete(&e, NULL, 0, 1) && !strcmp(text(&e), "sort"));
	lineedit_free(&e);

	lineedit_init(&e, "open np", NULL);
	const char *dir[] = {"npz/"};
	lineedit_complete(&e, dir, 1, 1);
	CHECK("a folder: no space after the slash", !strcmp(text(&e), "open npz/"));
	lineedit_free(&e);

	lineedit_init(&e, "users>1 and opcode=conv tail", NULL);
	e.pos = 23; /* after "conv" */
	lineedit_before_cursor(&e, before, sizeof before, &word);
	CHECK("words start after = < > ( , and spaces", !strcmp(before + word, "conv"));
	const char *op[] = {"convolution"};
	lineedit_complete(&e, op, 1, 1);
	CHECK("completion in the middle keeps the rest",
	      !strcmp(text(&e), "users>1 and opcode=convolution  tail") && e.pos == 31);
	lineedit_free(&e);
}

/* A default shown selected: typing replaces it, moves keep it. */
static void selection(void)
{
	lineedit e;

	lineedit_init(&e, "opcode=add", NULL);
	lineedit_select(&e);
	CHECK("a default is selected, the cursor at its end", e.selected && e.pos == e.len);
	type(&e, L"users>3");
	CHECK("the first character replaces the default", !strcmp(text(&e), "users>3") && !e.selected);
	lineedit_free(&e);

	lineedit_init(&e, "opcode=add", NULL);
	lineedit_select(&e);
	CHECK("right keeps the default", lineedit_do(&e, LINEEDIT_RIGHT) && !e.selected && e.pos == 10);
	type(&e, L" and users>3");
	CHECK("... and typing appends to it", !strcmp(text(&e), "opcode=add and users>3"));
	lineedit_free(&e);

	lineedit_init(&e, "opcode=add", NULL);
	lineedit_select(&e);
	lineedit_do(&e, LINEEDIT_END);
	CHECK("end keeps it too", !e.selected && e.pos == 10 && !strcmp(text(&e), "opcode=add"));
	lineedit_do(&e, LINEEDIT_HOME);
	lineedit_insert(&e, L'(');
	CHECK("edits go where the cursor is", !strcmp(text(&e), "(opcode=add"));
	lineedit_free(&e);

	lineedit_init(&e, "opcode=add", NULL);
	lineedit_select(&e);
	lineedit_do(&e, LINEEDIT_LEFT);
	CHECK("left keeps it, one character back", !e.selected && e.pos == 9);
	lineedit_free(&e);

	lineedit_init(&e, "opcode=add", NULL);
	lineedit_select(&e);
	CHECK("backspace removes the whole default", lineedit_do(&e, LINEEDIT_DEL_BACK) && e.len == 0 &&
							 !e.selected);
	lineedit_free(&e);

	lineedit_init(&e, "", NULL);
	lineedit_select(&e);
	CHECK("an empty line is never selected", !e.selected);
	lineedit_free(&e);

	lineedit_init(&e, "shape_dim", NULL);
	lineedit_select(&e);
	const char *one[] = {"shape_dimensions_product"};
	lineedit_complete(&e, one, 1, 0);
	CHECK("completion keeps the default and completes it", !e.selected &&
	      !strcmp(text(&e), "shape_dimensions_product"));
	CHECK("a prompt for one name gets no space after it", e.pos == e.len && e.buf[e.len - 1] != L' ');
	lineedit_free(&e);
}

static void utf8(void)
{
	lineedit e;
	char before[256];
	size_t word;

	lineedit_init(&e, "open réseau-λ", NULL);
	CHECK("UTF-8: characters, not bytes", e.len == 13 && e.pos == 13);
	lineedit_do(&e, LINEEDIT_DEL_BACK);
	CHECK("backspace removes a whole character", !strcmp(text(&e), "open réseau-"));
	lineedit_do(&e, LINEEDIT_WORD_LEFT);
	CHECK("word moves over accented letters", e.pos == 5);
	lineedit_do(&e, LINEEDIT_END);
	CHECK("insert a multibyte text", lineedit_insert_text(&e, "λ.npz") && !strcmp(text(&e), "open réseau-λ.npz"));
	CHECK("invalid UTF-8 is refused", !lineedit_insert_text(&e, "\xff") && e.len == 17);
	lineedit_before_cursor(&e, before, sizeof before, &word);
	CHECK("the word's offset is in bytes", word == 5 && !strcmp(before + word, "réseau-λ.npz"));
	const char *c[] = {"réseau-λ.npz.bak", "réseau-λ.npz.old"};
	lineedit_complete(&e, c, 2, 1);
	CHECK("completion with multibyte candidates", !strcmp(text(&e), "open réseau-λ.npz."));
	const char *cut[] = {"réseau-λ.npz.é1", "réseau-λ.npz.è2"};
	e.len = e.pos = 17;
	e.buf[e.len] = 0;
	lineedit_complete(&e, cut, 2, 1);
	CHECK("a common prefix never cuts a character", !strcmp(text(&e), "open réseau-λ.npz."));
	lineedit_free(&e);

	lineedit_init(&e, "表a", NULL);
	CHECK("display width: a wide character takes two cells", lineedit_width(&e, 0, e.len) == 3);
	CHECK("width of a part", lineedit_width(&e, 1, 2) == 1);
	lineedit_free(&e);
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8")) {
		printf("FAIL locale: C.UTF-8 is not available\n");
		return 1;
	}
	edits();
	kills_and_words();
	full_line();
	history();
	completion();
	selection();
	utf8();
	T_DONE();
}
