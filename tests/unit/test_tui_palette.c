/* test_tui_palette.c - the explorer's colours of the opcode categories on an
 * 8/16-colour terminal (tui/draw.c's palette; drawings: test_render.c). */
#include <curses.h>

#include "loader/hlo.h"
#include "tests/unit/t.h"
#include "tui/tui.h"

int main(void)
{
	int term_ok = 1, distinct = 1, bold, bold2;

	for (int c = 0; c < HLO_NCATEGORIES; c++) {
		int col = tui_category_color8((hlo_category)c, &bold);
		if (col < -1 || col > 7 || col == COLOR_BLACK)
			term_ok = 0;
		for (int d = 0; d < c; d++)
			if (tui_category_color8((hlo_category)d, &bold2) == col && bold2 == bold)
				distinct = 0;
	}
	CHECK("terminal colors are the default or 1..7 (never black)", term_ok);
	CHECK("terminal color+brightness tell categories apart", distinct);
	CHECK("terminal: elementwise yellow, data movement green, dot blue",
	      tui_category_color8(HLO_CAT_ELEMENTWISE, &bold) == COLOR_YELLOW &&
		      tui_category_color8(HLO_CAT_DATA_MOVEMENT, &bold) == COLOR_GREEN &&
		      tui_category_color8(HLO_CAT_CONVOLUTION, &bold) == COLOR_BLUE);
	CHECK("terminal: parameter bright red, collective plain red",
	      tui_category_color8(HLO_CAT_PARAMETER, &bold) == COLOR_RED && bold &&
		      tui_category_color8(HLO_CAT_COLLECTIVE, &bold) == COLOR_RED && !bold);
	T_DONE();
}
