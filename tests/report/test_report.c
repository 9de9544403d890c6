/* tests/report/test_report.c: CUnit suite for the report's outputs on synthetic
 * samples: the text histogram with call paths, --folded, perf-script and
 * JSON (golden files in tests/fixtures, and the JSON must parse), the flame
 * graph SVG and the HTML page (golden), the
 * parsing of --sort keys and --time values, and the readahead walk (the
 * reader's records in its order, also when the callback stops).
 */
#include "config.h"

#include "tests/cunit.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"
#include "src/report/tp/tpdecode.h"
#include "tests/report/golden.h"

static const struct fr_sym s_main = { "main", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_run = { "run", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_hot = { "hot", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_mix = { "mix", "/usr/bin/app", "app", false, true, false, 0 };
static const struct fr_sym s_read = { "read", "/lib/libc.so.6", "libc.so.6", false, false, false, 0 };
static const struct fr_sym s_ksys = { "ksys_read", "[kernel.kallsyms]", "[kernel.kallsyms]", true,
				      false, false, 0 };
static const struct fr_sym s_odd = { "odd;name\nx \"q\" \xc3\xa9\xff", "/usr/bin/app", "app",
				     false, false, false, 0 };
static const struct fr_sym s_unk = { "[unknown]", "[unknown]", "[unknown]", false, false, true, 0 };

static struct fr_file_event ev_clock, ev_tp;

#define F(sym, addr, off, vaddr) { &(sym), NULL, 0, (addr), (off), (vaddr) }

static const struct fr_frame st_hot[] = {   /* leaf first */
	{ &s_mix, "/src/app.c", 12, 0x5555000011c0, 0x10, 0x11c0 },
	{ &s_hot, "/src/app.c", 30, 0x5555000011c0, 0x10, 0x11c0 },
	F(s_run, 0x555500001235, 0x5, 0x1235), F(s_main, 0x55550000108c, 0x1c, 0x108c),
};
static const struct fr_frame st_hot2[] = {
	{ &s_hot, "/src/app.c", 31, 0x5555000011d0, 0x20, 0x11d0 },
	F(s_run, 0x555500001235, 0x5, 0x1235), F(s_main, 0x55550000108c, 0x1c, 0x108c),
};
static const struct fr_frame st_read[] = {
	F(s_ksys, 0xffffffff81000610ull, 0x10, 0xffffffff81000610ull),
	F(s_read, 0x7f00000f82ad, 0xd, 0xf82ad), F(s_main, 0x555500001099, 0x29, 0x1099),
};
static const struct fr_frame st_odd[] = { F(s_odd, 0x555500001300, 0, 0x1300),
					  F(s_unk, 0x1234, 0, 0) };

static struct fr_rsample sample(const struct fr_file_event *e, const char *comm, uint32_t pid,
				uint64_t time, const struct fr_frame *f, size_t n)
{
	struct fr_rsample s = { .event = e, .pid = pid, .tid = pid, .cpu = 1, .time = time,
				.period = 1000000, .comm = comm, .frames = f, .nr_frames = n,
				.has_stack = true };

	return s;
}

static const char *const comm_app = "app", *const comm_other = "other";

/* The synthetic profile: 3x hot via mix, 1x hot, 1x read in another
 * process, 1x an odd name. */
static size_t make_samples(struct fr_rsample *out)
{
	size_t n = 0;

	for (int i = 0; i < 3; i++)
		out[n++] = sample(&ev_clock, comm_app, 100, 1000000000ull + (uint64_t)i * 1000123,
				  st_hot, 4);
	out[n++] = sample(&ev_clock, comm_app, 100, 1004000000ull, st_hot2, 3);
	out[n++] = sample(&ev_clock, comm_other, 200, 1005000000ull, st_read, 3);
	out[n++] = sample(&ev_clock, comm_app, 100, 1006000000ull, st_odd, 2);
	return n;
}

static int setup_events(void)
{
	ev_clock.name = "cpu-clock";
	ev_clock.attr.type = PERF_TYPE_SOFTWARE;
	ev_clock.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	ev_tp.name = "syscalls:sys_enter_read";
	ev_tp.index = 1;
	ev_tp.attr.type = PERF_TYPE_TRACEPOINT;
	ev_tp.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	return 0;
}

static void test_text(void)
{
	struct fr_hist_opts o = { .callchains = true, .chain_limit = 0.5 };
	struct fr_rsample s[8];
	struct fr_hist *h;
	size_t n = make_samples(s), len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(fr_hist__parse_keys("comm,dso,sym", &o) == 0);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_hist__add(h, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_hist__samples(h), 6);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fr_hist__delete(h);
	/* by srcline and pid, without call paths */
	o.callchains = false;
	CU_ASSERT_FATAL(fr_hist__parse_keys("pid,srcline", &o) == 0);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_hist__add(h, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fr_hist__delete(h);
	fclose(f);
	check_golden("report_text.golden", buf);
	free(buf);
}

/* --children: inclusive weights (main and run on 4 of 6 stacks, hot on 4,
 * read's caller main counted once), and the cpu and tid keys. */
static void test_children(void)
{
	struct fr_hist_opts o = { .children = true, .chain_limit = 0.5 };
	struct fr_rsample s[8];
	struct fr_hist *h;
	size_t n = make_samples(s), len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(fr_hist__parse_keys("sym", &o) == 0);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_hist__add(h, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fr_hist__delete(h);
	o.children = false;
	s[4].cpu = 0;
	s[4].tid = 201;
	CU_ASSERT_FATAL(fr_hist__parse_keys("cpu,tid", &o) == 0);
	CU_ASSERT(o.nr_keys == 2 && o.keys[0] == FR_KEY_CPU && o.keys[1] == FR_KEY_TID);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_hist__add(h, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fr_hist__delete(h);
	fclose(f);
	check_golden("report_children.golden", buf);
	free(buf);
}

/* Samples that carry the resolver's stack ids (a hist remembers where the
 * last sample of an id went and adds the next ones there in one go) print
 * exactly as the same samples without ids, whatever the keys and views:
 * ids of 3,000 callchains over 4,096 memo slots (colliding), names, pids,
 * tids and CPUs that change under one id, periods that vary. */
static char *print_hist(const struct fr_hist_opts *o, const struct fr_rsample *s, size_t n,
			bool ids)
{
	struct fr_hist *h;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fr_hist__new(o, &h) == 0);
	for (size_t i = 0; i < n; i++) {
		struct fr_rsample x = s[i];

		if (!ids)
			x.stack_id = 0;
		CU_ASSERT_EQUAL(fr_hist__add(h, &x), 0);
	}
	CU_ASSERT_EQUAL(fr_hist__samples(h), n);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fr_hist__delete(h);
	fclose(f);
	return buf;
}

static void test_memo(void)
{
	static const struct { const struct fr_frame *f; size_t n; } st[] = {
		{ st_hot, 4 }, { st_hot2, 3 }, { st_read, 3 }, { st_odd, 2 },
	};
	static const char *const keys[] = { "comm,dso,sym", "sym", "pid,srcline", "cpu,tid,sym" };
	const size_t n = 20000;
	struct fr_rsample *s = calloc(n, sizeof(*s));
	uint64_t x = 0x2545f4914f6cdd1dull, hits = 0;

	CU_ASSERT_FATAL(s != NULL);
	for (size_t i = 0; i < n; i++) {
		uint64_t id;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* runs of one id (as a hot loop gives), and 3,000 ids in all */
		id = (i && (x & 3)) ? s[i - 1].stack_id : 1 + (x >> 8) % 3000;
		hits += i && id == s[i - 1].stack_id;
		s[i] = sample(&ev_clock, (x >> 20) % 7 ? comm_app : comm_other,
			      100 + (uint32_t)((x >> 24) % 5 == 0), 1000 + i, st[id % 4].f,
			      st[id % 4].n);
		s[i].tid = s[i].pid + (uint32_t)((x >> 28) % 11 == 0);
		s[i].cpu = (uint32_t)((x >> 32) % 13 == 0);
		s[i].period = 1000 + (x >> 40) % 5000;
		s[i].stack_id = id;
	}
	CU_ASSERT(hits > n / 2);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (int v = 0; v < 8; v++) {
			struct fr_hist_opts o = { .callchains = v & 1, .children = (v & 2) != 0,
						  .period = (v & 4) != 0 };
			char *a, *b;

			CU_ASSERT_FATAL(fr_hist__parse_keys(keys[k], &o) == 0);
			a = print_hist(&o, s, n, true);
			b = print_hist(&o, s, n, false);
			CU_ASSERT_PTR_NOT_NULL(a);
			CU_ASSERT_PTR_NOT_NULL(b);
			if (a && b && strcmp(a, b))
				CU_FAIL("a hist with stack ids prints otherwise than without");
			free(a);
			free(b);
		}
	free(s);
}

/* Histograms of one profile split over two "resolvers" (the second with
 * its own copies of every symbol, file and name) merge into what one
 * histogram of all the samples prints, in every view. */
/* The second resolver's copy of a string or symbol: one per distinct one, as
 * a resolver interns them (equal contents, equal pointers). */
static char *pool_str[64];
static size_t npool_str;

static const char *intern2(const char *s)
{
	for (size_t i = 0; i < npool_str; i++)
		if (!strcmp(pool_str[i], s))
			return pool_str[i];
	return pool_str[npool_str++] = strdup(s);
}

static struct fr_frame *copy_frames(const struct fr_frame *f, size_t n, struct fr_sym *syms,
				    size_t *nsyms)
{
	struct fr_frame *c = calloc(n, sizeof(*c));

	for (size_t i = 0; c && i < n; i++) {
		struct fr_sym *s = NULL;

		for (size_t j = 0; j < *nsyms && !s; j++)
			if (!strcmp(syms[j].name, f[i].sym->name) && !strcmp(syms[j].dso, f[i].sym->dso))
				s = &syms[j];
		if (!s) {
			s = &syms[(*nsyms)++];
			*s = *f[i].sym;
			s->name = intern2(f[i].sym->name);
			s->dso = intern2(f[i].sym->dso);
			s->dso_short = intern2(f[i].sym->dso_short);
		}
		c[i] = f[i];
		c[i].sym = s;
		c[i].file = f[i].file ? intern2(f[i].file) : NULL;
	}
	return c;
}

static void test_hist_merge(void)
{
	static const char *const keys[] = { "comm,dso,sym", "sym", "pid,srcline", "cpu,tid,sym",
					    "dso" };
	struct fr_rsample s[8], t[8];
	struct fr_sym syms[64];
	size_t n = make_samples(s), nsyms = 0;
	/* the second half "resolved" again: other pointers, same contents */
	for (size_t i = 0; i < n; i++) {
		t[i] = s[i];
		t[i].frames = copy_frames(s[i].frames, s[i].nr_frames, syms, &nsyms);
		t[i].comm = intern2(s[i].comm);
		CU_ASSERT_FATAL(t[i].frames != NULL);
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (int v = 0; v < 8; v++) {
			struct fr_hist_opts o = { .callchains = v & 1, .children = (v & 2) != 0,
						  .period = (v & 4) != 0 };
			struct fr_hist *all, *a, *b, *m;
			char *x = NULL, *y = NULL;
			size_t lx, ly;
			FILE *fx = open_memstream(&x, &lx), *fy = open_memstream(&y, &ly);

			CU_ASSERT_FATAL(fr_hist__parse_keys(keys[k], &o) == 0);
			CU_ASSERT_FATAL(fr_hist__new(&o, &all) == 0 && fr_hist__new(&o, &a) == 0 &&
					fr_hist__new(&o, &b) == 0 && fr_hist__new(&o, &m) == 0);
			for (int rep = 0; rep < 3; rep++)
				for (size_t i = 0; i < n; i++) {
					CU_ASSERT(fr_hist__add(all, &s[i]) == 0);
					CU_ASSERT(fr_hist__add(all, &s[i]) == 0);
					CU_ASSERT(fr_hist__add(a, &s[i]) == 0);
					CU_ASSERT(fr_hist__add(b, &t[i]) == 0);
				}
			CU_ASSERT_EQUAL(fr_hist__merge(m, a), 0);
			CU_ASSERT_EQUAL(fr_hist__merge(m, b), 0);
			CU_ASSERT_EQUAL(fr_hist__samples(m), fr_hist__samples(all));
			CU_ASSERT_EQUAL(fr_hist__print(all, "cpu-clock", fx), 0);
			CU_ASSERT_EQUAL(fr_hist__print(m, "cpu-clock", fy), 0);
			fclose(fx);
			fclose(fy);
			CU_ASSERT_PTR_NOT_NULL(x);
			CU_ASSERT_PTR_NOT_NULL(y);
			if (x && y && strcmp(x, y)) {
				fprintf(stderr, "\n%s v%d: one:\n%s\nmerged:\n%s", keys[k], v, x, y);
				CU_FAIL("the merged histogram prints otherwise");
			}
			free(x);
			free(y);
			fr_hist__delete(m);   /* before the ones whose symbols it names */
			fr_hist__delete(all);
			fr_hist__delete(a);
			fr_hist__delete(b);
		}
	for (size_t i = 0; i < n; i++)
		free((void *)t[i].frames);
	while (npool_str)
		free(pool_str[--npool_str]);
}

static void test_folded(void)
{
	struct fr_rsample s[8];
	struct fr_folded *fo;
	size_t n = make_samples(s), len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(fr_folded__new(false, &fo) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_folded__add(fo, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_folded__print(fo, f), 0);
	fr_folded__delete(fo);
	fclose(f);
	check_golden("report_folded.golden", buf);
	/* every line: no ';' inside names, "stack count" */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');

		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		CU_ASSERT(strspn(sp + 1, "0123456789") == strlen(sp + 1) && sp[1]);
	}
	free(buf);
}

/* perf script's default fields: a callchain's sample with its frames (an
 * address no symbol covers as "[unknown] (FILE)"), one without a callchain
 * on one line (the address as sampled, the function the inline frames are
 * in), a tracepoint; event names aligned to the longest. */
static void test_script(void)
{
	static const struct fr_sym s_nosym = { "app+0x1400", "/usr/bin/app", "app", false, false,
					       true, 0 };
	static const struct fr_frame st_nosym[] = { F(s_nosym, 0x555500001400, 0, 0x1400),
						     F(s_main, 0x55550000108c, 0x1c, 0x108c) };
	struct fr_file_event ev_flat = ev_clock;
	struct fr_rsample s[8];
	size_t n = make_samples(s), len;
	int width = (int)strlen(ev_tp.name);
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_script__sample(f, &s[i], NULL, width), 0);
	s[0] = sample(&ev_clock, comm_app, 100, 1006500000ull, st_nosym, 2);
	CU_ASSERT_EQUAL(fr_script__sample(f, &s[0], NULL, width), 0);
	ev_flat.attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	s[0] = sample(&ev_flat, comm_app, 100, 1006700000ull, st_hot, 2);
	CU_ASSERT_EQUAL(fr_script__sample(f, &s[0], NULL, width), 0);
	s[0] = sample(&ev_tp, comm_other, 200, 1007000000ull, NULL, 0);
	s[0].has_stack = false;
	CU_ASSERT_EQUAL(fr_script__sample(f, &s[0], NULL, width), 0);
	fclose(f);
	check_golden("report_script.golden", buf);
	free(buf);
}

/* A small JSON validator: value := object | array | string | number | literal. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_seq(const char *p, char close, bool object)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	if (*p == '{')
		return json_seq(p, '}', true);
	if (*p == '[')
		return json_seq(p, ']', false);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || isdigit((unsigned char)*p)) {
		char *end;

		strtod(p, &end);
		return end;
	}
	return NULL;
}

static void test_json(void)
{
	struct fr_rsample s[8];
	struct fr_json *j;
	size_t n = make_samples(s), len;
	char *buf;
	const char *end;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(fr_json__new(f, NULL, &j) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_json__sample(j, &s[i]), 0);
	s[0] = sample(&ev_tp, comm_other, 200, 1007000000ull, NULL, 0);
	CU_ASSERT_EQUAL(fr_json__sample(j, &s[0]), 0);
	/* main>run>hot, then main>hot before it ended: the old frames end 1 ns
	 * before the new begin (a viewer would begin the new hot first) */
	s[0] = sample(&ev_clock, comm_other, 300, 1008000000ull, st_hot2, 3);
	CU_ASSERT_EQUAL(fr_json__sample(j, &s[0]), 0);
	s[0] = sample(&ev_clock, comm_other, 300, 1008500000ull, st_hot2 + 1, 2);
	s[0].frames = (const struct fr_frame[]){ st_hot2[0], st_hot2[2] };
	CU_ASSERT_EQUAL(fr_json__sample(j, &s[0]), 0);
	CU_ASSERT_EQUAL(fr_json__finish(j, "/tmp/x.frec"), 0);
	fclose(f);
	check_golden("report_json.golden", buf);
	end = json_value(buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	CU_ASSERT_EQUAL(*json_ws(end), '\0');
	CU_ASSERT_PTR_NULL(json_value("{\"a\":[1,2,}"));   /* the validator can fail */
	CU_ASSERT_PTR_NULL(json_value("\"\x01\""));
	free(buf);
}

/* The flame graph of the synthetic profile: frames, shares, escaped names
 * (golden), and the page with its timeline and trigger mark. */
/* A fill hook: red for "hot", blue otherwise; the depth as the note. */
static void path_fill(void *ctx, const char *const *path, size_t n, uint64_t weight,
		      unsigned rgb[3], char *note, size_t note_len)
{
	bool hot = !strcmp(path[n - 1], "hot");

	(void)ctx;
	(void)weight;
	CU_ASSERT_STRING_EQUAL(path[0], "all");
	rgb[0] = hot ? 255 : 0;
	rgb[1] = 0;
	rgb[2] = hot ? 0 : 255;
	snprintf(note, note_len, "depth %zu", n);
}

static void test_flame(void)
{
	struct fr_rsample s[8];
	struct fr_folded *fo;
	struct fr_timeline *tl;
	size_t n = make_samples(s), len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);
	struct fr_flame_opts o = { .title = "Flame Graph: cpu-clock", .unit = "samples",
				   .standalone = true };
	struct fr_html_info in = { "/tmp/x.frec", "cpu-clock", "samples", 6, true, 1005500000ull,
				   0, 0, NULL, NULL };

	CU_ASSERT_FATAL(fr_folded__new(false, &fo) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_folded__add(fo, &s[i]), 0);
	CU_ASSERT_EQUAL(fr_folded__total(fo), 6);
	CU_ASSERT_EQUAL(fr_flame__svg(fo, &o, f), 0);
	fclose(f);
	check_golden("report_flame.golden", buf);
	/* escaped: the odd name's quote and line break, its bad byte as U+FFFD */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>odd;name_x &quot;q&quot; \xc3\xa9\xef\xbf\xbd (1 samples, 16.67%)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>hot (4 samples, 66.67%)</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>all (6 samples, 100.00%)</title>"));
	free(buf);
	/* a fill hook (flightrec diff) colours each frame from its path */
	f = open_memstream(&buf, &len);
	o.fill = path_fill;
	CU_ASSERT_EQUAL(fr_flame__svg(fo, &o, f), 0);
	o.fill = NULL;
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>hot (4 samples, 66.67%, depth "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>all (6 samples, 100.00%, depth 1)</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "fill=\"rgb(255,0,0)\""));   /* "hot" */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "fill=\"rgb(0,0,255)\""));   /* the others */
	free(buf);

	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(fr_timeline__new(1000000000ull, 1006000000ull, 2, false, &tl) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_timeline__add(tl, &s[i], s[i].time, false, true), 0);
	s[0] = sample(&ev_tp, comm_other, 200, 1003000000ull, NULL, 0);
	s[0].cpu = 0;
	CU_ASSERT_EQUAL(fr_timeline__add(tl, &s[0], s[0].time, true, false), 0);
	s[0].cpu = 7;   /* no such CPU: only its thread counts it */
	CU_ASSERT_EQUAL(fr_timeline__add(tl, &s[0], s[0].time, true, false), 0);
	CU_ASSERT_EQUAL(fr_html__write(f, &in, tl, fo), 0);
	fclose(f);
	check_golden("report_html.golden", buf);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<line id=\"trigger\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "text-anchor=\"middle\">trigger</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "cpu 0 events"));
	CU_ASSERT_PTR_NULL(strstr(buf, "<?xml"));   /* the SVG is inlined */
	/* a lane per thread; the script's data: threads, stacks, cells */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<g class=\"lane\"><text x=\"4\" y=\"101\">app 100 <title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"lanes\":[[100,\"app\"],[200,\"other\"]]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "[0,\"main\"],\n[1,\"run\"],\n[2,\"hot\"],\n[3,\"mix\"]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"cells\":[[0,0,4,1],[50,0,4,1],[100,0,4,1],[200,0,3,1]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "[7,\"odd;name\\u000ax \\\"q\\\" \xc3\xa9\\ufffd\"]"));
	free(buf);
	/* a trigger at the window's end: its label ends there, inside */
	in.trigger_ns = 1006000000ull;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_html__write(f, &in, tl, fo), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<text x=\"1190.0\" y=\"141\" fill=\"#e00\" "
				       "text-anchor=\"end\">trigger</text>"));
	free(buf);
	/* a name in the script cannot end it */
	f = open_memstream(&buf, &len);
	fr_json__string_html(f, "</script>&");
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "\"\\u003c/script\\u003e\\u0026\"");
	free(buf);
	fr_timeline__delete(tl);
	fr_folded__delete(fo);
}

/* The flame graph's height follows the frames wide enough to draw (one deep
 * stack of a 100000th does not stretch it) and a deep stack is cut at 43
 * frames with a marker: the heaviest stack is on an 800 px first screen. */
static void test_flame_height(void)
{
	static struct fr_frame deep[130];
	struct fr_rsample s = sample(&ev_clock, comm_app, 100, 1000000000ull, deep, 130);
	struct fr_flame_opts o = { .unit = "samples", .standalone = true };
	struct fr_folded *fo;
	unsigned h = 0;
	size_t len;
	char *buf, *p;
	FILE *f;

	for (size_t i = 0; i < 130; i++)
		deep[i] = (struct fr_frame){ i % 2 ? &s_run : &s_hot, NULL, 0, 0, 0, 0 };
	CU_ASSERT_FATAL(fr_folded__new(false, &fo) == 0);
	CU_ASSERT_EQUAL(fr_folded__add(fo, &s), 0);   /* 1 of 100001: 0.01 px */
	s.frames = st_hot;
	s.nr_frames = 4;
	for (int i = 0; i < 100000; i++)
		CU_ASSERT_EQUAL(fr_folded__add(fo, &s), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_flame__svg(fo, &o, f), 0);
	fclose(f);
	p = strstr(buf, "height=\"");
	CU_ASSERT_FATAL(p != NULL);
	h = (unsigned)strtoul(p + 8, NULL, 10);
	CU_ASSERT_EQUAL(h, 36 + 30 + 6 * 16);   /* all, app, main, run, hot, mix */
	CU_ASSERT_PTR_NULL(strstr(buf, "deeper frames cut"));
	free(buf);
	fr_folded__delete(fo);

	/* the deep stack is the heavy one now: cut, the graph 786 px */
	CU_ASSERT_FATAL(fr_folded__new(false, &fo) == 0);
	s.frames = deep;
	s.nr_frames = 130;
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(fr_folded__add(fo, &s), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_flame__svg(fo, &o, f), 0);
	fclose(f);
	p = strstr(buf, "height=\"");
	CU_ASSERT_FATAL(p != NULL);
	h = (unsigned)strtoul(p + 8, NULL, 10);
	CU_ASSERT_EQUAL(h, 786);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>[deeper frames cut] (3 samples, 100.00%)</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "y=\"740\""));       /* all, on the first screen */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "y=\"36\""));        /* the marker, under the title */
	CU_ASSERT_PTR_NULL(strstr(buf, "y=\"20\""));
	free(buf);
	fr_folded__delete(fo);
}

static void test_parse(void)
{
	struct fr_hist_opts o;
	uint64_t ns = 0;

	CU_ASSERT_EQUAL(fr_hist__parse_keys("sym", &o), 0);
	CU_ASSERT(o.nr_keys == 1 && o.keys[0] == FR_KEY_SYM);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("srcline,comm,pid,dso,sym", &o), 0);
	CU_ASSERT(o.nr_keys == 5 && o.keys[0] == FR_KEY_SRCLINE && o.keys[4] == FR_KEY_SYM);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("sym,sym", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("sym,", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("symbol", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys(",sym", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_input__parse_time("1372.400885701", "1372.400885701" + 14, &ns), 0);
	CU_ASSERT_EQUAL(ns, 1372400885701ull);
	CU_ASSERT_EQUAL(fr_input__parse_time("12.5", "12.5" + 4, &ns), 0);
	CU_ASSERT_EQUAL(ns, 12500000000ull);
	CU_ASSERT_EQUAL(fr_input__parse_time("7", "7" + 1, &ns), 0);
	CU_ASSERT_EQUAL(ns, 7000000000ull);
	CU_ASSERT_EQUAL(fr_input__parse_time("1.1234567891", "1.1234567891" + 12, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_input__parse_time("1.", "1." + 2, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_input__parse_time(".5", ".5" + 2, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_input__parse_time("1x", "1x" + 2, &ns), -EINVAL);
	CU_ASSERT_EQUAL(fr_input__parse_time("99999999999999999999", "99999999999999999999" + 20,
					     &ns), -EINVAL);
}

/* ---- readahead: the same records in the same order as the reader's walk ---- */

struct walk {
	uint64_t n, sum, stop_at;
};

/* Each record folded into a running sum that depends on the order. */
static int walk_cb(void *ctx, const struct fr_rec *r)
{
	struct walk *w = ctx;
	const uint8_t *p = (const uint8_t *)r->h;

	w->sum = w->sum * 1000003u + r->time * 31u + r->cpu * 7u + (uint64_t)r->kind +
		 (r->event ? r->event->index + 1u : 0u);
	for (size_t i = 0; p && i < r->h->size; i++)
		w->sum = w->sum * 131u + p[i];
	return ++w->n == w->stop_at ? 7 : 0;
}

struct cpu_walk {
	uint64_t n[4];
};

static int cpu_cb(void *ctx, const struct fr_rec *r)
{
	struct cpu_walk *w = ctx;

	if (r->cpu < 4)
		w->n[r->cpu]++;
	return 0;
}

static void test_readahead(void)
{
	char path[] = "/tmp/fr-test-ahead-XXXXXX";
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" };
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t time;
		uint64_t pad[40];
	} rec;
	struct walk a = { 0 }, b = { 0 };
	struct fr_writer *w;
	struct fr_reader *rd;
	int fd = mkstemp(path), err = 0;
	const uint64_t per_cpu = 12000;   /* 4 CPUs x 12000 x ~350 bytes: several batches */

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	unlink(path);   /* the writer creates it */
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &ev), 0);
	for (uint32_t cpu = 0; cpu < 4; cpu++) {
		CU_ASSERT_EQUAL(fr_writer__records_begin(w, cpu, FR_STREAM_SAMPLES), 0);
		for (uint64_t i = 0; i < per_cpu; i++) {
			size_t words = (size_t)((i * 7 + cpu) % 41);

			memset(&rec, 0, sizeof(rec));
			rec.h.type = PERF_RECORD_SAMPLE;
			rec.h.misc = PERF_RECORD_MISC_USER;
			rec.h.size = (uint16_t)(sizeof(rec) - sizeof(rec.pad) + words * 8);
			rec.pid = rec.tid = 100 + cpu;
			rec.time = 1000 + i * 4 + (3 - cpu);   /* interleaved across CPUs */
			for (size_t k = 0; k < words; k++)
				rec.pad[k] = i * 1315423911u + k + cpu;
			err |= fr_writer__record(w, &rec.h);
		}
		CU_ASSERT_EQUAL(err, 0);
		CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
	}
	CU_ASSERT_FATAL(fr_writer__close(w) == 0);
	CU_ASSERT_FATAL(fr_reader__open(path, &rd) == 0);
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, walk_cb, &a), 0);
	CU_ASSERT_EQUAL(fr_readahead__for_each(rd, walk_cb, &b), 0);
	CU_ASSERT(a.n >= 4 * per_cpu);
	CU_ASSERT_EQUAL(b.n, a.n);
	CU_ASSERT_EQUAL(b.sum, a.sum);
	/* a callback that stops: its value back, no record after it */
	a = (struct walk){ .stop_at = 30001 };
	b = (struct walk){ .stop_at = 30001 };
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, walk_cb, &a), 7);
	CU_ASSERT_EQUAL(fr_readahead__for_each(rd, walk_cb, &b), 7);
	CU_ASSERT_EQUAL(b.n, 30001);
	CU_ASSERT_EQUAL(b.sum, a.sum);
	b = (struct walk){ .stop_at = 1 };
	CU_ASSERT_EQUAL(fr_readahead__for_each(rd, walk_cb, &b), 7);
	CU_ASSERT_EQUAL(b.n, 1);
	/* and the walk still works after a stopped one */
	b = (struct walk){ 0 };
	a = (struct walk){ 0 };
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, walk_cb, &a), 0);
	CU_ASSERT_EQUAL(fr_readahead__for_each(rd, walk_cb, &b), 0);
	CU_ASSERT_EQUAL(b.sum, a.sum);
	/* parts: CPUs 0 and 3 in part 0 of 3, 1 in part 1, 2 in part 2; all
	 * together every record once */
	{
		uint64_t total = 0;

		for (unsigned part = 0; part < 3; part++) {
			struct cpu_walk cw = { 0 };

			fr_reader__set_cpu_part(rd, part, 3);
			CU_ASSERT_EQUAL(fr_reader__for_each(rd, cpu_cb, &cw), 0);
			for (uint32_t cpu = 0; cpu < 4; cpu++)
				CU_ASSERT_EQUAL(cw.n[cpu], cpu % 3 == part ? per_cpu : 0);
			total += cw.n[0] + cw.n[1] + cw.n[2] + cw.n[3];
		}
		CU_ASSERT_EQUAL(total, a.n);
		fr_reader__set_cpu_part(rd, 0, 1);   /* every stream again */
		a = (struct walk){ 0 };
		CU_ASSERT_EQUAL(fr_reader__for_each(rd, walk_cb, &a), 0);
		CU_ASSERT_EQUAL(a.sum, b.sum);
	}
	fr_reader__close(rd);
	unlink(path);
}

/* Several events: one graph each, one under the other, titled; one event:
 * the plain graph; none: an empty one. */
static void test_flames(void)
{
	struct fr_rsample s[8];
	struct fr_folded *fo[3] = { NULL, NULL, NULL }, *none;
	const char *names[3] = { "cpu-clock", "unused", "page-faults" };
	struct fr_flame_opts o = { .unit = "samples", .standalone = true };
	size_t n = make_samples(s), len;
	char *buf;
	FILE *f;

	CU_ASSERT_FATAL(fr_folded__new(false, &fo[0]) == 0 && fr_folded__new(false, &fo[2]) == 0 &&
			fr_folded__new(false, &none) == 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_folded__add(fo[i < 4 ? 0 : 2], &s[i]), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_flame__svgs(fo, names, 3, none, &o, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<svg version=\"1.1\" width=\"1200\" height=\"308\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<svg class=\"flame\" version=\"1.1\" x=\"0\" y=\"0\" "
				       "width=\"1200\" height=\"162\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "x=\"0\" y=\"162\" width=\"1200\" height=\"146\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ">Flame Graph: cpu-clock</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ">Flame Graph: page-faults</text>"));
	CU_ASSERT_PTR_NULL(strstr(buf, "unused"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<title>read (1 samples, 50.00%)</title>"));
	CU_ASSERT_PTR_NULL(strstr(strstr(buf, "</script>") + 1, "</script>"));   /* one script */
	free(buf);
	fr_folded__delete(fo[0]);
	fo[0] = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_flame__svgs(fo, names, 3, none, &o, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
				       "<svg class=\"flame\" version=\"1.1\" width"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ">Flame Graph: page-faults</text>"));
	free(buf);
	fr_folded__delete(fo[2]);
	fo[2] = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fr_flame__svgs(fo, names, 3, none, &o, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ">Flame Graph</text>"));
	CU_ASSERT_PTR_NULL(strstr(buf, "<g><title>"));
	free(buf);
	fr_folded__delete(none);
}

/* diff.c's significance test: the two-proportion z-test against values
 * worked by hand, its p-value, the critical z, and noise at low counts. */
static void test_ztest(void)
{
	double z, p;

	/* 50/100 against 70/100: pooled 0.6, se = sqrt(0.24 * 0.02) = 0.069282 */
	CU_ASSERT_EQUAL(fr_diff__ztest(50, 100, 70, 100, &z, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(z, 0.2 / 0.0692820323, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(p, 0.0038924, 1e-6);   /* 2 * (1 - Phi(2.8868)) */
	/* the other way round: the sign flips, p stays */
	CU_ASSERT_EQUAL(fr_diff__ztest(70, 100, 50, 100, &z, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(z, -0.2 / 0.0692820323, 1e-6);
	/* equal shares: z 0, p 1 */
	CU_ASSERT_EQUAL(fr_diff__ztest(30, 300, 10, 100, &z, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(z, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(p, 1, 1e-12);
	/* 2 of 10 against 5 of 10: a big delta on few samples is not significant */
	CU_ASSERT_EQUAL(fr_diff__ztest(2, 10, 5, 10, &z, &p), 0);
	CU_ASSERT(p > 0.1);
	CU_ASSERT(fabs(z) < fr_diff__zcrit(0.01));
	/* the same shares on 1000 times the samples are */
	CU_ASSERT_EQUAL(fr_diff__ztest(2000, 10000, 5000, 10000, &z, &p), 0);
	CU_ASSERT(fabs(z) > fr_diff__zcrit(0.01 / 100));
	/* a row on neither side, or on every sample of both: nothing to test */
	CU_ASSERT_EQUAL(fr_diff__ztest(0, 10, 0, 20, &z, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(p, 1, 1e-12);
	CU_ASSERT_EQUAL(fr_diff__ztest(10, 10, 20, 20, &z, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(z, 0, 1e-12);
	/* an empty side or a count above its total */
	CU_ASSERT_EQUAL(fr_diff__ztest(1, 0, 1, 10, &z, &p), -EINVAL);
	CU_ASSERT_EQUAL(fr_diff__ztest(11, 10, 1, 10, &z, &p), -EINVAL);
	/* critical values of the standard normal */
	CU_ASSERT_DOUBLE_EQUAL(fr_diff__zcrit(0.05), 1.959964, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(fr_diff__zcrit(0.01), 2.575829, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(fr_diff__zcrit(0.001), 3.290527, 1e-5);
}

static const struct fr_test tests[] = {
	{ "text histogram (golden)", test_text },
	{ "--children, --sort cpu,tid (golden)", test_children },
	{ "hist: samples with stack ids print as without (memo)", test_memo },
	{ "hist: halves resolved apart merge into the whole", test_hist_merge },
	{ "folded (golden)", test_folded },
	{ "perf-script (golden)", test_script },
	{ "json (golden, parses)", test_json },
	{ "flame graph and html page (golden)", test_flame },
	{ "flame graph: height by drawn frames, deep stacks cut", test_flame_height },
	{ "flame graphs: one per event", test_flames },
	{ "sort keys and times", test_parse },
	{ "readahead: the reader's records, in order", test_readahead },
	{ "diff: two-proportion z-test, p-values, critical z", test_ztest },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "report", setup_events, NULL, tests };
