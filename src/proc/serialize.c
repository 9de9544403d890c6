/* src/proc/serialize.c: the PROCS blob (doc/format.md) both ways: the
 * images of chosen pids into bounded payloads, and payloads (from files of
 * any origin: every length checked) back into a table.
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

static size_t image_size(const struct fr_proc *p)
{
	size_t n = IMG_HDR + p->nr_comms * COMM_SIZE;

	for (size_t i = 0; i < p->nr_maps; i++)
		n += MAP_FIXED_SIZE + strlen(p->maps[i].path);
	return n;
}

static uint8_t *put_image(uint8_t *b, const struct fr_proc *p)
{
	fr_put32(b, p->pid);
	fr_put32(b + 4, p->ppid);
	fr_put64(b + 8, p->start_time);
	fr_put64(b + 16, p->exit_time);
	fr_put32(b + 24, (uint32_t)p->nr_comms);
	fr_put32(b + 28, (uint32_t)p->nr_maps);
	b += IMG_HDR;
	for (size_t i = 0; i < p->nr_comms; i++, b += COMM_SIZE) {
		fr_put64(b, p->comms[i].time);
		memcpy(b + 8, p->comms[i].comm, 16);
	}
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct fr_pmap *m = &p->maps[i];
		uint32_t len = (uint32_t)strlen(m->path);

		fr_put64(b, m->time);
		fr_put64(b + 8, m->start);
		fr_put64(b + 16, m->len);
		fr_put64(b + 24, m->pgoff);
		fr_put32(b + 32, m->prot);
		b[36] = m->build_id_size;
		memcpy(b + 37, m->build_id, 20);
		memset(b + 57, 0, 3);
		fr_put32(b + 60, len);
		memcpy(b + 64, m->path, len);
		b += MAP_FIXED_SIZE - 4 + len;
	}
	return b;
}

static bool wanted(const struct fr_proc *p, const uint32_t *pids, size_t nr)
{
	if (!pids)
		return true;
	for (size_t i = 0; i < nr; i++)
		if (pids[i] == p->pid)
			return true;
	return false;
}

int fr_proctable__serialize(const struct fr_proctable *pt, const uint32_t *pids, size_t nr,
			    size_t max, int (*cb)(void *ctx, const void *data, size_t len),
			    void *ctx)
{
	uint8_t *buf = malloc(max), *b;
	uint32_t count = 0;
	int err = 0;

	if (!buf || max < 8)
		return buf ? (free(buf), -EINVAL) : -ENOMEM;
	b = buf + 8;
	for (size_t i = 0; !err; i++) {
		const struct fr_proc *p = fr_proctable__get(pt, i);
		size_t need = p ? image_size(p) : 0;

		if (p && !wanted(p, pids, nr))
			continue;
		if (p && need + 8 > max)
			continue;   /* an image larger than a blob: left out */
		if (!p || (size_t)(b - buf) + need > max) {
			if (count) {
				fr_put32(buf, PROCS_VERSION);
				fr_put32(buf + 4, count);
				err = cb(ctx, buf, (size_t)(b - buf));
			}
			count = 0;
			b = buf + 8;
			if (!p)
				break;
		}
		b = put_image(b, p);
		count++;
	}
	free(buf);
	return err;
}

static void tmp_free(struct fr_proc *p)
{
	for (size_t i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->comms);
}

static int parse_image(struct fr_proctable *pt, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *b = *pp;
	struct fr_proc p = { 0 };
	uint32_t nc, nm;
	int err = -EBADMSG;

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
	p.comms = calloc(nc ? nc : 1, sizeof(*p.comms));
	p.maps = calloc(nm ? nm : 1, sizeof(*p.maps));
	if (!p.comms || !p.maps) {
		err = -ENOMEM;
		goto out;
	}
	for (; p.nr_comms < nc; p.nr_comms++, b += COMM_SIZE) {
		p.comms[p.nr_comms].time = fr_get64(b);
		memcpy(p.comms[p.nr_comms].comm, b + 8, 16);
		p.comms[p.nr_comms].comm[15] = '\0';
	}
	for (; p.nr_maps < nm; p.nr_maps++) {
		struct fr_pmap *m = &p.maps[p.nr_maps];
		uint32_t len;

		if (end - b < (ptrdiff_t)(MAP_FIXED_SIZE - 4))
			goto out;
		len = fr_get32(b + 60);
		if (len > (size_t)(end - b) - (MAP_FIXED_SIZE - 4) || b[36] > 20)
			goto out;
		m->time = fr_get64(b);
		m->start = fr_get64(b + 8);
		m->len = fr_get64(b + 16);
		m->pgoff = fr_get64(b + 24);
		m->prot = fr_get32(b + 32);
		m->build_id_size = b[36];
		memcpy(m->build_id, b + 37, 20);
		m->path = strndup((const char *)b + 64, len);
		if (!m->path) {
			err = -ENOMEM;
			goto out;
		}
		b += MAP_FIXED_SIZE - 4 + len;
	}
	err = fr_proctable__add_image(pt, &p);
	*pp = b;
out:
	tmp_free(&p);
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
