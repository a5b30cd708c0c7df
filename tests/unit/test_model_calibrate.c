/* test_model_calibrate.c - calibrated times keep the ranking, and times
 * are written with their unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/calibrate.h"
#include "base/rng.h"
#include "model/units.h"
#include "t.h"

int main(void)
{
	hs_error err = {0};
	calib c;

	/* runtime = exp(score) on every config: the map reproduces it. */
	{
		double s[5] = {1, 2, 3, 4, 5}, y[5];

		for (int i = 0; i < 5; i++)
			y[i] = exp(s[i]);
		CHECK("fit an exact monotone relation", calib_fit(s, y, NULL, 5, &c, &err) == 0 && c.ok);
		CHECK_NEAR("knot 3 maps back to its runtime", calib_apply(&c, 3), exp(3), 1e-9);
		CHECK_NEAR("between knots: log-linear", calib_apply(&c, 2.5), exp(2.5), 1e-9);
		CHECK_NEAR("past the end: the fit's slope", calib_apply(&c, 7), exp(7), 1e-6);
		CHECK("NAN score gives NAN", isnan(calib_apply(&c, NAN)));
		calib_free(&c);
	}
	/* Noisy, partly out of order: the calibrated times still order the
	 * configs exactly as the scores do, ties included. */
	{
		enum { N = 300 };
		hs_splitmix g = hs_splitmix_seed(3);
		double s[N], y[N], t[N];
		uint8_t use[N];
		int order_ok = 1;

		for (int i = 0; i < N; i++) {
			s[i] = (double)hs_splitmix_below(&g, 120) / 10.0; /* ties */
			y[i] = 1e6 * exp(0.2 * s[i] + hs_splitmix_unit(&g));
			use[i] = i % 3 == 0;
		}
		CHECK("fit on a third of the configs", calib_fit(s, y, use, N, &c, &err) == 0 && c.ok);
		CHECK("fitted on the measured ones only", c.fitted == N / 3);
		for (int i = 0; i < N; i++)
			t[i] = calib_apply(&c, s[i]);
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++)
				if ((s[i] < s[j]) != (t[i] < t[j]) || (s[i] == s[j]) != (t[i] == t[j]))
					order_ok = 0;
		CHECK("calibrated times keep every order and every tie", order_ok);
		CHECK("calibrated times are positive", t[0] > 0);
		calib_free(&c);
	}
	/* Scores that order nothing: no map. */
	{
		double s[4] = {1, 2, 3, 4}, y[4] = {40, 30, 20, 10};

		CHECK("anti-ordered scores fit", calib_fit(s, y, NULL, 4, &c, &err) == 0);
		CHECK("anti-ordered scores give no map", !c.ok && isnan(calib_apply(&c, 2)));
		calib_free(&c);
	}
	/* Units. */
	{
		char b[64];
		double close[3] = {23270598358.0, 23270618560.0, 23270598358.0};

		units_ns(b, sizeof b, 23270598358.0, 3);
		CHECK("seconds", strcmp(b, "23.271 s") == 0);
		units_ns(b, sizeof b, 983, 3);
		CHECK("nanoseconds are whole", strcmp(b, "983 ns") == 0);
		units_ns(b, sizeof b, 1250000, 3);
		CHECK("milliseconds", strcmp(b, "1.250 ms") == 0);
		units_ns_signed(b, sizeof b, 983, 3);
		CHECK("a contribution has its sign and unit", strcmp(b, "+983 ns") == 0);
		units_ns_signed(b, sizeof b, -1250, 1);
		CHECK("a negative contribution in us", strcmp(b, "-1.2 us") == 0 || strcmp(b, "-1.3 us") == 0);
		units_ns(b, sizeof b, NAN, 3);
		CHECK("NAN is -", strcmp(b, "-") == 0);
		CHECK("23.27060 s and 23.27062 s need 5 decimals", units_decimals(close, 3, 3, 9) == 5);
		CHECK("distinct enough values keep 3", units_decimals((double[]){1e9, 2e9}, 2, 3, 9) == 3);
	}
	T_DONE();
}
