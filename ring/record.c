/* ring/record.c: bounds-checked decoding of perf records: sample fields in
 * ABI order, the sample_id_all trailer, the sideband record bodies, and the
 * id map that tells which event a record belongs to.
 */
#include "base/grow.h"
#include "ring/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const uint8_t *p, *end;
};

static int take(struct cursor *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	if (dst)
		memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

static int take_u64(struct cursor *c, uint64_t *v)
{
	return take(c, v, sizeof(*v));
}

int fr_record__parse_sample(const struct perf_event_header *h, uint64_t st, uint64_t regs_mask,
			    struct fr_sample *s)
{
	struct cursor c = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size };
	uint32_t u32[2];
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (h->size < sizeof(*h))
		return -EBADMSG;
	if (st & ~(uint64_t)FR_SAMPLE_SUPPORTED)
		return -ENOTSUP;
	if (st & PERF_SAMPLE_IDENTIFIER)
		err |= take_u64(&c, &s->id);
	if (st & PERF_SAMPLE_IP)
		err |= take_u64(&c, &s->ip);
	if (st & PERF_SAMPLE_TID) {
		err |= take(&c, u32, sizeof(u32));
		s->pid = u32[0];
		s->tid = u32[1];
		s->has_tid = true;
	}
	if (st & PERF_SAMPLE_TIME) {
		err |= take_u64(&c, &s->time);
		s->has_time = true;
	}
	if (st & PERF_SAMPLE_ADDR)
		err |= take_u64(&c, &s->addr);
	if (st & PERF_SAMPLE_ID)
		err |= take_u64(&c, &s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		err |= take_u64(&c, NULL);
	if (st & PERF_SAMPLE_CPU) {
		err |= take(&c, u32, sizeof(u32));
		s->cpu = u32[0];
	}
	if (st & PERF_SAMPLE_PERIOD)
		err |= take_u64(&c, &s->period);
	if (err)
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(&c, &s->nr_ips) || s->nr_ips > (uint64_t)(c.end - c.p) / 8)
			return -EBADMSG;
		s->ips = (const uint64_t *)c.p;
		c.p += s->nr_ips * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (take(&c, &s->raw_size, sizeof(s->raw_size)) ||
		    s->raw_size > (size_t)(c.end - c.p))
			return -EBADMSG;
		s->raw = c.p;
		c.p += s->raw_size;
		/* u32 size + data are padded together to 8 bytes */
		c.p = (const uint8_t *)(h + 1) + ((c.p - (const uint8_t *)(h + 1) + 7) & ~(size_t)7);
		if (c.p > c.end)
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (take_u64(&c, &s->regs_abi))
			return -EBADMSG;
		if (s->regs_abi) {
			s->nr_regs = (uint32_t)__builtin_popcountll(regs_mask);
			if ((size_t)(c.end - c.p) < s->nr_regs * 8u)
				return -EBADMSG;
			s->regs = (const uint64_t *)c.p;
			c.p += s->nr_regs * 8u;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (take_u64(&c, &s->stack_size) || s->stack_size > (uint64_t)(c.end - c.p))
			return -EBADMSG;
		s->stack = c.p;
		c.p += s->stack_size;
		if (s->stack_size && take_u64(&c, &s->stack_dyn_size))
			return -EBADMSG;
		if (s->stack_dyn_size > s->stack_size)
			return -EBADMSG;
	}
	return 0;
}

static size_t id_trailer_size(uint64_t st)
{
	size_t n = 0;

	n += (st & PERF_SAMPLE_TID) ? 8 : 0;
	n += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (st & PERF_SAMPLE_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

size_t fr_record__id_size(uint64_t st)
{
	return id_trailer_size(st);
}

int fr_record__parse_id(const struct perf_event_header *h, uint64_t st, struct fr_sample *s)
{
	size_t n = id_trailer_size(st);
	struct cursor c;
	uint32_t u32[2];

	memset(s, 0, sizeof(*s));
	if (h->size < sizeof(*h) + n)
		return -EBADMSG;
	c.p = (const uint8_t *)h + h->size - n;
	c.end = (const uint8_t *)h + h->size;
	if (st & PERF_SAMPLE_TID) {
		take(&c, u32, sizeof(u32));
		s->pid = u32[0];
		s->tid = u32[1];
		s->has_tid = true;
	}
	if (st & PERF_SAMPLE_TIME) {
		take_u64(&c, &s->time);
		s->has_time = true;
	}
	if (st & PERF_SAMPLE_ID)
		take_u64(&c, &s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		take_u64(&c, NULL);
	if (st & PERF_SAMPLE_CPU) {
		take(&c, u32, sizeof(u32));
		s->cpu = u32[0];
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c, &s->id);
	return 0;
}

int fr_record__time(const struct perf_event_header *h, uint64_t st, uint64_t *time)
{
	struct fr_sample s;
	int err;

	if (!(st & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (h->type == PERF_RECORD_SAMPLE) {
		/* TIME follows IDENTIFIER, IP and TID: no need to decode the rest */
		size_t off = sizeof(*h);

		off += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
		off += (st & PERF_SAMPLE_IP) ? 8 : 0;
		off += (st & PERF_SAMPLE_TID) ? 8 : 0;
		if (h->size < off + 8)
			return -EBADMSG;
		memcpy(time, (const uint8_t *)h + off, 8);
		return 0;
	}
	err = fr_record__parse_id(h, st, &s);
	if (err)
		return err;
	*time = s.time;
	return 0;
}

bool fr_record__is_process(uint32_t type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
	       type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT;
}

int fr_record__retrail_time(const struct perf_event_header *h, uint64_t st, void *buf,
			    size_t cap)
{
	size_t n = id_trailer_size(st), body;
	struct perf_event_header out;
	uint64_t time;
	int err;

	if (h->type == PERF_RECORD_SAMPLE || h->size % 8)
		return -EINVAL;
	err = fr_record__time(h, st, &time);
	if (err)
		return err;
	body = h->size - n;   /* header and body: fr_record__time checked n fits */
	if (body + 8 > cap)
		return -ENOSPC;
	out = *h;
	out.size = (uint16_t)(body + 8);
	memcpy(buf, &out, sizeof(out));
	memcpy((uint8_t *)buf + sizeof(out), (const uint8_t *)h + sizeof(out),
	       body - sizeof(out));
	memcpy((uint8_t *)buf + body, &time, 8);
	return (int)(body + 8);
}

int fr_record__pid(const struct perf_event_header *h, uint64_t st, uint32_t *pid)
{
	size_t off = sizeof(*h);

	if (h->type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	if (!(st & PERF_SAMPLE_TID))
		return -ENOENT;
	off += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	off += (st & PERF_SAMPLE_IP) ? 8 : 0;
	if (h->size < off + 8)
		return -EBADMSG;
	memcpy(pid, (const uint8_t *)h + off, sizeof(*pid));
	return 0;
}

int fr_record__identifier(const struct perf_event_header *h, uint64_t st, uint64_t *id)
{
	if (!(st & PERF_SAMPLE_IDENTIFIER))
		return -ENOENT;
	if (h->size < sizeof(*h) + 8)
		return -EBADMSG;
	if (h->type == PERF_RECORD_SAMPLE)
		memcpy(id, h + 1, 8);
	else
		memcpy(id, (const uint8_t *)h + h->size - 8, 8);
	return 0;
}

struct fr_idmap_entry {
	uint64_t id;
	size_t index;
};

struct fr_idmap {
	struct fr_idmap_entry *e;   /* sorted by id */
	size_t nr, cap;
};

struct fr_idmap *fr_idmap__new(void)
{
	return calloc(1, sizeof(struct fr_idmap));
}

void fr_idmap__delete(struct fr_idmap *m)
{
	if (!m)
		return;
	free(m->e);
	free(m);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fr_idmap_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int fr_idmap__add(struct fr_idmap *m, const uint64_t *ids, size_t nr, size_t index)
{
	if (!nr)
		return 0;
	if (nr > SIZE_MAX - m->nr || fr_grow(&m->e, &m->cap, m->nr + nr, sizeof(*m->e), 16))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		m->e[m->nr++] = (struct fr_idmap_entry){ ids[i], index };
	return 0;
}

void fr_idmap__sort(struct fr_idmap *m)
{
	if (m->nr > 1)
		qsort(m->e, m->nr, sizeof(*m->e), cmp_entry);
}

size_t fr_idmap__nr(const struct fr_idmap *m)
{
	return m ? m->nr : 0;
}

int fr_idmap__find(const struct fr_idmap *m, const struct perf_event_header *h,
		   uint64_t sample_type, size_t *index)
{
	struct fr_idmap_entry key, *e;
	int err;

	if (!m || !m->nr)
		return -ENOENT;
	err = fr_record__identifier(h, sample_type, &key.id);
	if (err)
		return err;
	e = bsearch(&key, m->e, m->nr, sizeof(*m->e), cmp_entry);
	if (!e)
		return -ENOENT;
	*index = e->index;
	return 0;
}

/* A string field that starts at off and must end with a NUL inside the record. */
static const char *record_string(const struct perf_event_header *h, size_t off)
{
	const char *p = (const char *)h + off;

	if (off >= h->size || !memchr(p, '\0', h->size - off))
		return NULL;
	return p;
}

int fr_record__comm(const struct perf_event_header *h, struct fr_comm *c)
{
	uint32_t u32[2];

	if (h->type != PERF_RECORD_COMM || h->size < sizeof(*h) + 8)
		return -EBADMSG;
	memcpy(u32, h + 1, 8);
	c->pid = u32[0];
	c->tid = u32[1];
	c->exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	c->comm = record_string(h, sizeof(*h) + 8);
	return c->comm ? 0 : -EBADMSG;
}

int fr_record__make_comm(void *buf, size_t cap, uint32_t pid, uint32_t tid, const char *comm,
			 uint16_t misc, uint64_t st, uint64_t time)
{
	size_t n = strnlen(comm, 15), body = (n + 1 + 7) & ~(size_t)7;
	size_t size = sizeof(struct perf_event_header) + 8 + body + id_trailer_size(st);
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = misc };
	uint32_t ids[2] = { pid, tid };
	uint8_t *p = buf;

	if (size > cap)
		return -ENOSPC;
	memset(buf, 0, size);
	h.size = (uint16_t)size;
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, ids, 8);
	memcpy(p + 16, comm, n);
	p += 16 + body;
	if (st & PERF_SAMPLE_TID) {
		memcpy(p, ids, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		memcpy(p, &time, 8);
	return (int)size;
}

int fr_record__time_raw(const struct perf_event_header *h, uint64_t *time, const uint8_t **raw,
			uint32_t *size)
{
	const uint8_t *body = (const uint8_t *)(h + 1);

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 12)
		return -EBADMSG;
	memcpy(time, body, 8);
	memcpy(size, body + 8, 4);
	if (*size > h->size - sizeof(*h) - 12 || *size < 8)
		return -EBADMSG;
	*raw = body + 12;
	return 0;
}

int fr_record__exec_name(const uint8_t *raw, uint32_t size, const struct fr_exec_fields *f,
			 uint32_t *pid, uint32_t *old_pid, char comm[16])
{
	uint32_t loc, off, len;
	const char *name, *base, *nul;

	if ((size_t)f->pid_off + 4 > size || (size_t)f->old_pid_off + 4 > size ||
	    (size_t)f->file_off + 4 > size)
		return -EBADMSG;
	memcpy(pid, raw + f->pid_off, 4);
	memcpy(old_pid, raw + f->old_pid_off, 4);
	memcpy(&loc, raw + f->file_off, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (!len || off + len > size)
		return -EBADMSG;
	name = (const char *)raw + off;
	nul = memchr(name, '\0', len);
	if (!nul)
		return -EBADMSG;
	base = name;
	for (const char *q = name; q < nul; q++)
		if (*q == '/')
			base = q + 1;
	if (base == nul)
		return -EBADMSG;
	len = (uint32_t)(nul - base) < 15 ? (uint32_t)(nul - base) : 15;
	memcpy(comm, base, len);
	comm[len] = '\0';
	return 0;
}

int fr_record__task(const struct perf_event_header *h, struct fr_task *t)
{
	if ((h->type != PERF_RECORD_FORK && h->type != PERF_RECORD_EXIT) ||
	    h->size < sizeof(*h) + 24)
		return -EBADMSG;
	memcpy(t, h + 1, 24);
	return 0;
}

int fr_record__mmap2(const struct perf_event_header *h, struct fr_mmap2 *m)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t u32[2];

	if (h->type != PERF_RECORD_MMAP2 || h->size < sizeof(*h) + 72)
		return -EBADMSG;
	memset(m, 0, sizeof(*m));
	memcpy(u32, p, 8);
	m->pid = u32[0];
	m->tid = u32[1];
	memcpy(&m->addr, p + 8, 8);
	memcpy(&m->len, p + 16, 8);
	memcpy(&m->pgoff, p + 24, 8);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->has_build_id = true;
		m->build_id_size = p[32] > 20 ? 20 : p[32];
		memcpy(m->build_id, p + 36, 20);
	} else {
		memcpy(&m->maj, p + 32, 4);
		memcpy(&m->min, p + 36, 4);
		memcpy(&m->ino, p + 40, 8);
		memcpy(&m->ino_generation, p + 48, 8);
	}
	memcpy(&m->prot, p + 56, 4);
	memcpy(&m->flags, p + 60, 4);
	m->filename = record_string(h, sizeof(*h) + 64);
	return m->filename ? 0 : -EBADMSG;
}

int fr_record__lost(const struct perf_event_header *h, struct fr_lost *l)
{
	if (h->type != PERF_RECORD_LOST || h->size < sizeof(*h) + 16)
		return -EBADMSG;
	memcpy(l, h + 1, 16);
	return 0;
}

const char *fr_record__type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",         [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",         [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",         [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",     [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",           [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};
	static __thread char buf[16];

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(buf, sizeof(buf), "TYPE%u", type);
	return buf;
}
