/* tests/cunit_main.c: the one CUnit runner every suite links: registers the
 * suite the test file defines, runs it verbosely and turns failures into the
 * exit status automake reads (0 pass, 1 fail, 99 hard error).
 */
#include <CUnit/Basic.h>

#include "tests/cunit.h"

int main(void)
{
	const struct fr_suite *s = &fr_test_suite;
	unsigned int failures;
	CU_pSuite suite;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	suite = CU_add_suite(s->name, s->init, s->clean);
	if (!suite)
		goto error;
	for (const struct fr_test *t = s->tests; t->name; t++)
		if (!CU_add_test(suite, t->name, t->fn))
			goto error;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	/* CU_basic_run_tests succeeds even when tests fail, and cleanup resets
	 * the counts: read them first. */
	failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failures ? 1 : 0;
error:
	CU_cleanup_registry();
	return 99;
}
