/* test_model_calibrate.c - calibrated times keep the ranking. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/calibrate.h"
#include "base/rng.h"
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
	T_DONE();
}
