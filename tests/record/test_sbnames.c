/* tests/record/test_sbnames.c: CUnit suite for the sideband's target filter
 * of exec names (src/record/sideband.c): where a per-task target's name
 * tracepoints see every task, a name is fed to the process table only for
 * the target's processes, decided in time order (a fork read after its
 * child's exec still counts), and a pid reused by another process is not.
 */
#include "config.h"

#include "tests/cunit.h"
#include <linux/perf_event.h>
#include <string.h>

#include "ring/record.h"
#include "src/proc/proctable.h"
#include "src/record/sideband.h"

#define ST PERF_SAMPLE_TIME   /* the sideband's sample_id trailer */

static struct fr_sideband *new_sb(void)
{
	struct fr_sideband *sb = NULL;

	CU_ASSERT_EQUAL_FATAL(fr_sideband__new(2, ST, 1 << 20, &sb), 0);
	return sb;
}

static void name(struct fr_sideband *sb, uint32_t pid, const char *comm, uint64_t t)
{
	uint64_t buf[16];

	CU_ASSERT_FATAL(fr_record__make_comm(buf, sizeof(buf), pid, pid, comm,
					     PERF_RECORD_MISC_COMM_EXEC, ST, t) > 0);
	CU_ASSERT_EQUAL(fr_sideband__pend_name(sb, (const void *)buf), 0);
}

/* A FORK or EXIT as the kernel writes it, TIME in the trailer. */
static void task(struct fr_sideband *sb, uint32_t type, uint32_t pid, uint32_t ppid, uint64_t t)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time, id_time;
	} r = { { type, 0, sizeof(r) }, pid, ppid, pid, ppid, t, t };

	CU_ASSERT_EQUAL(fr_sideband__pend(sb, &r.h), 0);
}

static const char *comm_of(const struct fr_sideband *sb, uint32_t pid, uint64_t t)
{
	return fr_proctable__thread_comm(fr_sideband__procs(sb), pid, t);
}

static void expect_comm(const struct fr_sideband *sb, uint32_t pid, uint64_t t, const char *want)
{
	const char *got = comm_of(sb, pid, t);

	CU_ASSERT_PTR_NOT_NULL(got);
	if (got)
		CU_ASSERT_STRING_EQUAL(got, want);
}

static const pid_t child = 100;

/* The command itself: known from its pid alone, no record before. */
static void test_target_pid_named(void)
{
	struct fr_sideband *sb = new_sb();

	CU_ASSERT_EQUAL(fr_sideband__set_target(sb, &child, 1), 0);
	CU_ASSERT_TRUE(fr_sideband__in_target(sb, child, 5));
	name(sb, child, "cmd", 10);
	fr_sideband__feed(sb, UINT64_MAX);
	expect_comm(sb, child, 20, "cmd");
	fr_sideband__delete(sb);
}

/* Another process's exec: nothing of it in the table. */
static void test_outsider_dropped(void)
{
	struct fr_sideband *sb = new_sb();

	CU_ASSERT_EQUAL(fr_sideband__set_target(sb, &child, 1), 0);
	name(sb, 500, "outsider", 10);
	fr_sideband__feed(sb, UINT64_MAX);
	CU_ASSERT_PTR_NULL(comm_of(sb, 500, 20));
	CU_ASSERT_PTR_NULL(fr_proctable__proc_at(fr_sideband__procs(sb), 500, 20));
	CU_ASSERT_FALSE(fr_sideband__in_target(sb, 500, 20));
	fr_sideband__delete(sb);
}

/* The child's exec read before its fork (another CPU's ring, the same
 * drain): the feed's time order puts the fork first. Before the feed the
 * child is not known (the file's COMM is left to the table). */
static void test_fork_read_late(void)
{
	struct fr_sideband *sb = new_sb();

	CU_ASSERT_EQUAL(fr_sideband__set_target(sb, &child, 1), 0);
	name(sb, 101, "grandchild", 20);
	task(sb, PERF_RECORD_FORK, 101, child, 10);
	CU_ASSERT_FALSE(fr_sideband__in_target(sb, 101, 20));
	fr_sideband__feed(sb, UINT64_MAX);
	CU_ASSERT_TRUE(fr_sideband__in_target(sb, 101, 20));
	expect_comm(sb, 101, 30, "grandchild");
	fr_sideband__delete(sb);
}

/* The fork and the exec in different feeds: the name waits past the
 * watermark and is decided when the fork is in. */
static void test_name_waits_for_watermark(void)
{
	struct fr_sideband *sb = new_sb();

	CU_ASSERT_EQUAL(fr_sideband__set_target(sb, &child, 1), 0);
	name(sb, 102, "late", 40);
	fr_sideband__feed(sb, 30);
	CU_ASSERT_PTR_NULL(comm_of(sb, 102, 50));
	task(sb, PERF_RECORD_FORK, 102, child, 35);
	fr_sideband__feed(sb, UINT64_MAX);
	expect_comm(sb, 102, 50, "late");
	fr_sideband__delete(sb);
}

/* A target process exited; its pid then exec'd by another: dropped. A
 * target pid that exited the same way is not the target's any more. */
static void test_reused_pid_dropped(void)
{
	struct fr_sideband *sb = new_sb();
	const char *c;

	CU_ASSERT_EQUAL(fr_sideband__set_target(sb, &child, 1), 0);
	task(sb, PERF_RECORD_FORK, 103, child, 10);
	name(sb, 103, "ours", 15);
	task(sb, PERF_RECORD_EXIT, 103, child, 20);
	name(sb, 103, "theirs", 30);
	name(sb, child, "cmd", 40);
	task(sb, PERF_RECORD_EXIT, child, 1, 50);
	name(sb, child, "reuser", 60);
	fr_sideband__feed(sb, UINT64_MAX);
	expect_comm(sb, 103, 17, "ours");
	c = comm_of(sb, 103, 35);
	CU_ASSERT(!c || strcmp(c, "theirs"));
	c = comm_of(sb, child, 70);
	CU_ASSERT(!c || strcmp(c, "reuser"));
	CU_ASSERT_FALSE(fr_sideband__in_target(sb, 103, 35));
	CU_ASSERT_FALSE(fr_sideband__in_target(sb, child, 70));
	fr_sideband__delete(sb);
}

/* No target set (system-wide, or the tracepoints follow the target's tasks
 * already): every name is fed. */
static void test_no_target_feeds_all(void)
{
	struct fr_sideband *sb = new_sb();

	name(sb, 500, "anyone", 10);
	fr_sideband__feed(sb, UINT64_MAX);
	expect_comm(sb, 500, 20, "anyone");
	CU_ASSERT_TRUE(fr_sideband__in_target(sb, 777, 20));
	fr_sideband__delete(sb);
}

static const struct fr_test tests[] = {
	{ "the target's own pid is named", test_target_pid_named },
	{ "another process's exec is dropped", test_outsider_dropped },
	{ "a fork read after its child's exec: named", test_fork_read_late },
	{ "a name past the watermark waits for its fork", test_name_waits_for_watermark },
	{ "a pid reused after the target's process exited: dropped", test_reused_pid_dropped },
	{ "no target: every name fed", test_no_target_feeds_all },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "sbnames", NULL, NULL, tests };
