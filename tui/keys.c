/* keys.c - the command table TUI_REQUESTS as the loop, the `:` line, the
 * help view and scripts look it up: by key, by name, by scope; and key
 * names both ways (labels for help, names in scripts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui/app.h"

static const tui_request_info requests[] = {
#define TUI_REQ_INFO(id, name, k1, k2, scope, help) {TUI_REQ_##id, name, k1, k2, scope, help},
	TUI_REQUESTS(TUI_REQ_INFO)
#undef TUI_REQ_INFO
};
#define NREQUESTS (sizeof requests / sizeof requests[0])

size_t tui_request_count(void)
{
	return NREQUESTS;
}

const tui_request_info *tui_request_at(size_t i)
{
	return i < NREQUESTS ? &requests[i] : NULL;
}

const tui_request_info *tui_request_by_key(int key, int scope, int *other_scope)
{
	*other_scope = 0;
	for (size_t i = 0; i < NREQUESTS; i++)
		if (key && (requests[i].key == key || requests[i].key2 == key)) {
			if (requests[i].scope & scope)
				return &requests[i];
			*other_scope = 1;
		}
	return NULL;
}

static const struct {
	const char *alias, *name;
} aliases[] = {
	{"q", "quit"}, {"q!", "quit"}, {"exit", "quit"}, {"add-column", "column"},
	{"save", "write"}, {"search-next", "next"},
};

const tui_request_info *tui_request_by_name(const char *name)
{
	for (size_t i = 0; i < NREQUESTS; i++)
		if (!strcmp(requests[i].name, name))
			return &requests[i];
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcmp(aliases[i].alias, name))
			return tui_request_by_name(aliases[i].name);
	return NULL;
}

const char *tui_request_name(tui_req r)
{
	for (size_t i = 0; i < NREQUESTS; i++)
		if (requests[i].req == r)
			return requests[i].name;
	return r == TUI_REQ_MOUSE ? "mouse" : "none";
}

int tui_request_takes_arg(tui_req r)
{
	switch (r) {
	case TUI_REQ_SORT_ASC:
	case TUI_REQ_SORT_DESC:
	case TUI_REQ_SEARCH:
	case TUI_REQ_FILTER:
	case TUI_REQ_ADD_COLUMN:
	case TUI_REQ_WRITE:
	case TUI_REQ_GOTO:
	case TUI_REQ_OPEN:
	case TUI_REQ_SAVE_DISPLAY:
	case TUI_REQ_EXPORT:
	case TUI_REQ_COMPARE:
	case TUI_REQ_DRAW:
	case TUI_REQ_FIT:
	case TUI_REQ_DIFF:
	case TUI_REQ_PASSES:
	case TUI_REQ_DATA:
		return 1;
	default:
		return 0;
	}
}

int tui_view_scope(const tui_view *v)
{
	int s = TUI_S_ALL | (v ? v->ops->scope : 0) | (v && v->npanes ? TUI_S_TABLE : 0) |
		(v && v->doc ? TUI_S_GRAPH : 0) | (v && v->npanes > 1 ? TUI_S_PANES : 0);
	const tui_table *tb = v && v->npanes ? v->pane[v->focus >= 0 && v->focus < v->npanes ? v->focus : 0]
					      : NULL;
	if (tb && (tb->navail > 0 || tb->ncols > 1))
		s |= TUI_S_COLUMNS;
	return s;
}

int tui_key_normalize(int k)
{
	if (k == 127 || k == 8)
		return KEY_BACKSPACE;
	if (k == '\r' || k == KEY_ENTER)
		return '\n';
	return k;
}

/* Names of keys: the first with `label` names the key in help and
 * messages; scripts accept them all. */
static const struct {
	const char *name;
	int key, label;
} names[] = {
	{"Enter", '\n', 1}, {"Tab", '\t', 1}, {"Space", ' ', 1}, {"Esc", 27, 1},
	{"Backspace", KEY_BACKSPACE, 1}, {"BS", KEY_BACKSPACE, 0}, {"Del", KEY_DC, 1},
	{"Shift-Tab", KEY_BTAB, 1}, {"S-Tab", KEY_BTAB, 0}, {"BTab", KEY_BTAB, 0},
	{"Up", KEY_UP, 1}, {"Down", KEY_DOWN, 1}, {"Left", KEY_LEFT, 1}, {"Right", KEY_RIGHT, 1},
	{"PgUp", KEY_PPAGE, 1}, {"PgDn", KEY_NPAGE, 1}, {"Home", KEY_HOME, 1}, {"End", KEY_END, 1},
	{"Enter", KEY_ENTER, 1}, {"S-Left", KEY_SLEFT, 0}, {"S-Right", KEY_SRIGHT, 0},
	{"S-Up", KEY_SR, 0}, {"S-Down", KEY_SF, 0}, {"lt", '<', 0}, {"gt", '>', 0},
	{"KEY_RESIZE", KEY_RESIZE, 0}, /* a redraw at the same size */
};

void tui_key_label(int k, char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].key == k && names[i].label) {
			snprintf(buf, cap, "%s", names[i].name);
			return;
		}
	if (k >= KEY_F(1) && k <= KEY_F(12))
		snprintf(buf, cap, "F%d", k - KEY_F(0));
	else if (k > 0 && k < 32)
		snprintf(buf, cap, "Ctrl-%c", k + 'A' - 1);
	else if (k > 32 && k < 127)
		snprintf(buf, cap, "%c", k);
	else
		snprintf(buf, cap, "%s", keyname(k) ? keyname(k) : "?");
}

int tui_key_by_name(const char *name, int *is_code)
{
	size_t n = strlen(name);

	*is_code = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(names[i].name, name)) {
			*is_code = names[i].key >= KEY_MIN;
			return names[i].key;
		}
	if (n == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-' &&
	    ((name[2] >= 'a' && name[2] <= 'z') || (name[2] >= 'A' && name[2] <= 'Z')))
		return TUI_CTRL(name[2]);
	if (name[0] == 'F' && n >= 2 && n <= 3) {
		char *end;
		long f = strtol(name + 1, &end, 10);
		if (!*end && f >= 1 && f <= 12) {
			*is_code = 1;
			return KEY_F(f);
		}
	}
	/* one character, UTF-8 */
	mbstate_t st;
	wchar_t wc;
	memset(&st, 0, sizeof st);
	size_t used = mbrtowc(&wc, name, n, &st);
	if (n > 0 && used == n && wc >= 32 && wc != 127)
		return (int)wc;
	return -1;
}
