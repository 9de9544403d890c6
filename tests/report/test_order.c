/* tests/report/test_order.c: CUnit suite for the holding queue
 * (src/report/pass/order.c): items read out of order go out in the order they
 * happened, only once the time read is hold_ns past them; ties keep their
 * arrival order; what comes too late is counted; held items freed.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "tests/cunit.h"
#include "src/report/pass/order.h"

#define MS 1000000ull

struct it {
	int id;
	int *freed;
};

/* Two CPUs' batches, read at their flush times: CPU 1's switch at 3 ms is
 * read (at 12 ms) after CPU 0's at 5 and 9 ms (read at 10 ms). */
static void test_reorder(void)
{
	struct fr_order *q;
	struct it it;
	uint64_t t;

	CU_ASSERT_EQUAL_FATAL(fr_order__new(sizeof(it), 20 * MS, &q), 0);
	CU_ASSERT_EQUAL(fr_order__push(q, 5 * MS, 10 * MS, &(struct it){ 1, NULL }), 0);
	CU_ASSERT_EQUAL(fr_order__push(q, 9 * MS, 10 * MS, &(struct it){ 2, NULL }), 0);
	CU_ASSERT_EQUAL(fr_order__pop(q, false, &t, &it), 0);   /* read time 10 < 5 + 20 */
	CU_ASSERT_EQUAL(fr_order__push(q, 3 * MS, 12 * MS, &(struct it){ 3, NULL }), 0);
	CU_ASSERT_EQUAL(fr_order__push(q, 9 * MS, 12 * MS, &(struct it){ 4, NULL }), 0);   /* a tie */
	CU_ASSERT_EQUAL(fr_order__push(q, 30 * MS, 25 * MS, &(struct it){ 5, NULL }), 0);
	/* due: happened at or before 25 - 20 = 5 ms */
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, false, &t, &it), 1);
	CU_ASSERT(t == 3 * MS && it.id == 3);
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, false, &t, &it), 1);
	CU_ASSERT(t == 5 * MS && it.id == 1);
	CU_ASSERT_EQUAL(fr_order__pop(q, false, &t, &it), 0);
	/* the end: everything, in order, ties by arrival */
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, true, &t, &it), 1);
	CU_ASSERT(t == 9 * MS && it.id == 2);
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, true, &t, &it), 1);
	CU_ASSERT(t == 9 * MS && it.id == 4);
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, true, &t, &it), 1);
	CU_ASSERT(t == 30 * MS && it.id == 5);
	CU_ASSERT_EQUAL(fr_order__pop(q, true, &t, &it), 0);
	CU_ASSERT_EQUAL(fr_order__late(q), 0);
	/* one read after a later one went out: handed on, and counted */
	CU_ASSERT_EQUAL(fr_order__push(q, 1 * MS, 80 * MS, &(struct it){ 6, NULL }), 0);
	CU_ASSERT_EQUAL_FATAL(fr_order__pop(q, false, &t, &it), 1);
	CU_ASSERT(t == 1 * MS && it.id == 6);
	CU_ASSERT_EQUAL(fr_order__late(q), 1);
	fr_order__delete(q, NULL);
}

/* Many items in a shuffled order come out sorted (the heap's invariant
 * through growth). */
static void test_many(void)
{
	enum { N = 5000 };
	struct fr_order *q;
	struct it it;
	uint64_t t, last = 0;
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(fr_order__new(sizeof(it), MS, &q), 0);
	srand(7);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(fr_order__push(q, (uint64_t)(rand() % 100000) * 1000, 0,
					       &(struct it){ i, NULL }), 0);
	CU_ASSERT_EQUAL(fr_order__pop(q, false, &t, &it), 0);   /* nothing read past them */
	while (fr_order__pop(q, true, &t, &it) == 1) {
		CU_ASSERT(t >= last);
		last = t;
		n++;
	}
	CU_ASSERT_EQUAL(n, N);
	CU_ASSERT_EQUAL(fr_order__late(q), 0);
	fr_order__delete(q, NULL);
}

static void free_it(void *p)
{
	(*((struct it *)p)->freed)++;
}

static void test_delete_frees(void)
{
	struct fr_order *q;
	int freed = 0;

	CU_ASSERT_EQUAL_FATAL(fr_order__new(sizeof(struct it), MS, &q), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(fr_order__push(q, (uint64_t)i, 0, &(struct it){ i, &freed }), 0);
	fr_order__delete(q, free_it);
	CU_ASSERT_EQUAL(freed, 3);
	fr_order__delete(NULL, free_it);
}

static const struct fr_test tests[] = {
	{ "items read out of order go out in time order once the read time is past "
	  "them; ties by arrival; a late one counted", test_reorder },
	{ "5000 shuffled items come out sorted", test_many },
	{ "delete frees what is still held", test_delete_frees },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "order", NULL, NULL, tests };
