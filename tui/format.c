/* format.c - the placeholder for model numbers under the test switch
 * (numbers themselves are base/units.h's). */
#include <stdio.h>

#include "tui/tui.h"

static int mask_model;

void tui_set_mask_model(int on)
{
	mask_model = on;
}

int tui_model_masked(void)
{
	return mask_model;
}

int tui_model_hidden(char *buf, size_t cap)
{
	if (!mask_model)
		return 0;
	snprintf(buf, cap, "#");
	return 1;
}
