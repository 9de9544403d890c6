/* src/report_json.c: --format=json, the Chrome trace event format: samples
 * and tracepoint events as instant events on per-thread tracks, stacks shared
 * through "stackFrames" and referenced by "sf", thread and process names as
 * metadata events. Streams events; keeps only the frame tree and thread list.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/report.h"
#include "src/report/tpdecode.h"

struct jnode {                 /* a stack frame under a parent frame */
	uint32_t parent;       /* id, 0: root */
	const struct fr_sym *sym;
};

struct jthread {
	uint32_t tid, pid;
	const char *comm;
};

struct fr_json {
	FILE *f;
	struct fr_tpdecode *tp;
	struct jnode *nodes;      /* id - 1 */
	size_t nr_nodes, nodes_cap;
	uint32_t *slots;          /* node id, open addressing */
	size_t nslots;
	struct jthread *threads;  /* open addressing by tid (tid + 1 stored) */
	size_t threads_cap, nr_threads;
	bool first;
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

void fr_json__string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		const unsigned char *run = p;
		size_t n;

		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f) {
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
	free(j->nodes);
	free(j->slots);
	free(j->threads);
	free(j);
}

static uint64_t node_hash(uint32_t parent, const struct fr_sym *sym)
{
	uint64_t x = ((uint64_t)(uintptr_t)sym ^ ((uint64_t)parent << 40)) * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 31);
}

static int grow_slots(struct fr_json *j)
{
	size_t n = j->nslots ? j->nslots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < j->nr_nodes; i++) {
		size_t k = node_hash(j->nodes[i].parent, j->nodes[i].sym) & (n - 1);

		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = (uint32_t)(i + 1);
	}
	free(j->slots);
	j->slots = s;
	j->nslots = n;
	return 0;
}

/* The id of frame sym under parent, created on first use; 0 on ENOMEM. */
static uint32_t node_id(struct fr_json *j, uint32_t parent, const struct fr_sym *sym)
{
	size_t k;

	if ((j->nr_nodes + 1) * 2 > j->nslots && grow_slots(j))
		return 0;
	for (k = node_hash(parent, sym) & (j->nslots - 1); j->slots[k]; k = (k + 1) & (j->nslots - 1)) {
		const struct jnode *n = &j->nodes[j->slots[k] - 1];

		if (n->parent == parent && n->sym == sym)
			return j->slots[k];
	}
	if (j->nr_nodes >= UINT32_MAX - 1 ||
	    fr_grow(&j->nodes, &j->nodes_cap, j->nr_nodes + 1, sizeof(*j->nodes), 1024))
		return 0;
	j->nodes[j->nr_nodes++] = (struct jnode){ parent, sym };
	j->slots[k] = (uint32_t)j->nr_nodes;
	return (uint32_t)j->nr_nodes;
}

static int note_thread(struct fr_json *j, const struct fr_rsample *s)
{
	size_t k;

	if ((j->nr_threads + 1) * 2 > j->threads_cap) {
		size_t n = j->threads_cap ? j->threads_cap * 2 : 256;
		struct jthread *t = calloc(n, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < j->threads_cap; i++) {
			if (!j->threads[i].tid)
				continue;
			for (k = (j->threads[i].tid * 2654435761u) & (n - 1); t[k].tid;
			     k = (k + 1) & (n - 1))
				;
			t[k] = j->threads[i];
		}
		free(j->threads);
		j->threads = t;
		j->threads_cap = n;
	}
	for (k = ((s->tid + 1) * 2654435761u) & (j->threads_cap - 1); j->threads[k].tid;
	     k = (k + 1) & (j->threads_cap - 1))
		if (j->threads[k].tid == s->tid + 1)
			break;
	if (!j->threads[k].tid)
		j->nr_threads++;
	j->threads[k] = (struct jthread){ s->tid + 1, s->pid, s->comm };
	return 0;
}

int fr_json__sample(struct fr_json *j, const struct fr_rsample *s)
{
	const char *name = s->event ? s->event->name : "unknown";
	bool tracepoint = s->event && s->event->attr.type == PERF_TYPE_TRACEPOINT;
	uint32_t sf = 0;
	char fields[4096];

	if (note_thread(j, s))
		return -ENOMEM;
	for (size_t i = s->nr_frames; i-- > 0;) {
		sf = node_id(j, sf, s->frames[i].sym);
		if (!sf)
			return -ENOMEM;
	}
	fprintf(j->f, "%s{\"name\":", j->first ? "" : ",\n");
	j->first = false;
	fr_json__string(j->f, name);
	fprintf(j->f, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%llu.%03llu,\"pid\":%u,"
		"\"tid\":%u", tracepoint ? "tracepoint" : "sample",
		(unsigned long long)(s->time / 1000), (unsigned long long)(s->time % 1000), s->pid,
		s->tid);
	if (sf)
		fprintf(j->f, ",\"sf\":%u", sf);
	fprintf(j->f, ",\"args\":{\"cpu\":%u", s->cpu == FR_CPU_NONE ? 0 : s->cpu);
	if (s->event && (s->event->attr.sample_type & PERF_SAMPLE_PERIOD))
		fprintf(j->f, ",\"period\":%llu", (unsigned long long)s->period);
	if (s->nr_frames) {
		fputs(",\"sym\":", j->f);
		fr_json__string(j->f, s->frames[fr_leaf_frames(s) - 1].sym->name);
	}
	if (s->raw && j->tp && !fr_tpdecode__fields(j->tp, name, s->raw, s->raw_size, fields,
						    sizeof(fields))) {
		fputs(",\"fields\":", j->f);
		fr_json__string(j->f, fields[0] == ' ' ? fields + 1 : fields);
	}
	fputs("}}", j->f);
	return ferror(j->f) ? -EIO : 0;
}

static void metadata(struct fr_json *j, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	fprintf(j->f, "%s{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		j->first ? "" : ",\n", what, pid, tid);
	j->first = false;
	fr_json__string(j->f, name);
	fputs("}}", j->f);
}

int fr_json__finish(struct fr_json *j, const char *file_name)
{
	char buf[1100];
	int err;

	for (size_t i = 0; i < j->threads_cap; i++) {
		const struct jthread *t = &j->threads[i];

		if (!t->tid)
			continue;
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
