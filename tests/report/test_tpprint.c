/* tests/report/test_tpprint.c: CUnit suite for the print fmt evaluator
 * (src/report/tp/tpprint.c): the print fmts of the common tracepoints on canned
 * record bytes give perf script's text (libtraceevent's, checked by hand
 * against it), what lies outside the grammar is refused, and hostile values
 * (fields past the record, strings without an end, division by zero, deep
 * nesting, a short buffer) give an error, never a bad read.
 */
#include "config.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/tp/tpdecode.h"
#include "src/report/tp/tpformat.h"
#include "src/report/tp/tpprint.h"

#define COMMON "name: %s\nID: 1\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char switch_fields[] =
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";
/* 6.x's sched_switch, as the kernel writes it */
static const char switch_print[] =
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	"next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & "
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 "
	"| 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
	"0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { "
	"0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) "
	"+ 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio";

static char text[16384];
static struct fr_tpformat fmt;
static struct fr_tpprint *prog;
static uint8_t rec[256];

/* Compile a format of the common fields, fields and print fmt pf: the
 * evaluator's return. */
static int compile(const char *fields, const char *pf)
{
	int n = snprintf(text, sizeof(text), COMMON, "t");

	fr_tpprint__delete(prog);
	prog = NULL;
	fr_tpformat__exit(&fmt);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "%s\nprint fmt: %s\n", fields, pf);
	CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof(text));
	if (fr_tpformat__parse(&fmt, text, (size_t)n))
		return -EBADMSG;
	return fr_tpprint__new(&prog, &fmt, text + fmt.print_off, fmt.print_len, NULL, 0);
}

static const char *eval(size_t size)
{
	static char buf[512];
	int err = fr_tpprint__eval(prog, rec, size, buf, sizeof(buf));

	return err ? (err == -EBADMSG ? "(EBADMSG)" : "(error)") : buf;
}

static void put(size_t off, uint64_t v, size_t n)
{
	memcpy(rec + off, &v, n);
}

static void test_sched_switch(void)
{
	static const struct { uint64_t state; const char *text; } states[] = {
		{ 0, "R" }, { 1, "S" }, { 2, "D" }, { 0x100, "R+" }, { 0x101, "S+" },
		{ 0x81, "S|I" }, { 0x7f, "S|D|T|t|X|Z|P" }, { 0xff, "S|D|T|t|X|Z|P|I" },
		{ 0x80000000000000ffull, "S|D|T|t|X|Z|P|I" },
	};
	char want[256];

	CU_ASSERT_EQUAL_FATAL(compile(switch_fields, switch_print), 0);
	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "bash", 4);
	put(24, 123, 4);
	put(28, 120, 4);
	memcpy(rec + 40, "swapper/0", 9);
	put(56, 0, 4);
	put(60, (uint64_t)-1, 4);   /* %d of a 4-byte -1 */
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		put(32, states[i].state, 8);
		snprintf(want, sizeof(want), "prev_comm=bash prev_pid=123 prev_prio=120 prev_state=%s "
			 "==> next_comm=swapper/0 next_pid=0 next_prio=-1", states[i].text);
		CU_ASSERT_STRING_EQUAL(eval(64), want);
	}
	memset(rec + 8, 'x', 16);   /* a full comm: its 16 bytes, no more */
	CU_ASSERT_PTR_NOT_NULL(strstr(eval(64), "prev_comm=xxxxxxxxxxxxxxxx prev_pid"));
	rec[8] = '\n';              /* control bytes of a string: '_' */
	CU_ASSERT_PTR_NOT_NULL(strstr(eval(64), "prev_comm=_xxx"));
	CU_ASSERT_STRING_EQUAL(eval(63), "(EBADMSG)");   /* next_prio past the record */
}

static void test_common_events(void)
{
	memset(rec, 0, sizeof(rec));
	/* syscalls: casts of 8-byte fields, %08lx */
	CU_ASSERT_EQUAL(compile("\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
				"\tfield:int flags;\toffset:24;\tsize:8;\tsigned:0;\n",
				"\"dfd: 0x%08lx, flags: 0x%08lx\", ((unsigned long)(REC->dfd)), "
				"((unsigned long)(REC->flags))"), 0);
	put(16, 0xffffff9c, 8);
	put(24, 0x80000, 8);
	CU_ASSERT_STRING_EQUAL(eval(32), "dfd: 0xffffff9c, flags: 0x00080000");
	CU_ASSERT_EQUAL(compile("\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n",
				"\"0x%lx\", REC->ret"), 0);
	put(16, (uint64_t)-2, 8);
	CU_ASSERT_STRING_EQUAL(eval(24), "0xfffffffffffffffe");
	/* raw_syscalls: array elements */
	CU_ASSERT_EQUAL(compile("\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
				"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n",
				"\"NR %ld (%lx, %lx)\", REC->id, REC->args[0], REC->args[5]"), 0);
	put(8, 257, 8);
	put(16, 0xffffff9c, 8);
	put(56, 0x1f8, 8);
	CU_ASSERT_STRING_EQUAL(eval(64), "NR 257 (ffffff9c, 1f8)");
	CU_ASSERT_EQUAL(compile("\tfield:unsigned long args[6];\toffset:8;\tsize:48;\tsigned:0;\n",
				"\"%lx\", REC->args[6]"), -EOPNOTSUPP);
	/* softirq_entry: __print_symbolic, its unknown values in hex */
	CU_ASSERT_EQUAL(compile("\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n",
				"\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, "
				"{ 1, \"TIMER\" }, { 4, \"BLOCK\" })"), 0);
	put(8, 4, 4);
	CU_ASSERT_STRING_EQUAL(eval(12), "vec=4 [action=BLOCK]");
	put(8, 12, 4);
	CU_ASSERT_STRING_EQUAL(eval(12), "vec=12 [action=0xc]");
	/* sched_process_exec: __get_str; exit: a ?: of strings; wakeup: %03d */
	CU_ASSERT_EQUAL(compile("\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
				"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
				"\tfield:int cpu;\toffset:16;\tsize:4;\tsigned:1;\n"
				"\tfield:bool dead;\toffset:20;\tsize:1;\tsigned:0;\n",
				"\"filename=%s pid=%d cpu=%03d dead=%s\", __get_str(filename), REC->pid, "
				"REC->cpu, REC->dead ? \"true\" : \"false\""), 0);
	put(8, 24 | 8 << 16, 4);
	put(12, 77, 4);
	put(16, 1, 4);
	memcpy(rec + 24, "/bin/ls", 8);
	CU_ASSERT_STRING_EQUAL(eval(32), "filename=/bin/ls pid=77 cpu=001 dead=false");
	rec[20] = 1;
	CU_ASSERT_STRING_EQUAL(eval(32), "filename=/bin/ls pid=77 cpu=001 dead=true");
	CU_ASSERT_STRING_EQUAL(eval(31), "(EBADMSG)");   /* its NUL past the record */
	put(8, 40 | 8 << 16, 4);
	CU_ASSERT_STRING_EQUAL(eval(32), "(EBADMSG)");   /* its offset past the record */
	/* timer_start's flags: arithmetic, shifts, __print_flags with leftovers */
	CU_ASSERT_EQUAL(compile("\tfield:unsigned int flags;\toffset:8;\tsize:4;\tsigned:0;\n"
				"\tfield:unsigned long expires;\toffset:16;\tsize:8;\tsigned:0;\n"
				"\tfield:unsigned long now;\toffset:24;\tsize:8;\tsigned:0;\n",
				"\"[timeout=%ld] cpu=%u idx=%u flags=%s\", (long)REC->expires - REC->now, "
				"REC->flags & 0x0003FFFF, REC->flags >> 22, __print_flags(REC->flags & "
				"(0x00040000 | 0x00080000 | 0x00100000 | 0x00200000), \"|\", { 0x00040000, "
				"\"M\" }, { 0x00080000, \"D\" })"), 0);
	put(8, 0x00340003 | 5u << 22, 4);
	put(16, 100, 8);
	put(24, 103, 8);
	CU_ASSERT_STRING_EQUAL(eval(32), "[timeout=-3] cpu=3 idx=5 flags=M|0x300000");
	put(8, 0, 4);
	CU_ASSERT_STRING_EQUAL(eval(32), "[timeout=-3] cpu=0 idx=0 flags=");
}

/* libtraceevent's rules where C's differ: fields read unsigned, casts mask. */
static void test_numbers(void)
{
	CU_ASSERT_EQUAL(compile("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
				"\tfield:short b;\toffset:12;\tsize:2;\tsigned:1;\n"
				"\tfield:unsigned long c;\toffset:16;\tsize:8;\tsigned:0;\n"
				"\tfield:void * p;\toffset:24;\tsize:8;\tsigned:0;\n",
				"\"%d %ld %x %d %hd %ld %d %u %p %5p %-4d| %%\", REC->a, REC->a, REC->a, REC->b, "
				"REC->b, (int)REC->c, -REC->a, (unsigned int)REC->a, REC->p, REC->p, 017"), 0);
	memset(rec, 0, sizeof(rec));
	put(8, (uint64_t)-2, 4);
	put(12, (uint64_t)-100, 2);
	put(16, UINT64_MAX, 8);
	CU_ASSERT_STRING_EQUAL(eval(32), "-2 4294967294 fffffffe 65436 -100 4294967295 2 4294967294 "
			       "(nil) (nil) 15  | %");
	put(24, 0x1234, 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(eval(32), " 0x1234 0x1234 "));
}

/* Outside the grammar: refused when compiled (the caller prints name=value). */
static void test_refused(void)
{
	static const char *const pfs[] = {
		"\"%ps\", REC->a",                    /* %p extensions need kallsyms */
		"\"%c\", REC->a",                     /* libtraceevent misreads %c */
		"\"%*d\", REC->a, REC->a",            /* '*' widths */
		"\"%999d\", REC->a",                  /* a width past FR_TPPRINT_WIDTH_MAX */
		"\"%d\", REC->a, REC->a",             /* more arguments */
		"\"%d %d\", REC->a",                  /* fewer */
		"\"%s\", REC->a",                     /* %s of a number */
		"\"%d\", \"x\"",                      /* a number conversion of a string */
		"\"%d\", REC->a ^ 1",                 /* libtraceevent has no ^ */
		"\"%d\", REC->nope",
		"\"%d\", TASK_REPORT_MAX",           /* a name it cannot know */
		"\"%d\", __get_dynamic_array(a)",
		"\"%s\", __print_symbolic(REC->a, { REC->a, \"x\" })",  /* a flag not a constant */
		"\"a\\n%d\", REC->a",                 /* escapes */
		"\"%d\", (long)-REC->a",              /* not a cast to libtraceevent */
		"\"%d\", 0x10000000000000000",
		"\"%s\", !REC->a ? \"x\" : \"y\"",     /* libtraceevent reads !(a ? ...) */
	};
	char deep[4096];
	int n = snprintf(deep, sizeof(deep), "\"%%d\", ");

	for (size_t i = 0; i < sizeof(pfs) / sizeof(pfs[0]); i++) {
		int err = compile("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n", pfs[i]);

		/* by tpformat.c's grammar already, or by the evaluator's */
		CU_ASSERT(err == -EOPNOTSUPP || err == -EBADMSG);
		CU_ASSERT_PTR_NULL(prog);
	}
	/* nesting within tpformat.c's bound (64), past the evaluator's (48) */
	for (int i = 0; i < 60; i++)
		n += snprintf(deep + n, sizeof(deep) - (size_t)n, "(");
	n += snprintf(deep + n, sizeof(deep) - (size_t)n, "REC->a");
	for (int i = 0; i < 60; i++)
		n += snprintf(deep + n, sizeof(deep) - (size_t)n, ")");
	CU_ASSERT_EQUAL(compile("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n", deep), -EOPNOTSUPP);
	n = snprintf(deep, sizeof(deep), "\"%%d\", REC->a");
	for (int i = 0; i < 300; i++)
		n += snprintf(deep + n, sizeof(deep) - (size_t)n, " + 1");
	CU_ASSERT_EQUAL(compile("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n", deep), -EOPNOTSUPP);
}

static void test_hostile_values(void)
{
	char buf[8];

	CU_ASSERT_EQUAL(compile("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
				"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n",
				"\"%d %d %d\", REC->a / REC->b, REC->a % REC->b, REC->a << REC->b"), 0);
	memset(rec, 0, sizeof(rec));
	put(8, 7, 4);
	put(12, 2, 4);
	CU_ASSERT_STRING_EQUAL(eval(16), "3 1 28");
	put(12, 0, 4);
	CU_ASSERT_STRING_EQUAL(eval(16), "(EBADMSG)");   /* division by zero */
	put(12, 200, 4);
	CU_ASSERT_STRING_EQUAL(eval(16), "0 7 1792");    /* a shift of 200: by 200 & 63 */
	CU_ASSERT_STRING_EQUAL(eval(0), "(EBADMSG)");
	CU_ASSERT_EQUAL(fr_tpprint__eval(prog, rec, 16, buf, sizeof(buf)), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(buf, "0 7 179");          /* cut, still a string */
	CU_ASSERT_EQUAL(fr_tpprint__eval(prog, rec, 16, buf, 0), -ENOSPC);
}

/* fr_tpdecode__text: the print fmt's text, name=value where it cannot be. */
static void test_decode_text(void)
{
	struct fr_tpdecode *d;
	char buf[512];
	int n;

	CU_ASSERT_FATAL(!fr_tpdecode__new(&d));
	n = snprintf(text, sizeof(text), COMMON "%s\nprint fmt: %s\n", "sched_switch", switch_fields,
		     switch_print);
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "sched:sched_switch", text, (size_t)n), 0);
	n = snprintf(text, sizeof(text), COMMON "%s\nprint fmt: %s\n", "t",
		     "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n",
		     "\"a=%d b=%ps q=%d\", REC->a, REC->b, REC->a / REC->b");
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "x:t", text, (size_t)n), 0);
	n = snprintf(text, sizeof(text), COMMON "%s\nprint fmt: %s\n", "u",
		     "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n",
		     "\"a=%d q=%d\", REC->a, REC->a / REC->b");
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "x:u", text, (size_t)n), 0);
	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "sh", 2);
	put(32, 1, 8);
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "sched:sched_switch", rec, 64, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "prev_comm=sh prev_pid=0 prev_prio=0 prev_state=S ==> next_comm= "
			       "next_pid=0 next_prio=0");
	put(8, 6, 4);
	put(12, 3, 4);
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "x:t", rec, 16, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "a=6 b=3");        /* %ps: outside, name=value */
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "x:u", rec, 16, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "a=6 q=2");
	put(12, 0, 4);
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "x:u", rec, 16, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "a=6 b=0");        /* a division by zero: name=value */
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "x:u", rec, 12, buf, sizeof(buf)), -EBADMSG);
	CU_ASSERT_EQUAL(fr_tpdecode__text(d, "x:v", rec, 16, buf, sizeof(buf)), -ENOENT);
	fr_tpdecode__delete(d);
}

static int cleanup(void)
{
	fr_tpprint__delete(prog);
	prog = NULL;
	fr_tpformat__exit(&fmt);
	return 0;
}

static const struct fr_test tests[] = {
	{ "sched_switch as perf script prints it", test_sched_switch },
	{ "the common tracepoints' print fmts", test_common_events },
	{ "numbers as libtraceevent reads and casts them", test_numbers },
	{ "outside the grammar: refused", test_refused },
	{ "hostile values: an error, no bad read", test_hostile_values },
	{ "fr_tpdecode__text and its fall-back", test_decode_text },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "tpprint", NULL, cleanup, tests };
