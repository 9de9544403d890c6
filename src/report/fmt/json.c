/* src/report/fmt/json.c: --format=json, the Chrome trace event format: samples
 * and tracepoint events (fields as args) as instant events on per-thread
 * tracks, stacks shared through "stackFrames" (each frame's "parent" its
 * caller) and referenced by "sf" (the leaf), a flame chart of begin/end slices
 * from consecutive clock samples, running time from sched:sched_switch,
 * thread and process names as metadata. Streams; keeps the frame tree, the
 * thread list with each one's open stack, per CPU who runs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"
#include "src/report/tp/tpdecode.h"

struct jnode {                 /* a stack frame under a parent frame */
	uint32_t parent;       /* id, 0: root */
	const struct fr_sym *sym;
};

struct jthread {
	uint32_t tid, pid;        /* tid + 1 */
	const char *comm;
	uint32_t *open;           /* the flame chart's open frames, root first: node ids */
	size_t nr_open, open_cap;
	uint64_t start, end;      /* the last sample's time, plus its period */
	uint64_t on_since;        /* its first event since it last left a CPU (0: none) */
};

struct jcpu {                 /* who runs on a CPU, from sched_switch */
	uint32_t tid;             /* tid + 1; 0: not known */
	uint64_t since;
};

struct fr_json {
	FILE *f;
	struct fr_tpdecode *tp;
	struct jnode *nodes;      /* id - 1 */
	size_t nr_nodes, nodes_cap;
	struct fr_hmap node_index; /* (parent, sym) -> nodes[] */
	struct jthread *threads;  /* in the order first seen */
	size_t threads_cap, nr_threads;
	struct fr_hmap thread_index;  /* tid -> threads[] */
	struct jcpu *cpus;
	size_t cpus_cap;
	uint32_t path[FR_MAX_FRAMES];   /* the current sample's frames, root first */
	uint64_t last;            /* the latest time seen */
	bool first;
	bool no_running;          /* the state slices come from elsewhere (the off-CPU stage) */
};

/* One UTF-8 sequence at p: its length, or 0 if invalid. */
size_t fr_utf8_len(const unsigned char *p)
{
	size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
		 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!n || (n == 2 && p[0] < 0xc2) || (n == 4 && p[0] > 0xf4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;   /* overlong, surrogate, beyond U+10FFFF */
	return n;
}

/* html: '<', '>' and '&' as \u escapes too, so the literal cannot end a <script>. */
static void put_string(FILE *f, const char *s, bool html)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		const unsigned char *run = p;
		size_t n;

		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
		       !(html && (*p == '<' || *p == '>' || *p == '&')))
			p++;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>' || *p == '&') {
			fprintf(f, "\\u%04x", *p++);
		} else if ((n = fr_utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc('"', f);
}

void fr_json__string(FILE *f, const char *s)
{
	put_string(f, s, false);
}

void fr_json__string_html(FILE *f, const char *s)
{
	put_string(f, s, true);
}

int fr_json__new(FILE *f, struct fr_tpdecode *tp, struct fr_json **out)
{
	struct fr_json *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->f = f;
	j->tp = tp;
	j->first = true;
	fputs("{\"traceEvents\":[\n", f);
	*out = j;
	return 0;
}

void fr_json__delete(struct fr_json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nr_threads; i++) {
		free(j->threads[i].open);
	}
	free(j->nodes);
	fr_hmap__exit(&j->node_index);
	free(j->threads);
	fr_hmap__exit(&j->thread_index);
	free(j->cpus);
	free(j);
}

/* The id of frame sym under parent, created on first use; 0 on ENOMEM. */
static uint32_t node_id(struct fr_json *j, uint32_t parent, const struct fr_sym *sym)
{
	uint64_t h = fr_hash__mix(parent, (uintptr_t)sym);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&j->node_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&j->node_index, &it, &i))
		if (j->nodes[i].parent == parent && j->nodes[i].sym == sym)
			return i + 1;
	if (j->nr_nodes >= UINT32_MAX - 1 ||
	    fr_grow(&j->nodes, &j->nodes_cap, j->nr_nodes + 1, sizeof(*j->nodes), 1024) ||
	    fr_hmap__add(&j->node_index, h, (uint32_t)j->nr_nodes))
		return 0;
	j->nodes[j->nr_nodes++] = (struct jnode){ parent, sym };
	return (uint32_t)j->nr_nodes;
}

static struct jthread *find_thread(struct fr_json *j, uint32_t tid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&j->thread_index, fr_hash__u64(tid), &it, &i); ok;
	     ok = fr_hmap__next(&j->thread_index, &it, &i))
		if (j->threads[i].tid == tid + 1)
			return &j->threads[i];
	return NULL;
}

/* The thread of s, its name and process updated; NULL on ENOMEM. */
static struct jthread *note_thread(struct fr_json *j, const struct fr_rsample *s)
{
	struct jthread *t = find_thread(j, s->tid);

	if (!t) {
		if (j->nr_threads >= UINT32_MAX ||
		    fr_grow(&j->threads, &j->threads_cap, j->nr_threads + 1, sizeof(*j->threads), 64) ||
		    fr_hmap__add(&j->thread_index, fr_hash__u64(s->tid), (uint32_t)j->nr_threads))
			return NULL;
		t = &j->threads[j->nr_threads++];
		*t = (struct jthread){ .tid = s->tid + 1 };
	}
	t->pid = s->pid;
	t->comm = s->comm;
	return t;
}

static void begin_event(struct fr_json *j)
{
	fputs(j->first ? "" : ",\n", j->f);
	j->first = false;
}

static void put_ts(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

/* The thread ran from from to to: a complete event 1 ns wider at each end,
 * so that the flame chart's frames in it (begin/end pairs of those times)
 * nest inside in viewers, which order a tie of begins or ends by kind and
 * compute ts + dur in doubles. */
static void running(struct fr_json *j, const struct jthread *t, uint64_t from, uint64_t to)
{
	from -= from > 0;
	to += to < UINT64_MAX;
	begin_event(j);
	fputs("{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\"", j->f);
	put_ts(j->f, "ts", from);
	put_ts(j->f, "dur", to > from ? to - from : 0);
	fprintf(j->f, ",\"pid\":%u,\"tid\":%u}", t->pid, t->tid - 1);
}

void fr_json__no_running(struct fr_json *j)
{
	j->no_running = true;
}


int fr_json__slice(struct fr_json *j, const char *name, uint32_t pid, uint32_t tid, uint64_t from,
		   uint64_t to)
{
	begin_event(j);
	fputs("{\"name\":", j->f);
	fr_json__string(j->f, name);
	fputs(",\"cat\":\"sched\",\"ph\":\"X\"", j->f);
	put_ts(j->f, "ts", from);
	put_ts(j->f, "dur", to > from ? to - from : 0);
	fprintf(j->f, ",\"pid\":%u,\"tid\":%u}", pid, tid);
	return ferror(j->f) ? -EIO : 0;
}

int fr_json__flow(struct fr_json *j, uint64_t id, uint32_t from_pid, uint32_t from_tid,
		  uint32_t to_pid, uint32_t to_tid, uint64_t at)
{
	for (int end = 0; end < 2; end++) {
		begin_event(j);
		fprintf(j->f, "{\"name\":\"woke\",\"cat\":\"wakeup\",\"ph\":\"%s\",\"id\":%llu",
			end ? "f\",\"bp\":\"e" : "s", (unsigned long long)id);
		put_ts(j->f, "ts", at);
		fprintf(j->f, ",\"pid\":%u,\"tid\":%u}", end ? to_pid : from_pid, end ? to_tid : from_tid);
	}
	return ferror(j->f) ? -EIO : 0;
}

/* A frame of the flame chart opens ("B") or closes ("E"). Begin/end pairs,
 * not complete events: frames that close together then share one printed
 * time, where ts + dur of an "X" rounds apart in a viewer's doubles. */
static void frame_edge(struct fr_json *j, const struct jthread *t, uint32_t id, char ph,
		       uint64_t at)
{
	char buf[1100];
	const struct fr_sym *sym = j->nodes[id - 1].sym;

	snprintf(buf, sizeof(buf), "%s%s", sym->name, sym->inlined ? " (inlined)" : "");
	begin_event(j);
	fputs("{\"name\":", j->f);
	fr_json__string(j->f, buf);
	fprintf(j->f, ",\"cat\":\"stack\",\"ph\":\"%c\"", ph);
	put_ts(j->f, "ts", at);
	fprintf(j->f, ",\"pid\":%u,\"tid\":%u}", t->pid, t->tid - 1);
}

/* Close the thread's open frames from depth keep on, at time end, callee
 * first. Frames open caller first (flame_chart): viewers (speedscope,
 * Perfetto, chrome://tracing) nest events of one time in file order. */
static void close_frames(struct fr_json *j, struct jthread *t, size_t keep, uint64_t end)
{
	while (t->nr_open > keep) {
		t->nr_open--;
		frame_edge(j, t, t->open[t->nr_open], 'E', end);
	}
}

uint64_t fr_json__frames_end(struct fr_json *j, uint32_t tid)
{
	struct jthread *t = find_thread(j, tid);

	return t && t->nr_open ? t->end : 0;
}

void fr_json__switched_out(struct fr_json *j, uint32_t tid, uint64_t at)
{
	struct jthread *t = find_thread(j, tid);

	/* (at before the last sample: an earlier thread of the tid) */
	if (t && t->nr_open && at >= t->start)
		close_frames(j, t, 0, t->end < at ? t->end : at);
}

/* The flame chart: a clock sample at t runs its stack for its period; the
 * frames it shares with the thread's previous sample (if that one ended no
 * more than a period before) continue, the others close and open. */
static int flame_chart(struct fr_json *j, struct jthread *t, const struct fr_rsample *s,
		       size_t n)
{
	uint64_t d = s->period, end;
	size_t keep = 0;

	if (t->nr_open && s->time > t->end + d)
		close_frames(j, t, 0, t->end);
	/* frames that close end before the new ones begin (1 ns): viewers
	 * begin a frame before they end one of the same name at one time */
	end = s->time > t->end ? t->end : s->time > t->start ? s->time - 1 : s->time;
	while (keep < t->nr_open && keep < n && t->open[keep] == j->path[keep])
		keep++;
	close_frames(j, t, keep, end);
	if (fr_grow(&t->open, &t->open_cap, n, sizeof(*t->open), 16))
		return -ENOMEM;
	for (; t->nr_open < n; t->nr_open++) {
		t->open[t->nr_open] = j->path[t->nr_open];
		frame_edge(j, t, t->open[t->nr_open], 'B', s->time);
	}
	t->start = s->time;
	t->end = s->time + d;
	return 0;
}

struct fields {
	struct fr_json *j;
	bool any, had_cpu;   /* any: an arg was written */
	long long prev_pid, next_pid;
};

static int put_field(void *ctx, const char *field, const char *text, bool is_signed,
		     unsigned long long v, long long sv)
{
	struct fields *fl = ctx;
	FILE *f = fl->j->f;

	if (fl->any)
		fputc(',', f);
	fl->any = true;
	fr_json__string(f, field);
	fputc(':', f);
	if (text)
		fr_json__string(f, text);
	else if (is_signed)
		fprintf(f, "%lld", sv);
	else
		fprintf(f, "%llu", v);
	fl->had_cpu |= !strcmp(field, "cpu");
	if (!strcmp(field, "prev_pid"))
		fl->prev_pid = text ? -1 : sv;
	if (!strcmp(field, "next_pid"))
		fl->next_pid = text ? -1 : sv;
	return ferror(f) ? -EIO : 0;
}

/* sched_switch on a CPU: the thread that leaves ran since it entered. */
static int sched_switch(struct fr_json *j, struct jthread *t, const struct fr_rsample *s,
			const struct fields *fl)
{
	struct jcpu *c;

	if (s->cpu == FR_CPU_NONE || fl->prev_pid < 0 || fl->next_pid < 0)
		return 0;
	if (fr_grow(&j->cpus, &j->cpus_cap, (size_t)s->cpu + 1, sizeof(*j->cpus), 16))
		return -ENOMEM;
	c = &j->cpus[s->cpu];
	if (t->tid - 1 == (uint64_t)fl->prev_pid) {
		/* since it entered; else (its entry not recorded, as when only
		 * some processes are) since its first event after it last left */
		uint64_t since = c->tid == t->tid ? c->since : t->on_since;

		close_frames(j, t, 0, t->end < s->time ? t->end : s->time);
		if (since && fl->prev_pid && !j->no_running)
			running(j, t, since, s->time);
		t->on_since = 0;
	}
	c->tid = (uint32_t)fl->next_pid + 1;
	c->since = s->time;
	/* the thread that enters was not running: frames of a sample it left
	 * open (one taken after its switch-out was recorded, as in do_exit)
	 * end before its running time begins, so they nest */
	if (fl->next_pid > 0 && (uint32_t)fl->next_pid != t->tid - 1) {
		struct jthread *u = find_thread(j, (uint32_t)fl->next_pid);

		if (u && u->nr_open) {
			uint64_t end = u->end < s->time ? u->end : s->time - 1;

			close_frames(j, u, 0, end > u->start ? end : u->start);
		}
	}
	return 0;
}

int fr_json__sample(struct fr_json *j, const struct fr_rsample *s)
{
	const struct fr_file_event *e = s->event;
	const char *name = e ? e->name : "unknown";
	bool tracepoint = e && e->attr.type == PERF_TYPE_TRACEPOINT;
	bool clock = e && e->attr.type == PERF_TYPE_SOFTWARE &&
		     (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		      e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
	struct fields fl = { j, false, false, -1, -1 };
	struct jthread *t = note_thread(j, s);
	size_t n = s->nr_frames < FR_MAX_FRAMES ? s->nr_frames : FR_MAX_FRAMES;
	uint32_t sf = 0;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		sf = node_id(j, sf, s->frames[n - 1 - i].sym);
		if (!sf)
			return -ENOMEM;
		j->path[i] = sf;
	}
	if (s->time > j->last)
		j->last = s->time;
	begin_event(j);
	fputs("{\"name\":", j->f);
	fr_json__string(j->f, name);
	fprintf(j->f, ",\"cat\":\"%s\",\"ph\":\"i\"", tracepoint ? "tracepoint" : "sample");
	put_ts(j->f, "ts", s->time);
	fprintf(j->f, ",\"pid\":%u,\"tid\":%u", s->pid, s->tid);
	if (sf)
		fprintf(j->f, ",\"sf\":%u", sf);
	fputs(",\"args\":{", j->f);
	if (e && (e->attr.sample_type & PERF_SAMPLE_PERIOD) && !tracepoint) {
		fprintf(j->f, "\"period\":%llu", (unsigned long long)s->period);
		fl.any = true;
	}
	if (s->raw && j->tp && tracepoint)
		err = fr_tpdecode__each(j->tp, name, s->raw, s->raw_size, put_field, &fl);
	if (err && err != -ENOENT && err != -EBADMSG)
		return err;
	err = 0;   /* no usable format, a damaged record (said at the end): no fields */
	if (!fl.had_cpu)   /* a field of that name wins */
		fprintf(j->f, "%s\"cpu\":%u", fl.any ? "," : "", s->cpu == FR_CPU_NONE ? 0 : s->cpu);
	fputs("}}", j->f);
	if (clock && n && s->period && (err = flame_chart(j, t, s, n)))
		return err;
	if (tracepoint && !strcmp(name, "sched:sched_switch"))
		err = sched_switch(j, t, s, &fl);
	else if (!t->on_since)
		t->on_since = s->time;
	if (err)
		return err;
	return ferror(j->f) ? -EIO : 0;
}

static void metadata(struct fr_json *j, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	begin_event(j);
	fprintf(j->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		what, pid, tid);
	fr_json__string(j->f, name);
	fputs("}}", j->f);
}

int fr_json__finish(struct fr_json *j, const char *file_name)
{
	char buf[1100];
	int err;

	for (size_t i = 0; i < j->nr_threads; i++)     /* what still runs ends at its period */
		close_frames(j, &j->threads[i], 0, j->threads[i].end);
	for (size_t c = 0; c < j->cpus_cap; c++) {       /* and who is on a CPU, at the end */
		const struct jthread *t = j->cpus[c].tid > 1 ? find_thread(j, j->cpus[c].tid - 1) : NULL;
		uint64_t end = t && t->end > j->last ? t->end : j->last;   /* around its frames */

		if (t && end > j->cpus[c].since && !j->no_running)
			running(j, t, j->cpus[c].since, end);
	}
	for (size_t i = 0; i < j->nr_threads; i++) {
		const struct jthread *t = &j->threads[i];

		if (t->tid - 1 == t->pid)
			metadata(j, "process_name", t->pid, t->tid - 1, t->comm);
		metadata(j, "thread_name", t->pid, t->tid - 1, t->comm);
	}
	fputs("\n],\n\"stackFrames\":{", j->f);
	for (size_t i = 0; i < j->nr_nodes; i++) {
		const struct jnode *n = &j->nodes[i];

		fprintf(j->f, "%s\n\"%zu\":{\"name\":", i ? "," : "", i + 1);
		snprintf(buf, sizeof(buf), "%s%s", n->sym->name, n->sym->inlined ? " (inlined)" : "");
		fr_json__string(j->f, buf);
		fputs(",\"category\":", j->f);
		fr_json__string(j->f, n->sym->dso_short);
		if (n->parent)
			fprintf(j->f, ",\"parent\":\"%u\"", n->parent);
		fputc('}', j->f);
	}
	fputs("\n},\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"flightrec "
	      PACKAGE_VERSION "\",\"file\":", j->f);
	fr_json__string(j->f, file_name ? file_name : "");
	fputs("}}\n", j->f);
	err = ferror(j->f) ? -EIO : 0;
	fr_json__delete(j);
	return err;
}
