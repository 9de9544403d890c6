/* tests/util/test_parse.c: CUnit suite for the parsers of src/util.c: numbers with end pointers
 * and range checks, sizes with suffixes, -m pages or sizes, pid lists; and
 * its whole-file reader.
 */
#include "tests/cunit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/util.h"

static void test_u64(void)
{
	uint64_t v = 7;

	CU_ASSERT_EQUAL(fr_parse__u64("42", 1, 100, &v), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(fr_parse__u64("0", 0, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(fr_parse__u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	v = 7;
	CU_ASSERT_EQUAL(fr_parse__u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__u64("101", 1, 100, &v), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__u64("0", 1, 100, &v), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__u64("12abc", 1, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64("", 1, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64(" 5", 1, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64("-5", 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64("+5", 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64("5 ", 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__u64(NULL, 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(v, 7); /* untouched on error */
}

static void test_size(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(fr_parse__size("4096", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(fr_parse__size("4K", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(fr_parse__size("4k", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(fr_parse__size("4M", &v), 0);
	CU_ASSERT_EQUAL(v, 4u << 20);
	CU_ASSERT_EQUAL(fr_parse__size("1GiB", &v), 0);
	CU_ASSERT_EQUAL(v, 1u << 30);
	CU_ASSERT_EQUAL(fr_parse__size("2MB", &v), 0);
	CU_ASSERT_EQUAL(v, 2u << 20);
	CU_ASSERT_EQUAL(fr_parse__size("4T", &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__size("M", &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__size("4MM", &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__size("4Mx", &v), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__size("17179869184G", &v), -ERANGE);
}

static void test_pages(void)
{
	size_t p;

	CU_ASSERT_EQUAL(fr_parse__pages("256", 4096, 1u << 19, &p), 0);
	CU_ASSERT_EQUAL(p, 256);
	CU_ASSERT_EQUAL(fr_parse__pages("1", 4096, 1u << 19, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	CU_ASSERT_EQUAL(fr_parse__pages("4M", 4096, 1u << 19, &p), 0);
	CU_ASSERT_EQUAL(p, 1024);
	CU_ASSERT_EQUAL(fr_parse__pages("4K", 4096, 1u << 19, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	CU_ASSERT_EQUAL(fr_parse__pages("3", 4096, 1u << 19, &p), -EDOM);
	CU_ASSERT_EQUAL(fr_parse__pages("12K", 4096, 1u << 19, &p), -EDOM);
	CU_ASSERT_EQUAL(fr_parse__pages("0", 4096, 1u << 19, &p), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__pages("1025", 4096, 1024, &p), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__pages("8M", 4096, 1024, &p), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__pages("1000B", 4096, 1024, &p), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pages("x", 4096, 1024, &p), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pages("", 4096, 1024, &p), -EINVAL);
}

static void test_pids(void)
{
	int *pids = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL(fr_parse__pids("12", &pids, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(pids ? pids[0] : -1, 12);
	free(pids);
	pids = NULL;
	CU_ASSERT_EQUAL(fr_parse__pids("1,22,333", &pids, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	if (pids && n == 3) {
		CU_ASSERT_EQUAL(pids[0], 1);
		CU_ASSERT_EQUAL(pids[1], 22);
		CU_ASSERT_EQUAL(pids[2], 333);
	}
	free(pids);
	CU_ASSERT_EQUAL(fr_parse__pids("1,,2", &pids, &n), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pids(",1", &pids, &n), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pids("1,", &pids, &n), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pids("0", &pids, &n), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__pids("12a", &pids, &n), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pids("", &pids, &n), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__pids("99999999", &pids, &n), -ERANGE);
}

static void test_duration(void)
{
	uint64_t ns = 0, n = 0;

	CU_ASSERT_EQUAL(fr_parse__duration("10s", &ns), 0);
	CU_ASSERT_EQUAL(ns, 10000000000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("10", &ns), 0);
	CU_ASSERT_EQUAL(ns, 10000000000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("500ms", &ns), 0);
	CU_ASSERT_EQUAL(ns, 500000000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("1.5m", &ns), 0);
	CU_ASSERT_EQUAL(ns, 90000000000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("250us", &ns), 0);
	CU_ASSERT_EQUAL(ns, 250000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("7ns", &ns), 0);
	CU_ASSERT_EQUAL(ns, 7ull);
	CU_ASSERT_EQUAL(fr_parse__duration("2h", &ns), 0);
	CU_ASSERT_EQUAL(ns, 7200000000000ull);
	CU_ASSERT_EQUAL(fr_parse__duration("0", &ns), 0);
	CU_ASSERT_EQUAL(ns, 0);
	CU_ASSERT_EQUAL(fr_parse__duration("10x", &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__duration("s", &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__duration("-1s", &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__duration("", &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__duration("nan", &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__duration("200h", &ns), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__duration("1e300", &ns), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__rate("3/1m", &n, &ns), 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(ns, 60000000000ull);
	CU_ASSERT_EQUAL(fr_parse__rate("3", &n, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__rate("0/1s", &n, &ns), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__rate("3/0s", &n, &ns), -ERANGE);
	CU_ASSERT_EQUAL(fr_parse__rate("x/1s", &n, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_parse__rate("3/1q", &n, &ns), -EINVAL);
}

/* fr_file__slurp: the whole file, NUL after it; its bound, a directory, none */
static void test_slurp(void)
{
	char path[] = "/tmp/fr-slurp-XXXXXX", *buf;
	int fd = mkstemp(path);
	size_t len;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "abc\0def", 7) == 7);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(fr_file__slurp(path, 7, &buf, &len), 0);
	CU_ASSERT(len == 7 && !memcmp(buf, "abc\0def", 7) && buf[7] == '\0');
	free(buf);
	CU_ASSERT_EQUAL(fr_file__slurp(path, 6, &buf, &len), -EFBIG);
	CU_ASSERT(buf == NULL && len == 0);
	unlink(path);
	CU_ASSERT_EQUAL(fr_file__slurp(path, 100, &buf, &len), -ENOENT);
	CU_ASSERT_EQUAL(fr_file__slurp("/tmp", 100, &buf, &len), -EINVAL);
}

static const struct fr_test tests[] = {
	{ "u64", test_u64 },
	{ "size", test_size },
	{ "pages", test_pages },
	{ "pids", test_pids },
	{ "duration and rate", test_duration },
	{ "a whole file", test_slurp },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "parse", NULL, NULL, tests };
