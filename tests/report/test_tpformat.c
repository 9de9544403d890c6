/* tests/report/test_tpformat.c: CUnit suite for the strict grammar of
 * recorded tracepoint formats (src/report/tp/tpformat.c) and the decoding that
 * uses it (src/report/tp/tpdecode.c): real formats accepted and printed, each
 * kind of damage refused by name with the fields still shown, every
 * single-byte substitution of a real format survived, and every field of a
 * record bounded by that record.
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

static const char sched_switch[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1), "
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }) : \"R\", REC->prev_state & "
	"(((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

static const char sys_enter_read[] =
	"name: sys_enter_read\nID: 842\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", ((unsigned long)(REC->fd)), "
	"((unsigned long)(REC->buf)), ((unsigned long)(REC->count))\n";

static const char with_loc[] =
	"name: msg\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"\tfield:__data_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:char tail[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%s %s %s\", __get_str(msg), __get_rel_str(rel), REC->tail\n";

/* text with the first `from` replaced by `to` (static buffer) */
static const char *edit(const char *text, const char *from, const char *to)
{
	static char buf[8192];
	const char *p = strstr(text, from);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	return buf;
}

static uint8_t rec[64];

static void fill_switch(void)
{
	int32_t pid = 42, prio = 120, npid = 7, nprio = 100;
	int64_t state = 1;

	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "sleep", 5);
	memcpy(rec + 24, &pid, 4);
	memcpy(rec + 28, &prio, 4);
	memcpy(rec + 32, &state, 8);
	memcpy(rec + 40, "cat", 3);
	memcpy(rec + 56, &npid, 4);
	memcpy(rec + 60, &nprio, 4);
}

static void test_real_formats(void)
{
	struct fr_tpformat f;
	struct fr_tpdecode *d;
	char buf[512];

	CU_ASSERT_EQUAL(fr_tpformat__parse(&f, sched_switch, strlen(sched_switch)), 0);
	CU_ASSERT_EQUAL(f.nr_fields, 11);
	CU_ASSERT_EQUAL(f.nr_common, 4);
	CU_ASSERT_STRING_EQUAL(f.fields[5].name, "prev_pid");
	CU_ASSERT_STRING_EQUAL(f.fields[5].conv, "%d");
	CU_ASSERT_STRING_EQUAL(f.fields[4].conv, "");      /* an array: printed raw */
	CU_ASSERT_STRING_EQUAL(f.fields[7].conv, "");      /* __print_flags: not a field */
	fr_tpformat__exit(&f);
	CU_ASSERT_FATAL(!fr_tpdecode__new(&d));
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "sched:sched_switch", sched_switch, strlen(sched_switch)), 0);
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "syscalls:sys_enter_read", sys_enter_read,
					 strlen(sys_enter_read)), 0);
	fill_switch();
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "sched:sched_switch", rec, 64), 0);
	CU_ASSERT_EQUAL(fr_tpdecode__fields(d, "sched:sched_switch", rec, 64, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, " prev_comm=sleep prev_pid=42 prev_prio=120 prev_state=1 "
			       "next_comm=cat next_pid=7 next_prio=100");
	memset(rec, 0, sizeof(rec));
	rec[16] = 3;
	CU_ASSERT_EQUAL(fr_tpdecode__fields(d, "syscalls:sys_enter_read", rec, 40, buf, sizeof(buf)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "fd=0x00000003"));   /* the print fmt's %08lx and 0x */
	CU_ASSERT_FALSE(fr_tpdecode__say(d, "f"));
	fr_tpdecode__delete(d);
}

/* Each kind of damage: refused with a reason, the fields still decoded raw. */
static void test_refusals(void)
{
	static const struct { const char *from, *to, *why; int err; } cases[] = {
		{ "REC->prev_state &", "REC->xrev_state &", "names no field", -EBADMSG },
		{ "((((0x00000000 |", "((((0x%0000000 |", "print fmt", -EBADMSG },
		{ "((((0x00000000 |", "((((0x0 % 0x0 |", "division by zero", -EBADMSG },
		{ ", REC->next_comm", "{ REC->next_comm", "", -EBADMSG },
		{ "REC->prev_comm,", "R%C->prev_comm,", "", -EBADMSG },
		{ "prev_comm[16]", "prev_comm[\"6]", "field line", -EBADMSG },
		{ "pid_t prev_pid", "pid_t p[ev_pid", "field line", -EBADMSG },
		{ "offset:24;", "offset:20;", "overlaps", -EBADMSG },
		{ "pid_t prev_pid", "__data_locpid_t prev_pid", "bad type", -EBADMSG },
		{ "size:4;\tsigned:1;\n\n", "size:3;\tsigned:1;\n\n", "size", -EBADMSG },
		{ "offset:56;", "offset:65535;", "largest record", -EBADMSG },
		{ "signed:0;", "signed:2;", "signed", -EBADMSG },
		{ "next_pid=%d", "next_pid=%q", "conversion", -EBADMSG },
		{ "REC->next_prio\n", "REC->next_prio, REC->next_pid\n", "in number", -EBADMSG },
		{ "\nprint fmt: ", "\nprint fnt: ", "print fmt", -EBADMSG },
		{ "name: sched_switch", "name: sched_swatch", "another event", -EINVAL },
		{ "ID: 372", "ID: 37x", "", -EINVAL },
		{ "format:\n", "format;\n", "", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = edit(sched_switch, cases[i].from, cases[i].to);
		struct fr_tpdecode *d;
		char buf[512];
		int err;

		CU_ASSERT_FATAL(!fr_tpdecode__new(&d));
		err = fr_tpdecode__add(d, "sched:sched_switch", t, strlen(t));
		if (err != cases[i].err)
			fprintf(stderr, "case %zu (%s): %d\n", i, cases[i].to, err);
		CU_ASSERT_EQUAL(err, cases[i].err);
		fill_switch();
		err = fr_tpdecode__fields(d, "sched:sched_switch", rec, 64, buf, sizeof(buf));
		if (cases[i].err == -EBADMSG) {   /* the accepted fields, raw */
			CU_ASSERT_EQUAL(err, 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(buf, "prev_prio=120"));
		} else {
			CU_ASSERT_EQUAL(err, -ENOENT);
		}
		CU_ASSERT_TRUE(fr_tpdecode__say(d, "f"));
		fr_tpdecode__delete(d);
		if (cases[i].why[0]) {   /* the reason, as the grammar gives it */
			struct fr_tpformat f;

			fr_tpformat__parse(&f, t, strlen(t));
			if (!strstr(f.why, cases[i].why) && cases[i].err == -EBADMSG)
				fprintf(stderr, "case %zu: why \"%s\"\n", i, f.why);
			CU_ASSERT_TRUE(cases[i].err != -EBADMSG || strstr(f.why, cases[i].why));
			fr_tpformat__exit(&f);
		}
	}
}

/* Every byte of a real format replaced by each of these: no crash (the
 * tests runs under ASan in distcheck), a defined answer, records decoded. */
static void test_every_byte(void)
{
	static const char subst[] = "()\",;:09 \n{}[]x->%*|?";
	size_t n = strlen(sched_switch), refused = 0;
	char *t = malloc(n);

	CU_ASSERT_FATAL(t != NULL);
	for (size_t i = 0; i < n; i++) {
		for (const char *c = subst; *c; c++) {
			struct fr_tpdecode *d;
			char buf[512];
			int err;

			memcpy(t, sched_switch, n);
			t[i] = *c;
			CU_ASSERT_FATAL(!fr_tpdecode__new(&d));
			err = fr_tpdecode__add(d, "sched:sched_switch", t, n);
			CU_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);
			refused += err != 0;
			fill_switch();
			fr_tpdecode__check(d, "sched:sched_switch", rec, 64);
			fr_tpdecode__fields(d, "sched:sched_switch", rec, 64, buf, sizeof(buf));
			memset(rec, 0xff, sizeof(rec));
			fr_tpdecode__fields(d, "sched:sched_switch", rec, 64, buf, sizeof(buf));
			fr_tpdecode__delete(d);
		}
	}
	CU_ASSERT(refused > n);   /* most substitutions are refused */
	free(t);
}

static void put_loc(uint32_t at, uint16_t off, uint16_t len)
{
	uint32_t v = (uint32_t)len << 16 | off;

	memcpy(rec + at, &v, 4);
}

/* Every length and offset of a record: each field bounded by it. */
static void test_bounds(void)
{
	struct fr_tpdecode *d;
	char buf[512];

	CU_ASSERT_FATAL(!fr_tpdecode__new(&d));
	CU_ASSERT_EQUAL(fr_tpdecode__add(d, "x:msg", with_loc, strlen(with_loc)), 0);
	memset(rec, 0, sizeof(rec));
	put_loc(8, 20, 4);                 /* msg: "abc" at 20 */
	memcpy(rec + 20, "abc", 4);
	put_loc(12, 8, 4);                 /* rel: at 12 + 4 + 8 = 24 */
	memcpy(rec + 24, "def", 4);
	memcpy(rec + 16, "ghi", 4);        /* tail, up to the record's end */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), 0);
	CU_ASSERT_EQUAL(fr_tpdecode__fields(d, "x:msg", rec, 28, buf, sizeof(buf)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "msg=abc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "rel=def"));
	/* every size short of the fields: damaged */
	for (size_t size = 0; size < 16; size++)
		CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, size), -EBADMSG);
	put_loc(8, 20, 40);                /* __data_loc length past the end */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), -EBADMSG);
	CU_ASSERT_EQUAL(fr_tpdecode__fields(d, "x:msg", rec, 28, buf, sizeof(buf)), -EBADMSG);
	put_loc(8, 60, 4);                 /* __data_loc offset past the end */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), -EBADMSG);
	put_loc(8, 20, 4);
	put_loc(12, 30, 4);                /* __rel_loc: relative to its own end */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), -EBADMSG);
	put_loc(12, 8, 4);
	memcpy(rec + 24, "defg", 4);       /* a string without a NUL up to the record's end */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), -EBADMSG);
	memcpy(rec + 20, "abcd", 4);       /* printed up to the next NUL: inside, so not damage */
	memcpy(rec + 24, "def", 4);
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), 0);
	memcpy(rec + 20, "abc", 4);
	memset(rec + 16, 'x', 12);         /* the flexible tail without a NUL */
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:msg", rec, 28), -EBADMSG);
	CU_ASSERT_EQUAL(fr_tpdecode__fields(d, "x:msg", rec, 28, buf, sizeof(buf)), -EBADMSG);
	CU_ASSERT_EQUAL(fr_tpdecode__each(d, "x:msg", rec, 28, NULL, NULL), -EBADMSG);
	CU_ASSERT_EQUAL(fr_tpdecode__nr_bad(d), 21);   /* 16 sizes + 5 damaged records */
	CU_ASSERT_TRUE(fr_tpdecode__say(d, "f"));
	CU_ASSERT_EQUAL(fr_tpdecode__check(d, "x:other", rec, 28), -ENOENT);
	fr_tpdecode__delete(d);
}

static const struct fr_test tests[] = {
	{ "real formats accepted and printed", test_real_formats },
	{ "damage refused by name, fields kept", test_refusals },
	{ "every byte of a real format substituted", test_every_byte },
	{ "every field bounded by its record", test_bounds },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "tpformat", NULL, NULL, tests };
