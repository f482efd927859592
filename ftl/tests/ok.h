/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ok.h - OK(sh, expr): a cmocka check of one shadow operation; on failure
 * it names the expression and the shadow's first recorded violation.
 * Include after <cmocka.h> and "shadow.h".
 */
#ifndef FTL_TESTS_OK_H
#define FTL_TESTS_OK_H

#define OK(sh, expr) do {						\
	bool __ok = (expr);						\
	if (!__ok || (sh)->failed)					\
		fail_msg("%s: %s", #expr,				\
			 (sh)->failed ? (sh)->err : "returned false");	\
} while (0)

#endif /* FTL_TESTS_OK_H */
