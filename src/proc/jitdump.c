/* src/proc/jitdump.c: jitdump files as hostile input: the header checked
 * (magic, version, size), each record's framing checked, code loads and moves
 * handed out, a cut last record left for the next read, the file read on
 * from where it stopped; the loaded code's names (the caller's) for moves.
 */
#include "config.h"
#include "src/proc/jitdump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "src/util.h"

#define FILE_HDR 40u          /* magic, version, size, elf_mach, pad, pid, time, flags */
#define FILE_HDR_MAX 4096u    /* a longer header (newer fields): refused */
#define REC_HDR 16u           /* u32 id, u32 total_size, u64 timestamp */
#define LOAD_FIXED 40u        /* pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_FIXED 48u        /* pid, tid, vma, old_code_addr, new_code_addr, code_size, index */
#define READ_BUF (1u << 20)   /* > the longest record start a parse needs */

struct jd_code {
	uint64_t addr;
	const char *name;     /* the callback's lasting copy */
	uint32_t len;         /* at most FR_JITDUMP_NAME_MAX */
	bool renamed;         /* since the last prune */
};

void fr_jitdump__init(struct fr_jitdump *d)
{
	*d = (struct fr_jitdump){ .fd = -1 };
}

void fr_jitdump__exit(struct fr_jitdump *d)
{
	if (d->fd >= 0)
		close(d->fd);
	free(d->codes);
	fr_hmap__exit(&d->index);
	fr_jitdump__init(d);
}

void fr_jitdump__restart(struct fr_jitdump *d)
{
	int keep = d->fd;

	d->fd = -1;
	fr_jitdump__exit(d);
	d->fd = keep;
}

static struct jd_code *code_at(const struct fr_jitdump *d, uint64_t addr)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&d->index, fr_hash__u64(addr), &it, &i); ok;
	     ok = fr_hmap__next(&d->index, &it, &i))
		if (d->codes[i].addr == addr)
			return &d->codes[i];
	return NULL;
}

/* Code at addr is now called name (a load there replaces what was). */
static int remember(struct fr_jitdump *d, uint64_t addr, const char *name, size_t len)
{
	struct jd_code *c = code_at(d, addr);

	if (c) {
		c->name = name;
		c->len = (uint32_t)len;
		return 0;
	}
	if (d->n >= UINT32_MAX - 1 || fr_grow(&d->codes, &d->cap, d->n + 1, sizeof(*d->codes), 64) ||
	    fr_hmap__add(&d->index, fr_hash__u64(addr), (uint32_t)d->n))
		return -ENOMEM;
	d->codes[d->n++] = (struct jd_code){ addr, name, (uint32_t)len, false };
	return 0;
}

void fr_jitdump__rename(struct fr_jitdump *d, uint64_t addr, const char *old, const char *new)
{
	struct jd_code *c = code_at(d, addr);

	if (c && c->name == old) {
		c->name = new;
		c->renamed = true;
	}
}

void fr_jitdump__prune(struct fr_jitdump *d)
{
	size_t k = 0;

	fr_hmap__clear(&d->index);
	for (size_t i = 0; i < d->n; i++) {
		if (!d->codes[i].renamed)
			continue;
		d->codes[k] = d->codes[i];
		d->codes[k].renamed = false;
		/* fewer than the index held: no growth, no failure; if it did
		 * fail, the code is forgotten (a move of it unnamed) */
		if (!fr_hmap__add(&d->index, fr_hash__u64(d->codes[k].addr), (uint32_t)k))
			k++;
	}
	d->n = k;
	if (!k) {
		free(d->codes);
		d->codes = NULL;
		d->cap = 0;
		fr_hmap__exit(&d->index);
	}
}

static int emit(struct fr_jitdump *d, uint64_t start, uint64_t size, const char *name, size_t len,
		fr_jitdump_code_cb cb, void *ctx)
{
	const char *kept = NULL;
	int err;

	if (d->names + len + 20 > FR_JITDUMP_NAMES_MAX) {
		d->capped = true;
		return 0;
	}
	if ((err = cb(ctx, start, size, name, len, &kept)))
		return err;
	d->names += len + 20;
	return kept ? remember(d, start, kept, len) : 0;
}

/* A code load: its name ends inside the record (and within the cap). */
static int load(struct fr_jitdump *d, const uint8_t *r, uint32_t size, size_t have,
		fr_jitdump_code_cb cb, void *ctx)
{
	uint64_t addr = fr_get64(r + REC_HDR + 16), csize = fr_get64(r + REC_HDR + 24);
	size_t room = size - REC_HDR - LOAD_FIXED, len;   /* the code bytes after the name: not read */
	const uint8_t *name = r + REC_HDR + LOAD_FIXED, *nul;

	if (room > have - REC_HDR - LOAD_FIXED)
		room = have - REC_HDR - LOAD_FIXED;   /* the name ends in buf (the caller saw) */
	if (room > FR_JITDUMP_NAME_MAX + 1)
		room = FR_JITDUMP_NAME_MAX + 1;
	nul = memchr(name, '\0', room);
	len = nul ? (size_t)(nul - name) : 0;
	if (!nul || !len || !csize || csize > UINT64_MAX - addr) {
		d->skipped++;
		return 0;
	}
	d->loads++;
	return emit(d, addr, csize, (const char *)name, len, cb, ctx);
}

/* A move: the code loaded at the old address, now at the new one. */
static int move(struct fr_jitdump *d, const uint8_t *r, fr_jitdump_code_cb cb, void *ctx)
{
	uint64_t from = fr_get64(r + REC_HDR + 16), to = fr_get64(r + REC_HDR + 24);
	uint64_t csize = fr_get64(r + REC_HDR + 32);
	const struct jd_code *c = code_at(d, from);

	if (!csize || csize > UINT64_MAX - to) {
		d->skipped++;
		return 0;
	}
	if (!c)
		return 0;   /* code the dump never loaded (or was left out): nothing to name */
	d->moves++;
	return emit(d, to, csize, c->name, c->len, cb, ctx);
}

static int header(struct fr_jitdump *d, const uint8_t *buf, size_t len, uint64_t avail,
		  uint64_t *pos)
{
	uint32_t hsize;

	if (len < FILE_HDR)
		return 0;   /* not all there yet */
	hsize = fr_get32(buf + 8);
	if (fr_get32(buf) != FR_JITDUMP_MAGIC || fr_get32(buf + 4) != FR_JITDUMP_VERSION ||
	    hsize < FILE_HDR || hsize > FILE_HDR_MAX) {
		d->refused = true;
		return -EINVAL;
	}
	if (hsize > avail)
		return 0;
	d->header = true;
	*pos = hsize;
	return 0;
}

int fr_jitdump__parse(struct fr_jitdump *d, const uint8_t *buf, size_t len, uint64_t avail,
		      fr_jitdump_code_cb cb, void *ctx)
{
	uint64_t pos = 0;
	int err = 0;

	if (d->refused)
		return -EINVAL;
	if (len > avail)
		len = (size_t)avail;
	if (!d->header && ((err = header(d, buf, len, avail, &pos)) || !d->header))
		return err;
	d->tail = 0;
	while (!d->capped && !err) {
		const uint8_t *r = buf + pos;
		uint32_t id, size;
		size_t need = REC_HDR;

		if (avail - pos < REC_HDR) {
			d->tail = avail - pos;
			break;
		}
		if (pos >= len || len - pos < REC_HDR)
			break;   /* the record's start is not in buf: read again from it */
		id = fr_get32(r);
		size = fr_get32(r + 4);
		if (size < REC_HDR) {   /* the framing is lost: nothing after it can be found */
			d->refused = true;
			err = -EINVAL;
			break;
		}
		if (size > avail - pos) {
			d->tail = avail - pos;
			break;
		}
		if (id == FR_JIT_CODE_LOAD)
			need = size < REC_HDR + LOAD_FIXED + FR_JITDUMP_NAME_MAX + 1 ? size
				: REC_HDR + LOAD_FIXED + FR_JITDUMP_NAME_MAX + 1;
		else if (id == FR_JIT_CODE_MOVE)
			need = size < REC_HDR + MOVE_FIXED ? size : REC_HDR + MOVE_FIXED;
		/* a load whose name ends in buf needs no more of it */
		if (need > len - pos && !(id == FR_JIT_CODE_LOAD && len - pos > REC_HDR + LOAD_FIXED &&
					  memchr(r + REC_HDR + LOAD_FIXED, '\0',
						 len - pos - REC_HDR - LOAD_FIXED)))
			break;
		if (id == FR_JIT_CODE_LOAD && size > REC_HDR + LOAD_FIXED)
			err = load(d, r, size, len - pos, cb, ctx);
		else if (id == FR_JIT_CODE_MOVE && size >= REC_HDR + MOVE_FIXED)
			err = move(d, r, cb, ctx);
		else if (id == FR_JIT_CODE_LOAD || id == FR_JIT_CODE_MOVE || id > FR_JIT_CODE_UNWINDING_INFO)
			d->skipped++;   /* too short for its kind, or a kind unknown */
		/* debug info, close, unwinding info: nothing of them is kept */
		pos += size;
	}
	d->off += pos;
	return err;
}

int fr_jitdump__read(struct fr_jitdump *d, int fd, uid_t uid, fr_jitdump_code_cb cb, void *ctx)
{
	struct stat sb;
	uint8_t *buf;
	uint64_t size;
	int err = 0;

	if (fstat(fd, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode) || (sb.st_uid != uid && sb.st_uid != 0))
		return -EPERM;
	/* another file, or cut short: read again from its start */
	if (d->ino && (d->ino != sb.st_ino || d->dev != sb.st_dev || (uint64_t)sb.st_size < d->off))
		fr_jitdump__restart(d);
	d->dev = sb.st_dev;
	d->ino = sb.st_ino;
	size = (uint64_t)sb.st_size;
	if (size > FR_JITDUMP_FILE_MAX) {
		size = FR_JITDUMP_FILE_MAX;
		d->capped = true;
	}
	if (d->refused || d->off >= size)
		return d->refused ? -EINVAL : 0;
	if (!(buf = malloc(READ_BUF)))
		return -ENOMEM;
	while (!err && !d->refused && d->off < size) {
		uint64_t before = d->off, avail = size - d->off;
		size_t want = avail < READ_BUF ? (size_t)avail : READ_BUF, got = 0;

		while (got < want) {
			ssize_t n = pread(fd, buf + got, want - got, (off_t)(d->off + got));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got < want)   /* cut short while read: take what is there */
			avail = got;
		err = fr_jitdump__parse(d, buf, got, avail, cb, ctx);
		if (d->off == before || d->capped)
			break;   /* a record not whole yet: the next read goes on */
	}
	free(buf);
	return err;
}

bool fr_jitdump__is_dump_name(const char *path)
{
	const char *base = strrchr(path, '/'), *p;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4))
		return false;
	for (p = base + 4; *p >= '0' && *p <= '9'; p++)
		;
	return p > base + 4 && !strcmp(p, ".dump");
}
