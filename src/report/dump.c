/* src/report/dump.c: every record of a file (`flightrec dump`, `report
 * --raw`), merged by time, one line each, with comms tracked from COMM records
 * and tracepoint fields decoded from the recorded format text.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "ring/record.h"
#include "src/file/file.h"
#include "src/proc/proctable.h"
#include "src/util.h"
#include "src/file/waitstack.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"
#include "src/report/tp/tpdecode.h"

/* tid -> its latest comm */
struct comm_slot {
	uint32_t tid, pid;
	char comm[16];
};

struct comm_map {
	struct comm_slot *v;
	size_t nr, cap;
	struct fr_hmap index;   /* tid -> v[] */
};

static struct comm_slot *comm_find(struct comm_map *m, uint32_t tid, bool add)
{
	uint64_t h = fr_hash__u64(tid);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&m->index, h, &it, &i); ok; ok = fr_hmap__next(&m->index, &it, &i))
		if (m->v[i].tid == tid)
			return &m->v[i];
	if (!add || m->nr >= UINT32_MAX || fr_grow(&m->v, &m->cap, m->nr + 1, sizeof(*m->v), 1024) ||
	    fr_hmap__add(&m->index, h, (uint32_t)m->nr))
		return NULL;
	m->v[m->nr] = (struct comm_slot){ .tid = tid };
	return &m->v[m->nr++];
}

static void comm_set(struct comm_map *m, uint32_t pid, uint32_t tid, const char *comm)
{
	struct comm_slot *s = comm_find(m, tid, true);

	if (!s)
		return;
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	for (char *p = s->comm; *p; p++)
		if (*p == ' ' || *p < 0x20 || *p == 0x7f)
			*p = '_';
}

static const char *comm_get(struct comm_map *m, uint32_t tid)
{
	struct comm_slot *s = comm_find(m, tid, false);

	return s && s->comm[0] ? s->comm : ":unknown";
}

struct dump_ctx {
	struct comm_map comms;
	struct fr_tpdecode *tp;
	struct fr_proctable *procs;   /* the file's PROCS blobs: comms older than the window */
	const struct fr_clock_ref *tod;   /* --tod: the file's clock reference, else NULL */
	struct fr_clock_ref clock;
	uint64_t lost;                /* the LOST records' counts */
};

/* The comm of a record's thread: its COMM records, else the process table. */
static const char *comm_of(struct dump_ctx *c, const struct fr_sample *s, uint64_t t)
{
	const char *name = comm_get(&c->comms, s->tid);
	const struct fr_proc *p;

	if (!strcmp(name, ":unknown") && !s->tid)
		return "swapper";   /* the idle task, as perf and report name it */
	if (strcmp(name, ":unknown") || !c->procs)
		return name;
	p = fr_proctable__proc_at(c->procs, s->pid, t);
	name = p ? fr_proctable__proc_comm(c->procs, p, t) : NULL;
	return name && *name ? name : ":unknown";
}

/* Load every PROCS blob; a bad one is skipped (the records still list). No
 * memory is said as such, not blamed on the file (*nomem: it was said). */
static struct fr_proctable *load_procs(struct fr_reader *rd, const char *path, bool *nomem)
{
	struct fr_proctable *pt = fr_reader__nr_blobs(rd, FR_BLOB_PROCS) ? fr_proctable__new(NULL) : NULL;
	struct fr_procs_batch *b = pt ? fr_procs_batch__new() : NULL;
	int err = pt && !b ? -ENOMEM : 0;

	for (size_t i = 0; b && !err && i < fr_reader__nr_blobs(rd, FR_BLOB_PROCS); i++) {
		void *data;
		size_t len;

		err = fr_reader__blob(rd, FR_BLOB_PROCS, i, &data, &len);
		if (err) {
			err = err == -ENOMEM ? err : 0;
			continue;
		}
		err = fr_procs_batch__add(b, data, len);
		if (err == -EBADMSG)
			fr_reader__blob_damaged(rd, FR_BLOB_PROCS, i, "malformed payload");
		err = err == -EBADMSG ? 0 : err;
		free(data);
	}
	if (!err && b)
		err = fr_procs_batch__apply(b, pt);
	fr_procs_batch__delete(b);
	if (err || (!pt && fr_reader__nr_blobs(rd, FR_BLOB_PROCS))) {
		fr_err(path, "the process table (PROCS blobs): %s (names older than the window "
		       "are not shown)", strerror(ENOMEM));
		*nomem = true;
		fr_proctable__delete(pt);
		pt = NULL;
	}
	return pt;
}

/* The pid and tid a sideband record carries in its body, where the sideband's
 * sample_id_all trailer has none (TIME alone: doc/format.md). */
static void body_tid(struct fr_sample *s, uint32_t pid, uint32_t tid)
{
	if (s->has_tid)
		return;
	s->pid = pid;
	s->tid = tid;
	s->has_tid = true;
}

/* An offcpu sample's raw data (record --off-cpu-thresh, doc/format.md). */
static void offcpu_fields(const struct fr_sample *s, char *buf, size_t len)
{
	static const char st[] = "RSDX";
	struct fr_offcpu_switch sw;
	struct fr_wait_stack w;
	struct fr_offcpu_batch b;

	if (!fr_offcpu_batch__parse(s->raw, s->raw_size, &b))
		snprintf(buf, len, " switches n=%u%s", b.nr, b.packed ? " packed" : "");   /* a line each below */
	else if (!fr_offcpu_switch__parse(s->raw, s->raw_size, &sw))
		snprintf(buf, len, " switch prev=%u/%u state=%c next=%u/%u delay_ns=%u", sw.prev_pid,
			 sw.prev_tid, st[sw.state], sw.next_pid, sw.next_tid, sw.delay_ns);
	else if (fr_wait_stack__parse(s->raw, s->raw_size, &w))
		snprintf(buf, len, " (raw data does not parse: %u bytes)", s->raw_size);
	else if (w.in_ns)
		snprintf(buf, len, " stack tid=%u/%u in=%llu.%09llu span_ns=%llu thresh_ns=%llu"
			 " kernel=%u user=%u", w.pid, w.tid, (unsigned long long)(w.in_ns / 1000000000),
			 (unsigned long long)(w.in_ns % 1000000000), (unsigned long long)w.off_ns,
			 (unsigned long long)w.thresh_ns, w.nr_kernel, w.nr_user);
	else
		snprintf(buf, len, " stack tid=%u/%u off_ns=%llu thresh_ns=%llu kernel=%u user=%u",
			 w.pid, w.tid, (unsigned long long)w.off_ns, (unsigned long long)w.thresh_ns,
			 w.nr_kernel, w.nr_user);
}

/* A batch's switches, a line each, under its SAMPLE line. */
static void offcpu_batch_lines(const struct fr_sample *s)
{
	static const char st[] = "RSDX";
	struct fr_offcpu_batch b;
	struct fr_offcpu_switch sw;
	uint64_t t;

	if (fr_offcpu_batch__parse(s->raw, s->raw_size, &b))
		return;
	while (!fr_offcpu_batch__next(&b, &sw, &t))
		printf("    %llu.%09llu switch prev=%u/%u state=%c next=%u/%u delay_ns=%u\n",
		       (unsigned long long)(t / 1000000000ull), (unsigned long long)(t % 1000000000ull),
		       sw.prev_pid, sw.prev_tid, st[sw.state], sw.next_pid, sw.next_tid, sw.delay_ns);
}

/* The record's details, each body decoded once: it also names the process
 * (COMM) and fills in the pid and tid from the body where s has none. */
static void details(struct dump_ctx *c, const struct fr_rec *r, struct fr_sample *s,
		    char *buf, size_t len)
{
	const struct perf_event_header *h = r->h;
	struct fr_comm cm;
	struct fr_task tk;
	struct fr_mmap2 mm;
	struct fr_lost lo;

	buf[0] = '\0';
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		int n = snprintf(buf, len, "%s", r->event->name);

		if (s->ip && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " ip=0x%llx", (unsigned long long)s->ip);
		if (s->period && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " period=%llu",
				      (unsigned long long)s->period);
		if (s->raw && fr_offcpu_in__stack_event(r->event)) {
			if (n >= 0 && (size_t)n < len)
				offcpu_fields(s, buf + n, len - (size_t)n);
			break;
		}
		if (s->raw)   /* counts a record with a field outside it */
			fr_tpdecode__check(c->tp, r->event->name, s->raw, s->raw_size);
		if (s->raw && n >= 0 && (size_t)n < len)
			fr_tpdecode__fields(c->tp, r->event->name, s->raw, s->raw_size, buf + n,
					    len - (size_t)n);
		break;
	}
	case PERF_RECORD_COMM:
		if (!fr_record__comm(h, &cm)) {
			body_tid(s, cm.pid, cm.tid);
			comm_set(&c->comms, cm.pid, cm.tid, cm.comm);
			snprintf(buf, len, "comm=%s exec=%d", cm.comm, cm.exec);
		}
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!fr_record__task(h, &tk)) {
			body_tid(s, tk.pid, tk.tid);
			snprintf(buf, len, "pid=%u ppid=%u tid=%u ptid=%u", tk.pid, tk.ppid, tk.tid,
				 tk.ptid);
		}
		break;
	case PERF_RECORD_MMAP2:
		if (!fr_record__mmap2(h, &mm)) {
			char bid[41] = "";

			body_tid(s, mm.pid, mm.tid);
			for (unsigned i = 0; mm.has_build_id && i < mm.build_id_size; i++)
				snprintf(bid + 2 * i, 3, "%02x", mm.build_id[i]);
			snprintf(buf, len, "addr=0x%llx len=0x%llx pgoff=0x%llx prot=%u file=%s%s%s",
				 (unsigned long long)mm.addr, (unsigned long long)mm.len,
				 (unsigned long long)mm.pgoff, mm.prot, mm.filename,
				 bid[0] ? " build_id=" : "", bid);
		}
		break;
	case PERF_RECORD_LOST:
		if (!fr_record__lost(h, &lo)) {
			snprintf(buf, len, "lost=%llu", (unsigned long long)lo.lost);
			c->lost = fr_u64__sat_add(c->lost, lo.lost);
		}
		break;
	default:
		break;
	}
}

static int dump_cb(void *ctx, const struct fr_rec *r)
{
	struct dump_ctx *c = ctx;
	const struct perf_event_header *h = r->h;
	uint64_t st = r->event ? r->event->attr.sample_type : 0;
	struct fr_sample s;
	char cpu[16], det[4096];
	int err;

	if (!r->event) {
		/* an identifier no event of the file owns: show the type, decode nothing */
		memset(&s, 0, sizeof(s));
		err = 0;
	} else if (h->type == PERF_RECORD_SAMPLE) {
		err = r->sample ? 0 : -EBADMSG;   /* parsed once, by the reader */
		if (r->sample)
			s = *r->sample;
	} else
		err = fr_record__parse_id(h, st, &s);
	if (err)
		memset(&s, 0, sizeof(s));
	if (r->cpu == FR_CPU_NONE)
		snprintf(cpu, sizeof(cpu), "[---]");
	else
		snprintf(cpu, sizeof(cpu), "[%03u]", r->cpu);
	if (r->event)
		details(c, r, &s, det, sizeof(det));
	else
		snprintf(det, sizeof(det), "(record of an unknown event id)");
	printf("%llu.%09llu ", (unsigned long long)(r->time / 1000000000ull),
	       (unsigned long long)(r->time % 1000000000ull));
	if (c->tod) {
		char tod[64];

		fr_walltime__format(fr_clock__to_real(c->tod, r->time), 9, tod, sizeof(tod));
		printf("%s ", tod);
	}
	/* pid and tid signed, as perf: -1 for an exiting task's */
	printf("%s %7d/%-7d %-8s %-16s %s\n", cpu, (int)s.pid, (int)s.tid,
	       fr_record__type_name(h->type), s.has_tid ? comm_of(c, &s, r->time) : "-", det);
	if (h->type == PERF_RECORD_SAMPLE && r->event && s.raw && fr_offcpu_in__stack_event(r->event))
		offcpu_batch_lines(&s);
	return 0;
}

/* TRIGGER: "key=value\n" lines, no NUL. */
static bool trigger_ok(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (memchr(text, '\0', len) || (len && text[len - 1] != '\n'))
		return false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(nl - p));

		if (!eq || eq == p)
			return false;
		p = nl + 1;
	}
	return true;
}

static void print_header(struct fr_reader *rd, const char *path)
{
	static const char *keys[] = { "flightrec_version", "kernel_release", "machine", "hostname",
				      "clock", "nr_cpus_online", "name", "target", "trigger",
				      "snapshot_time_ns", "realtime_offset_ns", FR_META_CLOCK_START,
				      FR_META_CLOCK_SNAPSHOT, "pinned_copy", "mode", "comms",
				      "window_time_ns", "offcpu_thresh_ns", "offcpu_stack_rate" };

	fputs("# file: ", stdout);
	fr_text__put_escaped(stdout, path);
	putchar('\n');
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = fr_reader__meta(rd, keys[i]);

		if (v)
			printf("# %s: %s\n", keys[i], v);
	}
	for (size_t i = 0; i < fr_reader__nr_blobs(rd, FR_BLOB_TRIGGER); i++) {
		char *text, *line, *save = NULL;
		void *data;
		size_t len;

		if (fr_reader__blob(rd, FR_BLOB_TRIGGER, i, &data, &len))
			continue;
		text = data;
		if (!trigger_ok(text, len)) {
			fr_reader__blob_damaged(rd, FR_BLOB_TRIGGER, i, "malformed payload");
			free(data);
			continue;
		}
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("# trigger.%s\n", line);
		free(data);
	}
	for (size_t i = 0; i < fr_reader__nr_events(rd); i++) {
		const struct fr_file_event *e = fr_reader__event(rd, i);

		printf("# event %u: %s type=%u config=%llu sample_type=0x%llx%s\n", e->index, e->name,
		       e->attr.type, (unsigned long long)e->attr.config,
		       (unsigned long long)e->attr.sample_type,
		       (e->flags & FR_EVENT_SIDEBAND) ? " (sideband)" : "");
	}
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		printf("# cpu %u: samples=%llu sideband=%llu first=%llu.%09llu last=%llu.%09llu "
		       "lost_records=%llu lost_samples=%llu raced_bytes=%llu%s%s\n", cs->cpu,
		       (unsigned long long)cs->nr_samples, (unsigned long long)cs->nr_sideband,
		       (unsigned long long)(cs->first_time / 1000000000ull),
		       (unsigned long long)(cs->first_time % 1000000000ull),
		       (unsigned long long)(cs->last_time / 1000000000ull),
		       (unsigned long long)(cs->last_time % 1000000000ull),
		       (unsigned long long)cs->lost_records, (unsigned long long)cs->lost_samples,
		       (unsigned long long)cs->raced_bytes,
		       (cs->flags & FR_CPU_FULL) ? " wrapped" : "",
		       (cs->flags & FR_CPU_CORRUPT) ? " corrupt" : "");
	}
}

int fr_dump__file(const char *path, bool header)
{
	return fr_dump__run(path, header, false);
}

int fr_dump__run(const char *path, bool header, bool tod)
{
	struct dump_ctx c = { .tp = NULL };
	struct fr_reader *rd = NULL;
	char note[1024];
	int ret = fr_input__open(path, &rd), err;
	FILE *real = stdout, *safe;
	bool nomem = false;

	if (ret)
		return ret;
	if (tod && fr_clock__of_file(rd, &c.clock)) {
		fr_err("--tod", "the file has no wall-clock reference (no clock_pair_* or "
		       "realtime_offset_ns meta)");
		fr_reader__close(rd);
		return FR_EXIT_USAGE;
	}
	c.tod = tod ? &c.clock : NULL;
	safe = fr_input__escaping(real);
	if (safe)
		stdout = safe;  /* every name and text of the file goes out escaped */
	if (fr_input__tpdecode(rd, &c.tp)) {
		fr_err(path, "%s", strerror(ENOMEM));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	if (header) {
		print_header(rd, path);
		if (fr_input__wrap_note(rd, note, sizeof(note)))
			printf("# %s\n", note);
		if (fr_input__hotplug_note(rd, note, sizeof(note)))
			printf("# %s\n", note);
	}
	c.procs = load_procs(rd, path, &nomem);
	err = fr_reader__for_each(rd, dump_cb, &c);
	if (safe) {
		stdout = real;
		fclose(safe);
		safe = NULL;
	}
	fflush(stdout);
	ret = fr_input__verdict(rd, path, err, c.tp, c.lost, "listed");
	if (nomem && ret == FR_EXIT_OK)
		ret = FR_EXIT_PARTIAL;
out:
	if (safe) {
		stdout = real;
		fclose(safe);
	}
	fr_tpdecode__delete(c.tp);
	fr_proctable__delete(c.procs);
	free(c.comms.v);
	fr_hmap__exit(&c.comms.index);
	fr_reader__close(rd);
	return ret;
}
