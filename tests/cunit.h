/* tests/cunit.h: what every CUnit suite gives the shared runner
 * (tests/cunit_main.c): its name, optional init/clean, and its tests.
 */
#ifndef FR_TESTS_CUNIT_H
#define FR_TESTS_CUNIT_H

#include <CUnit/Basic.h>

struct fr_test {
	const char *name;
	CU_TestFunc fn;
};

struct fr_suite {
	const char *name;
	CU_InitializeFunc init;       /* may be NULL */
	CU_CleanupFunc clean;         /* may be NULL */
	const struct fr_test *tests;  /* ends with { NULL, NULL } */
};

/* Each suite's file defines this one object. */
extern const struct fr_suite fr_test_suite;

#endif
