/* src/proc/serialize.c: the PROCS blob (doc/format.md) both ways: the
 * images of chosen pids (with the mappings a forked one sees of its parent)
 * into bounded payloads, and payloads (from files of any origin: every count
 * and length checked before use) back into a model.
 */
#include "config.h"
#include "src/proc/proctable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"

/* ---- PROCS payload ----
 * u32 version (1), u32 nr_images, then per image:
 *   u32 pid, u32 ppid, u64 start_time, u64 exit_time, u32 nr_comms, u32 nr_maps,
 *   nr_comms x { u64 time, char comm[16] },
 *   nr_maps x { u64 time, u64 start, u64 len, u64 pgoff, u32 prot, u8 build_id_size,
 *               u8 build_id[20], u8 pad[3], u32 path_len, char path[path_len] }
 */
#define PROCS_VERSION 1u
#define IMG_HDR 32u
#define COMM_SIZE 24u
#define MAP_FIXED_SIZE 68u

struct sizer {
	const struct fr_proctable *pt;
	size_t n, nr_maps;
};

static int size_map(void *ctx, const struct fr_map *m)
{
	struct sizer *z = ctx;

	z->n += MAP_FIXED_SIZE + strlen(fr_proctable__dso(z->pt, m->dso)->path);
	z->nr_maps++;
	return 0;
}

/* The bytes of an image, and how many mappings it holds. */
static size_t image_size(const struct fr_proctable *pt, const struct fr_proc *p, size_t *nr_maps)
{
	struct sizer z = { pt, IMG_HDR, 0 };
	size_t nc;

	fr_proctable__proc_comms(pt, p, &nc);
	z.n += nc * COMM_SIZE;
	fr_proctable__proc_maps(pt, p, size_map, &z);
	*nr_maps = z.nr_maps;
	return z.n;
}

struct putter {
	const struct fr_proctable *pt;
	uint8_t *b;
};

static int put_map(void *ctx, const struct fr_map *m)
{
	struct putter *w = ctx;
	const struct fr_dso_id *d = fr_proctable__dso(w->pt, m->dso);
	uint32_t len = (uint32_t)strlen(d->path);
	uint8_t *b = w->b;

	fr_put64(b, m->time);
	fr_put64(b + 8, m->start);
	fr_put64(b + 16, m->end - m->start);
	fr_put64(b + 24, m->pgoff);
	fr_put32(b + 32, m->prot);
	b[36] = d->build_id_size;
	memcpy(b + 37, d->build_id, 20);
	memset(b + 57, 0, 3);
	fr_put32(b + 60, len);
	memcpy(b + 64, d->path, len);
	w->b = b + MAP_FIXED_SIZE - 4 + len;
	return 0;
}

static uint8_t *put_image(const struct fr_proctable *pt, uint8_t *b, const struct fr_proc *p,
			  size_t nr_maps)
{
	size_t nc;
	const struct fr_pcomm *c = fr_proctable__proc_comms(pt, p, &nc);
	struct putter w = { pt, NULL };

	fr_put32(b, p->pid);
	fr_put32(b + 4, p->ppid);
	fr_put64(b + 8, p->start_time);
	fr_put64(b + 16, p->exit_time);
	fr_put32(b + 24, (uint32_t)nc);
	fr_put32(b + 28, (uint32_t)nr_maps);
	b += IMG_HDR;
	for (size_t i = 0; i < nc; i++, b += COMM_SIZE) {
		fr_put64(b, c[i].time);
		memset(b + 8, 0, 16);
		strncpy((char *)b + 8, c[i].comm, 15);
	}
	w.b = b;
	fr_proctable__proc_maps(pt, p, put_map, &w);
	return w.b;
}

struct writer {
	const struct fr_proctable *pt;
	const uint32_t *pids;
	size_t nr, max;
	int (*cb)(void *ctx, const void *data, size_t len);
	void *ctx;
	uint8_t *buf, *b;
	uint32_t count;
};

static bool wanted(const struct writer *w, const struct fr_proc *p)
{
	if (!w->pids)
		return true;
	for (size_t i = 0; i < w->nr; i++)
		if (w->pids[i] == p->pid)
			return true;
	return false;
}

/* The payload so far, if any, out. */
static int flush(struct writer *w)
{
	int err = 0;

	if (w->count) {
		fr_put32(w->buf, PROCS_VERSION);
		fr_put32(w->buf + 4, w->count);
		err = w->cb(w->ctx, w->buf, (size_t)(w->b - w->buf));
	}
	w->count = 0;
	w->b = w->buf + 8;
	return err;
}

static int write_image(void *ctx, const struct fr_proc *p)
{
	struct writer *w = ctx;
	size_t nr_maps, need;
	int err;

	if (!wanted(w, p))
		return 0;
	need = image_size(w->pt, p, &nr_maps);
	if (need + 8 > w->max || nr_maps > UINT32_MAX)
		return 0;   /* an image larger than a blob: left out */
	if ((size_t)(w->b - w->buf) + need > w->max && (err = flush(w)))
		return err;
	w->b = put_image(w->pt, w->b, p, nr_maps);
	w->count++;
	return 0;
}

int fr_proctable__serialize(const struct fr_proctable *pt, const uint32_t *pids, size_t nr,
			    size_t max, int (*cb)(void *ctx, const void *data, size_t len),
			    void *ctx)
{
	struct writer w = { pt, pids, nr, max, cb, ctx, NULL, NULL, 0 };
	int err;

	if (max < 8)
		return -EINVAL;
	w.buf = malloc(max);
	if (!w.buf)
		return -ENOMEM;
	w.b = w.buf + 8;
	err = fr_proctable__for_each(pt, write_image, &w);
	if (!err)
		err = flush(&w);
	free(w.buf);
	return err;
}

/* One image of a payload into pt; every count and length checked against
 * what is left of it. */
static int parse_image(struct fr_proctable *pt, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *b = *pp;
	struct fr_proc p = { 0 };
	uint32_t nc, nm;
	int err;

	if (end - b < IMG_HDR)
		return -EBADMSG;
	p.pid = fr_get32(b);
	p.ppid = fr_get32(b + 4);
	p.start_time = fr_get64(b + 8);
	p.exit_time = fr_get64(b + 16);
	nc = fr_get32(b + 24);
	nm = fr_get32(b + 28);
	b += IMG_HDR;
	if (nc > (size_t)(end - b) / COMM_SIZE || nm > (size_t)(end - b) / (MAP_FIXED_SIZE - 4))
		return -EBADMSG;
	/* the whole image is checked before any of it is added */
	{
		const uint8_t *q = b + (size_t)nc * COMM_SIZE;

		for (uint32_t i = 0; i < nm; i++) {
			uint32_t len;

			if (end - q < (ptrdiff_t)(MAP_FIXED_SIZE - 4))
				return -EBADMSG;
			len = fr_get32(q + 60);
			if (len > (size_t)(end - q) - (MAP_FIXED_SIZE - 4) || q[36] > 20)
				return -EBADMSG;
			q += MAP_FIXED_SIZE - 4 + len;
		}
	}
	err = fr_proctable__image(pt, &p);
	for (uint32_t i = 0; i < nc && !err; i++, b += COMM_SIZE) {
		char comm[16];

		memcpy(comm, b + 8, 15);
		comm[15] = '\0';
		err = fr_proctable__comm(pt, p.pid, p.pid, fr_get64(b), comm, false);
	}
	for (uint32_t i = 0; i < nm && !err; i++) {
		uint32_t len = fr_get32(b + 60);
		uint64_t t = fr_get64(b), start = fr_get64(b + 8), mlen = fr_get64(b + 16);
		char *path = strndup((const char *)b + 64, len);

		if (!path)
			return -ENOMEM;
		/* mappings copied from a parent count from the image's start */
		err = fr_proctable__mmap(pt, p.pid, t > p.start_time ? t : p.start_time, start,
					 mlen, fr_get64(b + 24), fr_get32(b + 32), path,
					 b[36] ? b + 37 : NULL, b[36]);
		free(path);
		if (err == -EINVAL)
			err = 0;   /* an empty or wrapping range: that mapping only */
		b += MAP_FIXED_SIZE - 4 + len;
	}
	*pp = b;
	return err;
}

int fr_proctable__parse(struct fr_proctable *pt, const void *data, size_t len)
{
	const uint8_t *b = data, *end = b + len;
	uint32_t n;

	if (len < 8 || fr_get32(b) != PROCS_VERSION)
		return -EBADMSG;
	n = fr_get32(b + 4);
	b += 8;
	for (uint32_t i = 0; i < n; i++) {
		int err = parse_image(pt, &b, end);

		if (err)
			return err;
	}
	return b == end ? 0 : -EBADMSG;
}
