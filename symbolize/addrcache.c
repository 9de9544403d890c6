/* symbolize/addrcache.c: the frames a report found at the addresses of an
 * object, kept in the build-id cache by build id (CACHE/.build-id/xx/
 * yyyy.addrsF, doc/format.md §11), so the next report of that object answers
 * them without libdw (which parses a big object's whole .debug_aranges to
 * find the unit of one address). Files are checked as hostile input.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "symbolize/internal.h"
#include "symbolize/strpool.h"

#define AC_MAGIC "FRADDRS1"
#define AC_VERSION 1u
#define AC_FILE_MAX (64u << 20)        /* a bigger file is not read */
#define AC_ENTRIES_MAX (1u << 20)      /* nor written */
#define AC_FRAMES_MAX 64u              /* frames of one address */
#define AC_STRING_MAX 65535u
#define AC_IDENT_MAX 8192u

struct ac_entry {
	uint64_t pc;
	uint32_t first, n;                 /* frames[first .. first + n) */
};

struct fr_addrcache {
	unsigned char id[64];
	int idlen;
	uint32_t flags;
	char *ident;                       /* what the answers were made from */
	struct fr_strpool *strs;           /* names and files, copied */
	struct ac_entry *e;
	size_t n, cap, nsorted;            /* e[0 .. nsorted) sorted by pc, read from the file */
	struct fr_raw_frame *f;
	size_t nf, fcap;
	bool dirty;                        /* answers added since */
};

int fr_addrcache__new(const unsigned char *id, int idlen, uint32_t flags, const char *ident,
		      struct fr_addrcache **out)
{
	struct fr_addrcache *ac;

	*out = NULL;
	if (idlen <= 0 || (size_t)idlen > sizeof(ac->id) || !ident || strlen(ident) > AC_IDENT_MAX)
		return -EINVAL;
	ac = calloc(1, sizeof(*ac));
	if (!ac)
		return -ENOMEM;
	memcpy(ac->id, id, (size_t)idlen);
	ac->idlen = idlen;
	ac->flags = flags;
	ac->ident = strdup(ident);
	ac->strs = fr_strpool__new();
	if (!ac->ident || !ac->strs) {
		fr_addrcache__delete(ac);
		return -ENOMEM;
	}
	*out = ac;
	return 0;
}

void fr_addrcache__delete(struct fr_addrcache *ac)
{
	if (!ac)
		return;
	free(ac->ident);
	fr_strpool__delete(ac->strs);
	free(ac->e);
	free(ac->f);
	free(ac);
}

static int add_entry(struct fr_addrcache *ac, uint64_t pc, size_t nframes)
{
	if (ac->n >= AC_ENTRIES_MAX ||
	    fr_grow(&ac->e, &ac->cap, ac->n + 1, sizeof(*ac->e), 256) ||
	    fr_grow(&ac->f, &ac->fcap, ac->nf + nframes, sizeof(*ac->f), 1024))
		return -ENOMEM;
	ac->e[ac->n++] = (struct ac_entry){ pc, (uint32_t)ac->nf, (uint32_t)nframes };
	return 0;
}

int fr_addrcache__add(struct fr_addrcache *ac, uint64_t pc, const struct fr_raw_frame *f, int n)
{
	int err;

	if (n <= 0 || (unsigned)n > AC_FRAMES_MAX)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if ((f[i].name && strlen(f[i].name) > AC_STRING_MAX) ||
		    (f[i].file && strlen(f[i].file) > AC_STRING_MAX))
			return -EINVAL;
	err = add_entry(ac, pc, (size_t)n);
	if (err)
		return err;
	for (int i = 0; i < n; i++) {
		struct fr_raw_frame *c = &ac->f[ac->nf++];

		*c = f[i];
		c->name = f[i].name ? fr_strpool__str(ac->strs, f[i].name) : NULL;
		c->file = f[i].file ? fr_strpool__str(ac->strs, f[i].file) : NULL;
		if ((f[i].name && !c->name) || (f[i].file && !c->file))
			return -ENOMEM;
	}
	ac->dirty = true;
	return 0;
}

int fr_addrcache__get(const struct fr_addrcache *ac, uint64_t pc, struct fr_raw_frame *out,
		      size_t max)
{
	size_t lo = 0, hi = ac->nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ac->e[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ac->nsorted || ac->e[lo].pc != pc || ac->e[lo].n > max)
		return 0;
	memcpy(out, &ac->f[ac->e[lo].first], ac->e[lo].n * sizeof(*out));
	return (int)ac->e[lo].n;
}

/* ---- the file -------------------------------------------------------------
 * "FRADDRS1", u32 version, u32 flags, u32 id length, id, u32 ident length,
 * ident, u32 strings, u32 entries; each string: u16 length, bytes (no NUL);
 * each entry: u64 pc (ascending, distinct), u8 frames (1..64), then per
 * frame: u32 name, u32 file (string index + 1, 0: none), u32 line, u8
 * inlined (0/1), u64 off. Little-endian, packed. */

struct rd {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static const uint8_t *rd_take(struct rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if (r->bad || r->left < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return p;
}

static uint64_t rd_u(struct rd *r, size_t n)
{
	const uint8_t *p = rd_take(r, n);
	uint64_t v = 0;

	for (size_t i = 0; p && i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int fr_addrcache__parse(struct fr_addrcache *ac, const void *buf, size_t len)
{
	struct rd r = { buf, len, false };
	const uint8_t *magic = rd_take(&r, 8), *id, *ident;
	uint32_t version, flags, idlen, identlen, nstr, nent;
	const char **strs = NULL;
	int err = -EBADMSG;

	if (ac->n || len > AC_FILE_MAX)
		return -EINVAL;
	if (!magic || memcmp(magic, AC_MAGIC, 8))
		return -EBADMSG;
	version = (uint32_t)rd_u(&r, 4);
	flags = (uint32_t)rd_u(&r, 4);
	idlen = (uint32_t)rd_u(&r, 4);
	id = idlen <= sizeof(ac->id) ? rd_take(&r, idlen) : NULL;
	identlen = (uint32_t)rd_u(&r, 4);
	ident = identlen <= AC_IDENT_MAX ? rd_take(&r, identlen) : NULL;
	nstr = (uint32_t)rd_u(&r, 4);
	nent = (uint32_t)rd_u(&r, 4);
	if (r.bad || version != AC_VERSION || !id || !ident)
		return -EBADMSG;
	/* another object, other options, other debuginfo: not ours to use */
	if (flags != ac->flags || idlen != (uint32_t)ac->idlen || memcmp(id, ac->id, idlen) ||
	    identlen != strlen(ac->ident) || memcmp(ident, ac->ident, identlen))
		return -ESTALE;
	/* every string takes 2 bytes and every entry 10 at least */
	if (nstr > r.left / 2 || nent > AC_ENTRIES_MAX || nent > r.left / 10)
		return -EBADMSG;
	strs = calloc(nstr ? nstr : 1, sizeof(*strs));
	if (!strs)
		return -ENOMEM;
	for (uint32_t i = 0; i < nstr; i++) {
		uint32_t sl = (uint32_t)rd_u(&r, 2);
		const uint8_t *s = rd_take(&r, sl);

		if (!s || memchr(s, '\0', sl))
			goto out;
		if (!(strs[i] = fr_strpool__intern(ac->strs, (const char *)s, sl))) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (uint32_t i = 0; i < nent; i++) {
		uint64_t pc = rd_u(&r, 8);
		uint32_t nf = (uint32_t)rd_u(&r, 1);

		if (r.bad || nf == 0 || nf > AC_FRAMES_MAX || (i && pc <= ac->e[i - 1].pc))
			goto out;
		if (add_entry(ac, pc, nf)) {
			err = -ENOMEM;
			goto out;
		}
		for (uint32_t k = 0; k < nf; k++) {
			uint32_t name = (uint32_t)rd_u(&r, 4), file = (uint32_t)rd_u(&r, 4);
			uint32_t line = (uint32_t)rd_u(&r, 4), inl = (uint32_t)rd_u(&r, 1);
			uint64_t off = rd_u(&r, 8);

			if (r.bad || name > nstr || file > nstr || inl > 1)
				goto out;
			ac->f[ac->nf++] = (struct fr_raw_frame){ name ? strs[name - 1] : NULL,
								 file ? strs[file - 1] : NULL, line,
								 inl == 1, off };
		}
	}
	if (r.left)
		goto out;   /* trailing bytes */
	ac->nsorted = ac->n;
	err = 0;
out:
	if (err) {
		ac->n = ac->nf = ac->nsorted = 0;
	}
	free(strs);
	return err;
}

struct wr {
	uint8_t *p;
	size_t n, cap;
	int err;
};

static void wr_put(struct wr *w, const void *data, size_t n)
{
	if (w->err)
		return;
	if (fr_grow(&w->p, &w->cap, w->n + n, 1, 4096)) {
		w->err = -ENOMEM;
		return;
	}
	memcpy(w->p + w->n, data, n);
	w->n += n;
}

static void wr_u(struct wr *w, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	wr_put(w, b, n);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const char *const *)a, y = (uintptr_t)*(const char *const *)b;

	return x < y ? -1 : x > y;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ac_entry *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;   /* the older answer first */
}

/* 1 + the index of s (interned) in the sorted list, 0 for NULL. */
static uint32_t str_index(const char **v, size_t n, const char *s)
{
	const char **hit;

	if (!s)
		return 0;
	hit = n ? bsearch(&s, v, n, sizeof(*v), cmp_ptr) : NULL;
	return hit ? (uint32_t)(hit - v) + 1 : 0;
}

int fr_addrcache__serialize(struct fr_addrcache *ac, void **buf, size_t *len)
{
	struct wr w = { 0 };
	const char **strs = calloc(2 * ac->nf + 1, sizeof(*strs));
	size_t ns = 0, ne = 0;

	*buf = NULL;
	*len = 0;
	if (!strs)
		return -ENOMEM;
	if (ac->n)
		qsort(ac->e, ac->n, sizeof(*ac->e), cmp_entry);
	for (size_t i = 0; i < ac->n; i++)   /* one answer per pc: the first */
		if (!ne || ac->e[ne - 1].pc != ac->e[i].pc)
			ac->e[ne++] = ac->e[i];
	ac->n = ac->nsorted = ne;
	for (size_t i = 0; i < ac->nf; i++) {
		if (ac->f[i].name)
			strs[ns++] = ac->f[i].name;
		if (ac->f[i].file)
			strs[ns++] = ac->f[i].file;
	}
	if (ns)
		qsort(strs, ns, sizeof(*strs), cmp_ptr);
	{
		size_t u = 0;

		for (size_t i = 0; i < ns; i++)
			if (!u || strs[u - 1] != strs[i])
				strs[u++] = strs[i];
		ns = u;
	}
	wr_put(&w, AC_MAGIC, 8);
	wr_u(&w, AC_VERSION, 4);
	wr_u(&w, ac->flags, 4);
	wr_u(&w, (uint64_t)ac->idlen, 4);
	wr_put(&w, ac->id, (size_t)ac->idlen);
	wr_u(&w, strlen(ac->ident), 4);
	wr_put(&w, ac->ident, strlen(ac->ident));
	wr_u(&w, ns, 4);
	wr_u(&w, ac->n, 4);
	for (size_t i = 0; i < ns; i++) {
		wr_u(&w, strlen(strs[i]), 2);
		wr_put(&w, strs[i], strlen(strs[i]));
	}
	for (size_t i = 0; i < ac->n; i++) {
		wr_u(&w, ac->e[i].pc, 8);
		wr_u(&w, ac->e[i].n, 1);
		for (uint32_t k = 0; k < ac->e[i].n; k++) {
			const struct fr_raw_frame *f = &ac->f[ac->e[i].first + k];

			wr_u(&w, str_index(strs, ns, f->name), 4);
			wr_u(&w, str_index(strs, ns, f->file), 4);
			wr_u(&w, f->line, 4);
			wr_u(&w, f->inlined ? 1 : 0, 1);
			wr_u(&w, f->off, 8);
		}
	}
	free(strs);
	if (w.err) {
		free(w.p);
		return w.err;
	}
	*buf = w.p;
	*len = w.n;
	return 0;
}

/* CACHE/.build-id/xx/yyyy.addrsF */
static int file_path(const struct fr_addrcache *ac, const char *cache, char *path, size_t len)
{
	char suffix[16];

	snprintf(suffix, sizeof(suffix), ".addrs%u", (unsigned)ac->flags);
	return fr_debugcache__path(path, len, cache, ac->id, ac->idlen, suffix);
}

int fr_addrcache__load(struct fr_addrcache *ac, const char *cache)
{
	char path[PATH_MAX];
	struct stat st;
	uint8_t *buf;
	ssize_t got;
	int fd, err = file_path(ac, cache, path, sizeof(path));

	if (err)
		return err;
	fd = fr_debugcache__open_trusted(path, &st);
	if (fd < 0)
		return fd;
	if (st.st_size > AC_FILE_MAX) {
		close(fd);
		return -EPERM;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	got = pread(fd, buf, (size_t)st.st_size + 1, 0);
	close(fd);
	err = got != st.st_size ? -EBADMSG : fr_addrcache__parse(ac, buf, (size_t)got);
	free(buf);
	return err;
}

int fr_addrcache__save(struct fr_addrcache *ac, const char *cache)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	void *buf = NULL;
	size_t len = 0, done = 0;
	int fd, err;

	if (!ac->dirty)
		return 0;
	err = file_path(ac, cache, path, sizeof(path));
	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	err = fr_debugcache__mkdirs(path);
	if (!err)
		err = fr_addrcache__serialize(ac, &buf, &len);
	if (err)
		return err;
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while (done < len && !err) {
		ssize_t n = write(fd, (const uint8_t *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	free(buf);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	else
		ac->dirty = false;
	return err;
}
