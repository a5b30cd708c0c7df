/* palette.c - see palette.h. */
#include "render/palette.h"

static const struct colors {
	const char *fill, *stroke, *font;
} colors[HLO_NCATEGORIES] = {
	[HLO_CAT_OTHER] = {"#ffffff", "#000000", "#000000"},
	[HLO_CAT_ELEMENTWISE] = {"#fff9c4", "#cbc693", "#000000"},
	[HLO_CAT_DATA_MOVEMENT] = {"#c8e6c9", "#97b498", "#000000"},
	[HLO_CAT_CONVOLUTION] = {"#1565c0", "#003c8f", "#ffffff"},
	[HLO_CAT_REDUCTION] = {"#e1bee7", "#af8eb5", "#000000"},
	[HLO_CAT_PARAMETER] = {"#ffb74d", "#c88719", "#000000"},
	[HLO_CAT_COLLECTIVE] = {"#bcaaa4", "#8c7b75", "#000000"},
	[HLO_CAT_CONTROL] = {"#2e7d32", "#005005", "#ffffff"},
};

static const struct colors *of(hlo_category c)
{
	return &colors[(int)c < 0 || c >= HLO_NCATEGORIES ? HLO_CAT_OTHER : c];
}

const char *palette_fill(hlo_category c) { return of(c)->fill; }
const char *palette_stroke(hlo_category c) { return of(c)->stroke; }
const char *palette_font(hlo_category c) { return of(c)->font; }
