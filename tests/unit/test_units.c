/* test_units.c - one way to show a number (base/units.h): every unit's
 * steps, its default and fixed decimals, signs, the rules chosen where
 * copies disagreed (zero, below one ns, decimal sizes), reading back, the
 * decimals a table needs, and the plain forms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "t.h"

static double parsed(const char *s, int unit)
{
	double v;
	return hs_unit_parse(s, unit, &v) == 0 ? v : NAN;
}

static void formats(void)
{
	static const struct {
		int unit, decimals;
		double v;
		const char *text;
	} shown[] = {
		{HS_U_NS, -1, 23271000000.0, "23.271 s"}, {HS_U_NS, -1, 1234567, "1.235 ms"},
		{HS_U_NS, -1, 12, "12 ns"}, {HS_U_NS, -1, 983.4, "983 ns"}, {HS_U_NS, -1, 0, "0 ns"},
		{HS_U_NS, -1, 0.25, "0.25 ns"}, {HS_U_NS, -1, -1250, "-1.250 us"}, {HS_U_NS, -1, NAN, "-"},
		{HS_U_NS, 3, 23270598358.0, "23.271 s"}, {HS_U_NS, 3, 983, "983 ns"},
		{HS_U_NS, 3, 1250000, "1.250 ms"}, {HS_U_NS, 5, 23270598358.0, "23.27060 s"},
		{HS_U_SECONDS, -1, 12.3e-6, "12.3 us"}, {HS_U_SECONDS, -1, 0.000860679, "861 us"},
		{HS_U_SECONDS, -1, 0, "0 ns"}, {HS_U_SECONDS, -1, 1.5, "1.5 s"},
		{HS_U_SECONDS, 3, 8.17e-3, "8.170 ms"}, {HS_U_SECONDS, 3, 5e-7, "500 ns"},
		{HS_U_BYTES, -1, 2.1e9, "2.1 GB"}, {HS_U_BYTES, -1, 512, "512 B"},
		{HS_U_BYTES, -1, 1536, "1.54 kB"}, {HS_U_BYTES, -1, 0, "0 B"},
		{HS_U_FLOP, -1, 1.5e9, "1.5 GFLOP"}, {HS_U_FLOP, -1, 3.44e11, "344 GFLOP"},
		{HS_U_FLOP, -1, 999, "999 FLOP"}, {HS_U_PERCENT, -1, 24.56, "24.6%"},
		{HS_U_PERCENT, 2, 5, "5.00%"}, {HS_U_NONE, -1, 7, "7"}, {HS_U_NONE, -1, 0.123456, "0.1235"},
		{HS_U_NONE, 4, 0.94321, "0.9432"},
	};
	int ok = 1, back = 1;
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		char buf[64];
		hs_unit_format(buf, sizeof buf, shown[i].unit, shown[i].v, shown[i].decimals);
		if (strcmp(buf, shown[i].text)) {
			printf("# unit %d, %d decimals: %g printed '%s', wanted '%s'\n", shown[i].unit,
			       shown[i].decimals, shown[i].v, buf, shown[i].text);
			ok = 0;
		}
		double v = parsed(buf, shown[i].unit);
		if (!isnan(shown[i].v) && !(fabs(v - shown[i].v) <= 5e-3 * fabs(shown[i].v)))
			back = 0;
	}
	CHECK("units: every unit in its step, default and fixed decimals", ok);
	CHECK("units: what is printed reads back as its value", back);

	char b[64];
	hs_unit_format_signed(b, sizeof b, HS_U_NS, 983, 3);
	CHECK("units: a sign and a unit", strcmp(b, "+983 ns") == 0);
	hs_unit_format_signed(b, sizeof b, HS_U_NS, -1250, 1);
	CHECK("units: a negative duration in us", strcmp(b, "-1.2 us") == 0 || strcmp(b, "-1.3 us") == 0);
	hs_unit_format_signed(b, sizeof b, HS_U_FLOP, 0, -1);
	CHECK("units: zero has no sign", strcmp(b, "0 FLOP") == 0);
	CHECK("units: like snprintf, cut and counted",
	      hs_unit_format(b, 4, HS_U_NS, 23271000000.0, -1) == 8 && strcmp(b, "23.") == 0);
}

static void parses(void)
{
	CHECK_NEAR("parse: 1ms as nanoseconds", parsed("1ms", HS_U_NS), 1e6, 1e-6);
	CHECK_NEAR("parse: 12 us as seconds", parsed("12 us", HS_U_SECONDS), 12e-6, 1e-15);
	CHECK_NEAR("parse: the micro sign", parsed("12\u00b5s", HS_U_SECONDS), 12e-6, 1e-15);
	CHECK_NEAR("parse: binary sizes", parsed("1 KiB", HS_U_BYTES), 1024, 0);
	CHECK_NEAR("parse: units ignore case", parsed("3 mb", HS_U_BYTES), 3e6, 1e-6);
	CHECK_NEAR("parse: a plural FLOPs", parsed("2 GFLOPs", HS_U_FLOP), 2e9, 1);
	CHECK_NEAR("parse: a bare number is in the base unit", parsed(" 250 ", HS_U_NS), 250, 0);
	CHECK("parse: an unknown or foreign unit is refused",
	      isnan(parsed("12 parsecs", HS_U_SECONDS)) && isnan(parsed("12 GB", HS_U_SECONDS)) &&
		      isnan(parsed("12 us", HS_U_NONE)) && isnan(parsed("us", HS_U_NS)) &&
		      isnan(parsed("1 us 2", HS_U_NS)));
	CHECK("parse: a suffix of any unit ends a number; a word does not",
	      hs_unit_suffix("us)", 3) == 2 && hs_unit_suffix("%", 1) == 1 && hs_unit_suffix("GB", 2) == 2 &&
		      hs_unit_suffix("users", 5) == 0 && hs_unit_suffix("us_x", 4) == 0);
	CHECK("parse: what and an example for messages",
	      !strcmp(hs_unit_what(HS_U_BYTES), "a size") && strstr(hs_unit_example(HS_U_NS), "12 us"));
}

static void decimals(void)
{
	double close[3] = {23270598358.0, 23270618560.0, 23270598358.0};
	CHECK("decimals: 23.27060 s and 23.27062 s need 5",
	      hs_unit_decimals(HS_U_NS, close, 3, 3, 9) == 5);
	CHECK("decimals: distinct enough values keep 3",
	      hs_unit_decimals(HS_U_NS, (double[]){1e9, 2e9}, 2, 3, 9) == 3);
	CHECK("decimals: plain numbers too",
	      hs_unit_decimals(HS_U_NONE, (double[]){0.94321, 0.94324, NAN}, 3, 4, 9) == 5);
}

static void plain(void)
{
	char b[64];
	hs_num_thousands(b, sizeof b, 1234567);
	CHECK("thousands", !strcmp(b, "1,234,567"));
	hs_num_thousands(b, sizeof b, -12000);
	CHECK("thousands below zero", !strcmp(b, "-12,000"));
	hs_num_exact(b, sizeof b, 0.1);
	CHECK("exact: the shortest text that reads back", !strcmp(b, "0.1"));
	hs_num_exact(b, sizeof b, 1.0 / 3);
	CHECK("exact: 17 digits when needed", strtod(b, NULL) == 1.0 / 3);
	hs_num_exact(b, sizeof b, -0.0);
	CHECK("exact: -0 is 0", !strcmp(b, "0"));
	hs_num_short(b, sizeof b, 0.000860679123);
	CHECK("short: 6 significant digits", !strcmp(b, "0.000860679"));
	hs_num_short(b, sizeof b, NAN);
	CHECK("short: nan", !strcmp(b, "nan"));
	hs_num_short(b, sizeof b, -INFINITY);
	CHECK("short: -inf", !strcmp(b, "-inf"));
}

int main(void)
{
	formats();
	parses();
	decimals();
	plain();
	T_DONE();
}
