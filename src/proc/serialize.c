/* src/proc/serialize.c: the PROCS blob (doc/format.md) both ways: the
 * images of chosen pids (with the mappings a forked one sees of its parent)
 * into bounded payloads, and a file's payloads (of any origin: every count
 * and length checked before use) back into a model, sorted once (linear
 * after the sort whatever their order).
 */
#include "config.h"
#include "src/proc/proctable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
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

/* ---- reading: a batch of payloads ----
 * Everything is checked and staged first (keys sorted by pid, time, what,
 * input order), then fed: images, names and mappings of a pid come in time
 * order, so each image and name is appended; mappings are appended in
 * address order or sorted once (fr_proctable__batch). */
enum { ST_IMAGE, ST_COMM, ST_MAP };   /* at one time: the image before its names and mappings */

struct key {
	uint32_t pid, what;
	uint64_t time;
	uint64_t seq;        /* input order */
	size_t idx;          /* into imgs, comms or maps */
};

struct st_img {
	uint32_t ppid;
	uint64_t exit_time;
};

struct st_map {
	uint64_t start, len, pgoff;
	uint32_t prot;
	uint8_t bid_size, bid[20];
	size_t path, path_len;   /* into paths */
};

struct fr_procs_batch {
	struct key *keys;
	size_t nr_keys, cap_keys;
	struct st_img *imgs;
	size_t nr_imgs, cap_imgs;
	char (*comms)[16];
	size_t nr_comms, cap_comms;
	struct st_map *maps;
	size_t nr_maps, cap_maps;
	char *paths;
	size_t paths_len, cap_paths;
};

struct fr_procs_batch *fr_procs_batch__new(void)
{
	return calloc(1, sizeof(struct fr_procs_batch));
}

void fr_procs_batch__delete(struct fr_procs_batch *b)
{
	if (!b)
		return;
	free(b->keys);
	free(b->imgs);
	free(b->comms);
	free(b->maps);
	free(b->paths);
	free(b);
}

static int stage_key(struct fr_procs_batch *b, uint32_t pid, uint32_t what, uint64_t time,
		     size_t idx)
{
	if (fr_grow(&b->keys, &b->cap_keys, b->nr_keys + 1, sizeof(*b->keys), 64))
		return -ENOMEM;
	b->keys[b->nr_keys] = (struct key){ pid, what, time, b->nr_keys, idx };
	b->nr_keys++;
	return 0;
}

/* One image of a payload staged; every count and length checked against
 * what is left of it. */
static int stage_image(struct fr_procs_batch *b, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *q = *pp;
	uint32_t pid, nc, nm;
	uint64_t start;

	if (end - q < IMG_HDR)
		return -EBADMSG;
	pid = fr_get32(q);
	start = fr_get64(q + 8);
	nc = fr_get32(q + 24);
	nm = fr_get32(q + 28);
	if (fr_grow(&b->imgs, &b->cap_imgs, b->nr_imgs + 1, sizeof(*b->imgs), 16) ||
	    stage_key(b, pid, ST_IMAGE, start, b->nr_imgs))
		return -ENOMEM;
	b->imgs[b->nr_imgs++] = (struct st_img){ fr_get32(q + 4), fr_get64(q + 16) };
	q += IMG_HDR;
	if (nc > (size_t)(end - q) / COMM_SIZE)
		return -EBADMSG;
	for (uint32_t i = 0; i < nc; i++, q += COMM_SIZE) {
		if (fr_grow(&b->comms, &b->cap_comms, b->nr_comms + 1, sizeof(*b->comms), 64) ||
		    stage_key(b, pid, ST_COMM, fr_get64(q), b->nr_comms))
			return -ENOMEM;
		memcpy(b->comms[b->nr_comms], q + 8, 15);
		b->comms[b->nr_comms++][15] = '\0';
	}
	for (uint32_t i = 0; i < nm; i++) {
		struct st_map *m;
		uint32_t len;
		uint64_t t;

		if (end - q < (ptrdiff_t)(MAP_FIXED_SIZE - 4))
			return -EBADMSG;
		len = fr_get32(q + 60);
		if (len > (size_t)(end - q) - (MAP_FIXED_SIZE - 4) || q[36] > 20)
			return -EBADMSG;
		/* mappings copied from a parent count from the image's start */
		t = fr_get64(q) > start ? fr_get64(q) : start;
		if (fr_grow(&b->maps, &b->cap_maps, b->nr_maps + 1, sizeof(*b->maps), 16) ||
		    fr_grow(&b->paths, &b->cap_paths, b->paths_len + len + 1, 1, 256) ||
		    stage_key(b, pid, ST_MAP, t, b->nr_maps))
			return -ENOMEM;
		m = &b->maps[b->nr_maps++];
		*m = (struct st_map){ fr_get64(q + 8), fr_get64(q + 16), fr_get64(q + 24),
				      fr_get32(q + 32), q[36], { 0 }, b->paths_len, len };
		memcpy(m->bid, q + 37, 20);
		memcpy(b->paths + b->paths_len, q + 64, len);
		b->paths[b->paths_len + len] = '\0';
		b->paths_len += len + 1;
		q += MAP_FIXED_SIZE - 4 + len;
	}
	*pp = q;
	return 0;
}

int fr_procs_batch__add(struct fr_procs_batch *b, const void *data, size_t len)
{
	const uint8_t *q = data, *end = q + len;
	struct fr_procs_batch was = *b;
	int err = 0;
	uint32_t n;

	if (len < 8 || fr_get32(q) != PROCS_VERSION)
		return -EBADMSG;
	n = fr_get32(q + 4);
	q += 8;
	for (uint32_t i = 0; i < n && !err; i++)
		err = stage_image(b, &q, end);
	if (!err && q != end)
		err = -EBADMSG;
	if (err) {   /* a payload is taken whole or not at all */
		b->nr_keys = was.nr_keys;
		b->nr_imgs = was.nr_imgs;
		b->nr_comms = was.nr_comms;
		b->nr_maps = was.nr_maps;
		b->paths_len = was.paths_len;
	}
	return err;
}

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int apply_key(const struct fr_procs_batch *b, const struct key *k, struct fr_proctable *pt)
{
	const struct st_img *im;
	const struct st_map *m;
	int err;

	switch (k->what) {
	case ST_IMAGE:
		im = &b->imgs[k->idx];
		return fr_proctable__image(pt, &(struct fr_proc){ .pid = k->pid, .ppid = im->ppid,
								  .start_time = k->time,
								  .exit_time = im->exit_time });
	case ST_COMM:
		return fr_proctable__comm(pt, k->pid, k->pid, k->time, b->comms[k->idx], false);
	default:
		m = &b->maps[k->idx];
		err = fr_proctable__mmap(pt, k->pid, k->time, m->start, m->len, m->pgoff, m->prot,
					 b->paths + m->path, m->bid_size ? m->bid : NULL,
					 m->bid_size);
		return err == -EINVAL ? 0 : err;   /* an empty or wrapping range: that mapping only */
	}
}

int fr_procs_batch__apply(struct fr_procs_batch *b, struct fr_proctable *pt)
{
	int err = 0;

	if (b->nr_keys)   /* none: keys is NULL, which qsort must not be given */
		qsort(b->keys, b->nr_keys, sizeof(*b->keys), key_cmp);
	fr_proctable__batch(pt, true);
	for (size_t i = 0; i < b->nr_keys && !err; i++)
		err = apply_key(b, &b->keys[i], pt);
	fr_proctable__batch(pt, false);
	b->nr_keys = b->nr_imgs = b->nr_comms = b->nr_maps = b->paths_len = 0;
	return err;
}

int fr_proctable__parse(struct fr_proctable *pt, const void *data, size_t len)
{
	struct fr_procs_batch *b = fr_procs_batch__new();
	int err = b ? fr_procs_batch__add(b, data, len) : -ENOMEM;

	if (!err)
		err = fr_procs_batch__apply(b, pt);
	fr_procs_batch__delete(b);
	return err;
}
