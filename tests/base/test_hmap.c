/* tests/base/test_hmap.c: CUnit suite for base/: the hash map (add, find,
 * remove, replace, equal hashes, growth, churn against a model, -ENOMEM,
 * clear and exit), the hash functions, and fr_grow's overflow checks.
 */
#include "tests/cunit.h"
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/hmap.h"

/* How many times idx is found under hash. */
static int found(const struct fr_hmap *m, uint64_t hash, uint32_t idx)
{
	struct fr_hmap_it it;
	uint32_t i;
	int n = 0;

	for (bool ok = fr_hmap__first(m, hash, &it, &i); ok; ok = fr_hmap__next(m, &it, &i))
		n += i == idx;
	return n;
}

static int candidates(const struct fr_hmap *m, uint64_t hash)
{
	struct fr_hmap_it it;
	uint32_t i;
	int n = 0;

	for (bool ok = fr_hmap__first(m, hash, &it, &i); ok; ok = fr_hmap__next(m, &it, &i))
		n++;
	return n;
}

static void test_empty(void)
{
	struct fr_hmap m = { 0 };
	struct fr_hmap_it it;
	uint32_t i = 7;

	CU_ASSERT_FALSE(fr_hmap__first(&m, 1, &it, &i));
	CU_ASSERT_EQUAL(i, 7);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 0);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, 1, 0), -ENOENT);
	CU_ASSERT_EQUAL(fr_hmap__replace(&m, 1, 0, 1), -ENOENT);
	fr_hmap__clear(&m);
	fr_hmap__exit(&m);
	fr_hmap__exit(&m);
	CU_ASSERT_PTR_NULL(m.slots);
}

static void test_basic(void)
{
	struct fr_hmap m = { 0 };
	uint64_t h1 = fr_hash__u64(1), h2 = fr_hash__u64(2);

	CU_ASSERT_EQUAL(fr_hmap__add(&m, h1, 10), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, h2, 20), 0);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 2);
	CU_ASSERT_EQUAL(found(&m, h1, 10), 1);
	CU_ASSERT_EQUAL(found(&m, h2, 20), 1);
	CU_ASSERT_EQUAL(candidates(&m, h1), 1);
	CU_ASSERT_EQUAL(candidates(&m, fr_hash__u64(3)), 0);
	/* an entry moved in the caller's array */
	CU_ASSERT_EQUAL(fr_hmap__replace(&m, h1, 10, 11), 0);
	CU_ASSERT_EQUAL(found(&m, h1, 10), 0);
	CU_ASSERT_EQUAL(found(&m, h1, 11), 1);
	CU_ASSERT_EQUAL(fr_hmap__replace(&m, h1, 10, 12), -ENOENT);
	CU_ASSERT_EQUAL(fr_hmap__replace(&m, h2, 11, 12), -ENOENT);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, h1, 10), -ENOENT);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, h1, 11), 0);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, h1, 11), -ENOENT);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 1);
	CU_ASSERT_EQUAL(found(&m, h2, 20), 1);
	/* every uint32 is an entry number, UINT32_MAX and 0 too */
	CU_ASSERT_EQUAL(fr_hmap__add(&m, h1, UINT32_MAX), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, h1, 0), 0);
	CU_ASSERT_EQUAL(found(&m, h1, UINT32_MAX), 1);
	CU_ASSERT_EQUAL(found(&m, h1, 0), 1);
	fr_hmap__exit(&m);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 0);
	CU_ASSERT_EQUAL(found(&m, h2, 20), 0);
}

/* Equal hashes: every candidate comes back, in the order added (growth and
 * removal keep it); and
 * hashes that share a home slot but differ are not candidates. */
static void test_collisions(void)
{
	struct fr_hmap m = { 0 };
	struct fr_hmap_it it;
	uint32_t i, want = 0;
	const uint64_t same = 0x1234;

	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL_FATAL(fr_hmap__add(&m, same, i), 0);
	/* same home slot (low bits), other hash */
	for (i = 0; i < 20; i++)
		CU_ASSERT_EQUAL_FATAL(fr_hmap__add(&m, same | (uint64_t)(i + 1) << 40, 1000 + i), 0);
	for (bool ok = fr_hmap__first(&m, same, &it, &i); ok; ok = fr_hmap__next(&m, &it, &i))
		CU_ASSERT_EQUAL(i, want++);
	CU_ASSERT_EQUAL(want, 100);
	CU_ASSERT_EQUAL(candidates(&m, same | (uint64_t)5 << 40), 1);
	CU_ASSERT_EQUAL(found(&m, same | (uint64_t)5 << 40, 1004), 1);
	/* remove from the middle of the cluster: the rest stays findable */
	for (i = 0; i < 100; i += 2)
		CU_ASSERT_EQUAL(fr_hmap__remove(&m, same, i), 0);
	CU_ASSERT_EQUAL(candidates(&m, same), 50);
	want = 1;
	for (bool ok = fr_hmap__first(&m, same, &it, &i); ok; ok = fr_hmap__next(&m, &it, &i), want += 2)
		CU_ASSERT_EQUAL(i, want);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(found(&m, same, i), i % 2);
	for (i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(found(&m, same | (uint64_t)(i + 1) << 40, 1000 + i), 1);
	fr_hmap__exit(&m);
}

/* A cluster that wraps past the last slot: removal shifts back across the end. */
static void test_wrap(void)
{
	struct fr_hmap m = { 0 };
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(fr_hmap__reserve(&m, 4), 0);
	CU_ASSERT_EQUAL_FATAL(m.mask + 1, 16);
	/* homes 14, 15, 15, 0, 14: slots 14, 15, 0, 1, 2 */
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 14, 0), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 15, 1), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 15 | 1u << 8, 2), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 16, 3), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 14 | 1u << 8, 4), 0);
	CU_ASSERT_EQUAL_FATAL(m.mask + 1, 16);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, 14, 0), 0);
	CU_ASSERT_EQUAL(found(&m, 15, 1), 1);
	CU_ASSERT_EQUAL(found(&m, 15 | 1u << 8, 2), 1);
	CU_ASSERT_EQUAL(found(&m, 16, 3), 1);
	CU_ASSERT_EQUAL(found(&m, 14 | 1u << 8, 4), 1);
	/* entry 3 (home slot 0) must not move back before its home */
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, 15, 1), 0);
	CU_ASSERT_EQUAL(fr_hmap__remove(&m, 14 | 1u << 8, 4), 0);
	CU_ASSERT_EQUAL(found(&m, 15 | 1u << 8, 2), 1);
	CU_ASSERT_EQUAL(found(&m, 16, 3), 1);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 2);
	for (i = 0; i <= m.mask; i++)
		if (m.slots[i].full)
			CU_ASSERT_TRUE(i == 15 || i == 0);
	fr_hmap__exit(&m);
}

/* Many entries: growth keeps them all, the map stays at most half full. */
static void test_growth(void)
{
	struct fr_hmap m = { 0 };
	enum { N = 200000 };
	uint32_t i;
	int bad = 0;

	for (i = 0; i < N; i++)
		if (fr_hmap__add(&m, fr_hash__u64(i), i))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), N);
	CU_ASSERT_TRUE(2 * fr_hmap__count(&m) <= m.mask + 1);
	CU_ASSERT_EQUAL((m.mask + 1) & m.mask, 0);
	for (i = 0; i < N; i++)
		bad += found(&m, fr_hash__u64(i), i) != 1;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(candidates(&m, fr_hash__u64(N)), 0);
	/* clear keeps the memory, and the map works again */
	struct fr_hmap_slot *slots = m.slots;
	fr_hmap__clear(&m);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 0);
	CU_ASSERT_PTR_EQUAL(m.slots, slots);
	CU_ASSERT_EQUAL(candidates(&m, fr_hash__u64(1)), 0);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, fr_hash__u64(1), 1), 0);
	CU_ASSERT_EQUAL(found(&m, fr_hash__u64(1), 1), 1);
	CU_ASSERT_PTR_EQUAL(m.slots, slots);
	/* reserve never shrinks and is a no-op when there is room */
	CU_ASSERT_EQUAL(fr_hmap__reserve(&m, 10), 0);
	CU_ASSERT_PTR_EQUAL(m.slots, slots);
	fr_hmap__exit(&m);
}

/* Adds and removes at random over few home slots (hashes with 6 bits, so
 * clusters are long and wrap), checked against a model after every step. */
static void test_churn(void)
{
	enum { KEYS = 300, STEPS = 20000 };
	static bool live[KEYS];
	struct fr_hmap m = { 0 };
	unsigned int seed = 12345;
	int bad = 0, step, k;

	for (step = 0; step < STEPS; step++) {
		uint32_t key = (uint32_t)(rand_r(&seed) % KEYS);
		uint64_t h = key % 61;  /* unmixed on purpose */

		if (live[key]) {
			bad += fr_hmap__remove(&m, h, key) != 0;
			live[key] = false;
		} else {
			bad += fr_hmap__add(&m, h, key) != 0;
			live[key] = true;
		}
		if (step % 97 == 0 || step > STEPS - 50)
			for (k = 0; k < KEYS; k++)
				bad += found(&m, (uint64_t)k % 61, (uint32_t)k) != live[k];
	}
	CU_ASSERT_EQUAL(bad, 0);
	for (k = 0, step = 0; k < KEYS; k++)
		step += live[k];
	CU_ASSERT_EQUAL(fr_hmap__count(&m), (size_t)step);
	fr_hmap__exit(&m);
}

/* A size that cannot be allocated: -ENOMEM before any allocation, and the
 * map unchanged. */
static void test_enomem(void)
{
	struct fr_hmap m = { 0 };
	struct fr_hmap_slot *slots;
	size_t mask;

	CU_ASSERT_EQUAL(fr_hmap__reserve(&m, SIZE_MAX / 2), -ENOMEM);
	CU_ASSERT_PTR_NULL(m.slots);
	CU_ASSERT_EQUAL(fr_hmap__add(&m, 5, 1), 0);
	slots = m.slots;
	mask = m.mask;
	CU_ASSERT_EQUAL(fr_hmap__reserve(&m, SIZE_MAX), -ENOMEM);
	CU_ASSERT_EQUAL(fr_hmap__reserve(&m, SIZE_MAX / 4 / sizeof(struct fr_hmap_slot) + 1), -ENOMEM);
	CU_ASSERT_PTR_EQUAL(m.slots, slots);
	CU_ASSERT_EQUAL(m.mask, mask);
	CU_ASSERT_EQUAL(fr_hmap__count(&m), 1);
	CU_ASSERT_EQUAL(found(&m, 5, 1), 1);
	fr_hmap__exit(&m);
}

static void test_hash(void)
{
	const char a[] = "abcdefghijklmnop";

	CU_ASSERT_NOT_EQUAL(fr_hash__u64(0), fr_hash__u64(1));
	CU_ASSERT_NOT_EQUAL(fr_hash__u64(1) & 0xffff, fr_hash__u64(2) & 0xffff);
	CU_ASSERT_NOT_EQUAL(fr_hash__mix(fr_hash__mix(0, 1), 2), fr_hash__mix(fr_hash__mix(0, 2), 1));
	CU_ASSERT_EQUAL(fr_hash__str(7, "main"), fr_hash__bytes(7, "main", 4));
	CU_ASSERT_NOT_EQUAL(fr_hash__str(7, "main"), fr_hash__str(8, "main"));
	/* the length counts: a trailing zero byte is not the end */
	CU_ASSERT_NOT_EQUAL(fr_hash__bytes(0, "ab\0", 3), fr_hash__bytes(0, "ab", 2));
	CU_ASSERT_NOT_EQUAL(fr_hash__bytes(0, a, 8), fr_hash__bytes(0, a, 16));
	CU_ASSERT_NOT_EQUAL(fr_hash__str(0, ""), fr_hash__str(0, "a"));
	/* every length up to 16 differs from the one before */
	for (size_t n = 1; n <= 16; n++)
		CU_ASSERT_NOT_EQUAL(fr_hash__bytes(0, a, n), fr_hash__bytes(0, a, n - 1));
	/* an unaligned start hashes the same bytes the same */
	char buf[20];
	memcpy(buf + 1, a, 11);
	CU_ASSERT_EQUAL(fr_hash__bytes(0, buf + 1, 11), fr_hash__bytes(0, a, 11));
}

static void test_grow(void)
{
	int *a = NULL;
	size_t cap = 0;

	CU_ASSERT_EQUAL(fr_grow(&a, &cap, 0, sizeof(*a), 4), 0);
	CU_ASSERT_PTR_NULL(a);
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, 1, sizeof(*a), 4), 0);
	CU_ASSERT_EQUAL(cap, 4);
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, 5, sizeof(*a), 4), 0);
	CU_ASSERT_EQUAL(cap, 8);
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, 100, sizeof(*a), 4), 0);
	CU_ASSERT_EQUAL(cap, 128);
	a[127] = 1;
	int *keep = a;
	/* overflow of the count and of count * size: unchanged */
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, SIZE_MAX, sizeof(*a), 4), -ENOMEM);
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, SIZE_MAX / 2 + 2, 1, 4), -ENOMEM);
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, SIZE_MAX / sizeof(*a) + 1, sizeof(*a), 4), -ENOMEM);
	CU_ASSERT_PTR_EQUAL(a, keep);
	CU_ASSERT_EQUAL(cap, 128);
	free(a);
	/* min_cap 0 starts at 1 */
	a = NULL;
	cap = 0;
	CU_ASSERT_EQUAL(fr_grow(&a, &cap, 3, sizeof(*a), 0), 0);
	CU_ASSERT_EQUAL(cap, 4);
	free(a);
}

static const struct fr_test tests[] = {
	{ "empty", test_empty },
	{ "add, find, replace, remove", test_basic },
	{ "equal hashes", test_collisions },
	{ "removal across the end", test_wrap },
	{ "growth", test_growth },
	{ "churn against a model", test_churn },
	{ "ENOMEM leaves the map unchanged", test_enomem },
	{ "hash functions", test_hash },
	{ "fr_grow", test_grow },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "base", NULL, NULL, tests };
