/* src/proc/perfmap.c: JIT names per process: /tmp/perf-PID.map read as
 * hostile input (no symlinks, a regular file of the process's owner or root,
 * size and line caps, malformed lines counted) and read further as it grows,
 * the loads of its jitdump (src/proc/jitdump.c) added alike, the PERFMAP blob
 * both ways, and lookups by address.
 */
#include "config.h"
#include "src/proc/perfmap.h"
#include "src/proc/perfmap_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/util.h"
#include "symbolize/strpool.h"

#define READ_CHUNK (1u << 20)
#define PROC_HDR 16u           /* u32 pid, u32 nr_entries, u64 skipped */
#define ENT_FIXED 20u          /* u64 start, u64 size, u32 name_len */

static void free_dump(struct fr_jitdump *d)
{
	if (d)
		fr_jitdump__exit(d);
	free(d);
}

int fr_perfmaps__new(struct fr_perfmaps **out)
{
	struct fr_perfmaps *pm = calloc(1, sizeof(*pm));

	if (!pm || !(pm->names = fr_strpool__new())) {
		free(pm);
		return -ENOMEM;
	}
	*out = pm;
	return 0;
}

void fr_perfmaps__delete(struct fr_perfmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->n; i++) {
		free(pm->maps[i].ents);
		if (pm->maps[i].fd >= 0)
			close(pm->maps[i].fd);
		free_dump(pm->maps[i].dump);
	}
	free(pm->maps);
	fr_hmap__exit(&pm->index);
	fr_strpool__delete(pm->names);
	free(pm);
}

struct pmap *fr_pmap_find(const struct fr_perfmaps *pm, uint32_t pid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&pm->index, fr_hash__u64(pid), &it, &i); ok;
	     ok = fr_hmap__next(&pm->index, &it, &i))
		if (pm->maps[i].pid == pid)
			return &pm->maps[i];
	return NULL;
}

struct pmap *fr_pmap_of(struct fr_perfmaps *pm, uint32_t pid)
{
	struct pmap *m = fr_pmap_find(pm, pid);

	if (m)
		return m;
	if (pm->n >= UINT32_MAX - 1 || fr_grow(&pm->maps, &pm->cap, pm->n + 1, sizeof(*pm->maps), 16))
		return NULL;
	if (fr_hmap__add(&pm->index, fr_hash__u64(pid), (uint32_t)pm->n))
		return NULL;
	pm->maps[pm->n] = (struct pmap){ .pid = pid, .fd = -1 };
	return &pm->maps[pm->n++];
}

int fr_pmap_add(struct fr_perfmaps *pm, struct pmap *m, uint64_t start, uint64_t size,
		const char *name, size_t len)
{
	uint64_t cost, seq = pm->seq;
	const char *s = NULL;

	if (len > FR_PERFMAP_LINE_MAX)   /* as the blob keeps it */
		len = FR_PERFMAP_LINE_MAX;
	cost = sizeof(struct ent) + len + 1;
	if (pm->budget && cost > pm->budget) {   /* alone larger than all: left out */
		pm->dropped++;
		pm->dropped_bytes += cost;
		return 0;
	}
	if (pm->budget && pm->bytes + cost > pm->budget)   /* the oldest go, in a batch */
		fr_pmap_compact(pm, cost, name, len, &s);
	if (!s && !(s = fr_strpool__intern(pm->names, name, len)))
		return -ENOMEM;
	if (fr_grow(&m->ents, &m->cap, m->n + 1, sizeof(*m->ents), 64))
		return -ENOMEM;
	m->ents[m->n++] = (struct ent){ { start, size, s }, seq << ENT_LEN_BITS | len };
	m->last = seq;
	m->sorted = false;
	pm->seq++;
	pm->bytes += cost;
	return 0;
}

/* Hex digits (an optional 0x) at *p up to end: the value, *p past them. */
static bool hex_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;

		if (d < 0)
			break;
		if (digits == 16)
			return false;   /* more than 64 bits */
		*v = *v << 4 | (uint64_t)d;
	}
	*p = s;
	return digits > 0;
}

/* "START SIZE name" (hex, hex, the rest of the line): false if malformed. */
static bool parse_line(const char *s, const char *end, uint64_t *start, uint64_t *size,
		       const char **name, size_t *len)
{
	if (end > s && end[-1] == '\r')
		end--;
	if ((size_t)(end - s) > FR_PERFMAP_LINE_MAX || !hex_field(&s, end, start) ||
	    s == end || *s != ' ')
		return false;
	while (s < end && *s == ' ')
		s++;
	if (!hex_field(&s, end, size) || s == end || *s != ' ')
		return false;
	while (s < end && *s == ' ')
		s++;
	if (s == end || memchr(s, '\0', (size_t)(end - s)) || *size > UINT64_MAX - *start)
		return false;
	*name = s;
	*len = (size_t)(end - s);
	return true;
}

int fr_perfmaps__add_text(struct fr_perfmaps *pm, uint32_t pid, const char *text, size_t len,
			  size_t *used)
{
	struct pmap *m = fr_pmap_of(pm, pid);
	const char *p = text, *end = text + len, *nl;

	*used = 0;
	if (!m)
		return -ENOMEM;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		uint64_t start, size;
		const char *name;
		size_t nlen;
		int err;

		if (nl == p) {
			/* an empty line: nothing */
		} else if (!parse_line(p, nl, &start, &size, &name, &nlen)) {
			m->skipped++;
		} else if ((err = fr_pmap_add(pm, m, start, size, name, nlen))) {
			return err;
		}
		p = nl + 1;
		*used = (size_t)(p - text);
	}
	return 0;
}

static void reset(struct fr_perfmaps *pm, struct pmap *m)
{
	fr_pmap_drop(pm, m);
	m->read = 0;
	m->skipped = 0;
	m->capped = false;
	m->sorted = false;
	if (m->dump)   /* its entries went too: read again from its start */
		fr_jitdump__restart(m->dump);
}

/* Read fd (the map of m->pid, owned by uid or root) from where m stopped. */
int fr_pmap_read_fd(struct fr_perfmaps *pm, uint32_t pid, int fd, uid_t uid)
{
	struct pmap *m;
	struct stat sb;
	char *buf;
	size_t fill = 0;
	uint64_t off, limit;
	bool skipping = false;   /* in a line longer than the cap */
	int err = 0;

	if (fstat(fd, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode) || (sb.st_uid != uid && sb.st_uid != 0))
		return -EPERM;
	if (!(m = fr_pmap_of(pm, pid)))
		return -ENOMEM;
	if (m->ino && (m->ino != sb.st_ino || m->dev != sb.st_dev || (uint64_t)sb.st_size < m->read))
		reset(pm, m);   /* another file, or cut short: read again */
	m->dev = sb.st_dev;
	m->ino = sb.st_ino;
	limit = (uint64_t)sb.st_size < FR_PERFMAP_FILE_MAX ? (uint64_t)sb.st_size : FR_PERFMAP_FILE_MAX;
	m->capped = (uint64_t)sb.st_size > FR_PERFMAP_FILE_MAX;
	if (m->read >= limit)
		return 0;
	if (!(buf = malloc(READ_CHUNK + FR_PERFMAP_LINE_MAX + 2)))
		return -ENOMEM;
	off = m->read;
	while (off < limit) {
		size_t want = READ_CHUNK, used = 0;
		ssize_t got;

		if (want > limit - off)
			want = (size_t)(limit - off);
		got = pread(fd, buf + fill, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		off += (uint64_t)got;
		fill += (size_t)got;
		if (skipping) {
			char *nl = memchr(buf, '\n', fill);

			if (!nl) {
				m->read += fill;
				fill = 0;
				continue;
			}
			used = (size_t)(nl + 1 - buf);
			skipping = false;
		}
		{
			size_t u2 = 0;

			err = fr_perfmaps__add_text(pm, pid, buf + used, fill - used, &u2);
			m = fr_pmap_find(pm, pid);   /* the array may have moved */
			if (err)
				break;
			used += u2;
		}
		m->read += used;
		memmove(buf, buf + used, fill - used);
		fill -= used;
		if (fill > FR_PERFMAP_LINE_MAX) {   /* no line break in sight */
			m->skipped++;
			m->read += fill;
			fill = 0;
			skipping = true;
		}
	}
	free(buf);
	return err;
}

int fr_perfmaps__load_file(struct fr_perfmaps *pm, uint32_t pid, const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err;

	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	err = fr_pmap_read_fd(pm, pid, fd, geteuid());
	close(fd);
	return err;
}

/* ---- lookups ---- */

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->e.start != y->e.start)
		return x->e.start < y->e.start ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;   /* the order written */
}

const struct fr_perfmap_entry *fr_perfmaps__find(struct fr_perfmaps *pm, uint32_t pid,
						 uint64_t addr)
{
	struct pmap *m = fr_pmap_find(pm, pid);
	size_t lo = 0, hi;

	if (!m || !m->n)
		return NULL;
	if (!m->sorted) {
		qsort(m->ents, m->n, sizeof(*m->ents), cmp_ent);
		m->sorted = true;
	}
	hi = m->n;
	while (lo < hi) {   /* the first entry starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (m->ents[mid].e.start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest starts first; an older, longer entry may cover it too */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (addr - m->ents[i].e.start < m->ents[i].e.size)
			return &m->ents[i].e;
	return NULL;
}

void fr_perfmaps__forget(struct fr_perfmaps *pm, uint32_t pid)
{
	struct pmap *m = fr_pmap_find(pm, pid);
	uint32_t i, last;

	if (!m)
		return;
	i = (uint32_t)(m - pm->maps);
	last = (uint32_t)pm->n - 1;
	fr_pmap_drop(pm, m);
	if (m->fd >= 0) {
		close(m->fd);
		pm->held--;
	}
	if (m->dump && m->dump->fd >= 0)
		pm->held--;
	free_dump(m->dump);
	fr_hmap__remove(&pm->index, fr_hash__u64(pid), i);
	if (i != last) {
		fr_hmap__replace(&pm->index, fr_hash__u64(pm->maps[last].pid), last, i);
		pm->maps[i] = pm->maps[last];
	}
	pm->n--;
}

bool fr_perfmaps__has(const struct fr_perfmaps *pm, uint32_t pid)
{
	const struct pmap *m = fr_pmap_find(pm, pid);

	return m && m->n;
}

int fr_perfmaps__stats(const struct fr_perfmaps *pm, uint32_t pid, struct fr_perfmap_stats *st)
{
	const struct pmap *m = fr_pmap_find(pm, pid);

	if (!m)
		return -ENOENT;
	*st = (struct fr_perfmap_stats){ m->n, m->skipped, m->read, m->capped, { 0 } };
	if (m->dump)
		st->dump = (struct fr_perfmap_dump_stats){ m->dump->off, m->dump->loads + m->dump->moves,
							   m->dump->skipped, m->dump->tail,
							   m->dump->refused, m->dump->capped };
	return 0;
}

size_t fr_perfmaps__pids(const struct fr_perfmaps *pm, uint32_t *out, size_t max)
{
	for (size_t i = 0; i < pm->n && i < max; i++)
		out[i] = pm->maps[i].pid;
	return pm->n;
}

/* ---- the PERFMAP blob ----
 * u32 version (1), u32 nr_procs, then per process: u32 pid, u32 nr_entries,
 * u64 skipped, nr_entries x { u64 start, u64 size, u32 name_len,
 * char name[name_len] }. Little-endian, packed.
 */

struct enc {
	uint8_t *buf;
	size_t len, max, nprocs, proc_at;   /* proc_at: the open process header */
	fr_perfmap_out_cb cb;
	void *ctx;
};

static int flush(struct enc *e)
{
	int err;

	if (!e->nprocs)
		return 0;
	fr_put32(e->buf + 4, (uint32_t)e->nprocs);
	err = e->cb(e->ctx, e->buf, e->len);
	e->len = 8;
	e->nprocs = 0;
	return err;
}

/* skipped: the pid's first header only (a reader adds them up) */
static void open_proc(struct enc *e, const struct pmap *m, uint64_t skipped)
{
	e->proc_at = e->len;
	fr_put32(e->buf + e->len, m->pid);
	fr_put32(e->buf + e->len + 4, 0);
	fr_put64(e->buf + e->len + 8, skipped);
	e->len += PROC_HDR;
	e->nprocs++;
}

int fr_perfmap__encode(const struct fr_perfmaps *pm, const uint32_t *pids, size_t nr, size_t max,
		       fr_perfmap_out_cb cb, void *ctx)
{
	struct enc e = { NULL, 8, max, 0, 0, cb, ctx };
	size_t count = pids ? nr : pm->n;
	int err = 0;

	if (max < 8 + PROC_HDR + ENT_FIXED + FR_PERFMAP_LINE_MAX)
		return -EINVAL;
	if (!(e.buf = malloc(max)))
		return -ENOMEM;
	fr_put32(e.buf, FR_PERFMAP_VERSION);
	for (size_t i = 0; i < count && !err; i++) {
		const struct pmap *m = pids ? fr_pmap_find(pm, pids[i]) : &pm->maps[i];
		uint32_t in_hdr = 0;
		uint64_t skipped;

		if (!m)
			continue;
		/* a jitdump's records skipped, and its last one not whole yet */
		skipped = m->skipped + (m->dump ? m->dump->skipped + (m->dump->tail != 0) : 0);
		if (!m->n && !skipped)
			continue;
		if (e.len + PROC_HDR > e.max)
			err = flush(&e);
		open_proc(&e, m, skipped);
		for (size_t k = 0; k < m->n && !err; k++) {
			const struct fr_perfmap_entry *x = &m->ents[k].e;
			size_t nl = strlen(x->name);

			if (nl > FR_PERFMAP_LINE_MAX)
				nl = FR_PERFMAP_LINE_MAX;
			if (e.len + ENT_FIXED + nl > e.max) {   /* the rest in the next payload */
				fr_put32(e.buf + e.proc_at + 4, in_hdr);
				if ((err = flush(&e)))
					break;
				open_proc(&e, m, 0);
				in_hdr = 0;
			}
			fr_put64(e.buf + e.len, x->start);
			fr_put64(e.buf + e.len + 8, x->size);
			fr_put32(e.buf + e.len + 16, (uint32_t)nl);
			memcpy(e.buf + e.len + ENT_FIXED, x->name, nl);
			e.len += ENT_FIXED + nl;
			in_hdr++;
		}
		if (!err)
			fr_put32(e.buf + e.proc_at + 4, in_hdr);
	}
	if (!err)
		err = flush(&e);
	free(e.buf);
	return err;
}

/* Walk a payload: check only (pm NULL), or add it. */
static int walk(struct fr_perfmaps *pm, const uint8_t *p, size_t len)
{
	size_t off = 8;
	uint32_t nprocs;

	if (len < 8 || fr_get32(p) != FR_PERFMAP_VERSION)
		return -EINVAL;
	nprocs = fr_get32(p + 4);
	for (uint32_t i = 0; i < nprocs; i++) {
		uint32_t pid, n;
		struct pmap *m = NULL;

		if (len - off < PROC_HDR)
			return -EINVAL;
		pid = fr_get32(p + off);
		n = fr_get32(p + off + 4);
		if (pm) {
			if (!(m = fr_pmap_of(pm, pid)))
				return -ENOMEM;
			m->skipped += fr_get64(p + off + 8);
		}
		off += PROC_HDR;
		if (n > (len - off) / ENT_FIXED)
			return -EINVAL;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t start, size;
			uint32_t nl;
			int err;

			if (len - off < ENT_FIXED)
				return -EINVAL;
			start = fr_get64(p + off);
			size = fr_get64(p + off + 8);
			nl = fr_get32(p + off + 16);
			off += ENT_FIXED;
			if (nl == 0 || nl > FR_PERFMAP_LINE_MAX || nl > len - off ||
			    size > UINT64_MAX - start || memchr(p + off, '\0', nl))
				return -EINVAL;
			if (m && (err = fr_pmap_add(pm, m, start, size, (const char *)p + off, nl)))
				return err;
			if (m)
				m = fr_pmap_find(pm, pid);
			off += nl;
		}
	}
	return off == len ? 0 : -EINVAL;
}

int fr_perfmap__decode(struct fr_perfmaps *pm, const void *data, size_t len)
{
	int err = walk(NULL, data, len);

	return err ? err : walk(pm, data, len);
}
