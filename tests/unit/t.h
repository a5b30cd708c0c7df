/* t.h - a small harness for C unit tests: each CHECK prints PASS or FAIL. */
#ifndef HS_T_H
#define HS_T_H
#include <stdio.h>
#include <string.h>
#include <math.h>

static int t_failed;

#define CHECK(name, cond)                                                      \
	do {                                                                   \
		if (cond)                                                      \
			printf("PASS %s\n", (name));                           \
		else {                                                         \
			printf("FAIL %s: %s (%s:%d)\n", (name), #cond, __FILE__, \
			       __LINE__);                                      \
			t_failed = 1;                                          \
		}                                                              \
	} while (0)

#define CHECK_NEAR(name, a, b, tol) CHECK(name, fabs((double)(a) - (double)(b)) <= (tol))

#define T_DONE() return t_failed
#endif
