/* symbolize/kallsyms.c: kernel symbols (see kallsyms.h): loads /proc/kallsyms
 * and /proc/modules at record start, marks the symbols samples hit, writes
 * them as the KSYMS blob (doc/report.md), and looks addresses up at report.
 */
#include "config.h"
#include "base/grow.h"
#include "symbolize/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSYMS_MAGIC 0x534b5246u   /* "FRKS" */
#define KSYMS_VERSION 1u
#define MOD_NONE 0xffffu          /* the kernel image */
#define SIZE_CAP (1u << 20)       /* no kernel function is larger than 1 MiB */
#define MAX_MODS 0xfff0u

struct ksym {
	uint64_t addr;
	uint32_t size;
	uint32_t name;     /* offset in names */
	uint16_t mod;      /* index in mods, or MOD_NONE */
	uint16_t pad;
	uint32_t order;    /* position in the source, for a stable sort */
};

struct kmod {
	char *name;
	uint64_t start, size;   /* 0, 0 when unknown */
};

struct fr_kallsyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct kmod *mods;
	size_t nmods, mods_cap;
	uint64_t *noted;   /* record side: one bit per symbol */
	bool sticky;       /* serialize leaves the notes set (fr_kallsyms__sticky) */
};

void fr_kallsyms__delete(struct fr_kallsyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->nmods; i++)
		free(ks->mods[i].name);
	free(ks->mods);
	free(ks->syms);
	free(ks->names);
	free(ks->noted);
	free(ks);
}

static int read_all(const char *path, char **out, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		ssize_t r;

		/* room for a byte more and the terminating zero */
		if (fr_grow(&buf, &cap, n + 2, 1, (size_t)1 << 20)) {
			err = -ENOMEM;
			goto out;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits up to a non-hex char; NULL when there are none or too many. */
static const char *parse_hex(const char *p, uint64_t *v)
{
	const char *s = p;
	int d;

	*v = 0;
	while ((d = hexval(*p)) >= 0) {
		if (p - s >= 16)
			return NULL;
		*v = (*v << 4) | (uint64_t)d;
		p++;
	}
	return p == s ? NULL : p;
}

static int mod_index(struct fr_kallsyms *ks, const char *name, size_t len, uint16_t *idx)
{
	for (size_t i = ks->nmods; i-- > 0;) {
		if (strlen(ks->mods[i].name) == len && !memcmp(ks->mods[i].name, name, len)) {
			*idx = (uint16_t)i;
			return 0;
		}
	}
	if (ks->nmods >= MAX_MODS)
		return -E2BIG;
	if (fr_grow(&ks->mods, &ks->mods_cap, ks->nmods + 1, sizeof(*ks->mods), 2))
		return -ENOMEM;
	ks->mods[ks->nmods].name = strndup(name, len);
	if (!ks->mods[ks->nmods].name)
		return -ENOMEM;
	ks->mods[ks->nmods].start = ks->mods[ks->nmods].size = 0;
	*idx = (uint16_t)ks->nmods++;
	return 0;
}

static int add_sym(struct fr_kallsyms *ks, uint64_t addr, uint32_t size, uint32_t name,
		   uint16_t mod)
{
	if (fr_grow(&ks->syms, &ks->cap, ks->n + 1, sizeof(*ks->syms), 4096))
		return -ENOMEM;
	ks->syms[ks->n] = (struct ksym){ addr, size, name, mod, 0, (uint32_t)ks->n };
	ks->n++;
	return 0;
}

/* One /proc/kallsyms line: "ffffffff81000000 T _stext\t[mod]". Text symbols
 * only (t, T, w, W, as perf keeps them). Names stay in the text buffer. */
static int parse_kallsyms_line(struct fr_kallsyms *ks, char *line, char *end)
{
	uint64_t addr;
	const char *p = parse_hex(line, &addr);
	char type, *name, *tab;
	uint16_t mod = MOD_NONE;
	int err;

	if (!p || p + 3 > end || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	if (!addr)
		return 0;
	name = (char *)p + 3;
	tab = memchr(name, '\t', (size_t)(end - name));
	if (tab) {
		char *mb = tab + 1;

		*tab = '\0';
		if (mb < end && *mb == '[' && end[-1] == ']') {
			err = mod_index(ks, mb + 1, (size_t)(end - mb - 2), &mod);
			if (err)
				return err;
		}
	} else {
		*end = '\0';
	}
	if (!*name || strlen(name) > 0xffff)
		return 0;
	return add_sym(ks, addr, 0, (uint32_t)(name - ks->names), mod);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sort by address, keep the first of aliases, and give each symbol the
 * distance to the next as its size (capped; a module ends at its range). */
static void finish_table(struct fr_kallsyms *ks, bool compute_sizes)
{
	size_t out = 0;
	bool sorted = true;

	for (size_t i = 1; i < ks->n && sorted; i++)
		sorted = cmp_sym(&ks->syms[i - 1], &ks->syms[i]) <= 0;
	if (!sorted)
		qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_sym);
	for (size_t i = 0; i < ks->n; i++) {
		if (out && ks->syms[out - 1].addr == ks->syms[i].addr)
			continue;
		ks->syms[out++] = ks->syms[i];
	}
	ks->n = out;
	for (size_t i = 0; i < ks->n; i++)
		ks->syms[i].order = (uint32_t)i;
	if (!compute_sizes)
		return;
	for (size_t i = 0; i < ks->n; i++) {
		struct ksym *s = &ks->syms[i];
		uint64_t size = i + 1 < ks->n ? ks->syms[i + 1].addr - s->addr : 4096;

		if (s->mod != MOD_NONE && ks->mods[s->mod].size) {
			const struct kmod *m = &ks->mods[s->mod];

			if (s->addr >= m->start && s->addr < m->start + m->size &&
			    m->start + m->size - s->addr < size)
				size = m->start + m->size - s->addr;
		}
		s->size = (uint32_t)(size > SIZE_CAP ? SIZE_CAP : size);
	}
}

/* "/proc/modules": "ext4 1036288 1 - Live 0xffffffffc0a3e000" */
static void load_modules(struct fr_kallsyms *ks, const char *path)
{
	char *text = NULL, *line, *save = NULL;
	size_t len;

	if (read_all(path, &text, &len))
		return;   /* no modules: a kernel without them, or no /proc/modules */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *endp, *last;
		unsigned long long size;
		uint64_t start;
		uint16_t idx;

		if (!sp)
			continue;
		errno = 0;
		size = strtoull(sp + 1, &endp, 10);
		last = strrchr(line, ' ');
		if (errno || endp == sp + 1 || *endp != ' ' || !last || strncmp(last + 1, "0x", 2) ||
		    !parse_hex(last + 3, &start))
			continue;
		if (mod_index(ks, line, (size_t)(sp - line), &idx))
			break;
		ks->mods[idx].start = start;
		ks->mods[idx].size = start ? size : 0;
	}
	free(text);
}

int fr_kallsyms__load(const char *kallsyms, const char *modules, struct fr_kallsyms **out)
{
	struct fr_kallsyms *ks = calloc(1, sizeof(*ks));
	char *p, *end;
	int err;

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	err = read_all(kallsyms ? kallsyms : "/proc/kallsyms", &ks->names, &ks->names_len);
	if (err)
		goto fail;
	ks->names_cap = ks->names_len + 1;
	load_modules(ks, modules ? modules : "/proc/modules");
	p = ks->names;
	end = ks->names + ks->names_len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		*nl = '\0';
		err = parse_kallsyms_line(ks, p, nl);
		if (err)
			goto fail;
		p = nl + 1;
	}
	if (!ks->n) {
		err = -EACCES;   /* kptr_restrict hides the addresses */
		goto fail;
	}
	finish_table(ks, true);
	ks->noted = calloc((ks->n + 63) / 64, sizeof(uint64_t));
	if (!ks->noted) {
		err = -ENOMEM;
		goto fail;
	}
	*out = ks;
	return 0;
fail:
	fr_kallsyms__delete(ks);
	return err;
}

/* The symbol containing addr, or -1. */
static long find(const struct fr_kallsyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	return addr - ks->syms[lo].addr < ks->syms[lo].size ? (long)lo : -1;
}

void fr_kallsyms__sticky(struct fr_kallsyms *ks)
{
	if (ks)
		ks->sticky = true;
}

static void mark(struct fr_kallsyms *ks, long i)
{
	uint64_t *w = &ks->noted[(size_t)i / 64], bit = 1ull << ((size_t)i % 64);

	/* safe from several threads; the load keeps a set bit's line shared */
	if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

void fr_kallsyms__note(struct fr_kallsyms *ks, uint64_t addr)
{
	long i;

	if (!ks || !ks->noted)
		return;
	i = find(ks, addr);
	if (i >= 0)
		mark(ks, i);
	/* a return address at a symbol's start, or past the symbol before:
	 * the call was that symbol's last instruction (a noreturn call, as
	 * x86_64_start_reservations ends), and a caller is looked up at
	 * address - 1 (fr_symbolizer__kernel): its symbol is kept too */
	if ((i < 0 || ks->syms[i].addr == addr) && (i = find(ks, addr - 1)) >= 0)
		mark(ks, i);
}

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

int fr_kallsyms__serialize(struct fr_kallsyms *ks, void **data, size_t *len)
{
	size_t words = ks && ks->noted ? (ks->n + 63) / 64 : 0, size = 16;
	uint32_t nsyms = 0, nmods = ks ? (uint32_t)ks->nmods : 0, v;
	uint64_t *noted;
	uint8_t *buf, *p;

	if (!ks || !ks->noted)
		return -EINVAL;
	noted = malloc(words * sizeof(*noted) + 1);
	if (!noted)
		return -ENOMEM;
	/* take the notes (and clear them) word by word: threads may note meanwhile */
	for (size_t w = 0; w < words; w++)
		noted[w] = ks->sticky ? __atomic_load_n(&ks->noted[w], __ATOMIC_RELAXED)
				      : __atomic_exchange_n(&ks->noted[w], 0, __ATOMIC_RELAXED);
	for (size_t i = 0; i < ks->nmods; i++)
		size += 18 + strlen(ks->mods[i].name);
	for (size_t w = 0; w < words; w++) {
		for (uint64_t bits = noted[w]; bits; bits &= bits - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);

			size += 16 + strlen(ks->names + ks->syms[i].name);
			nsyms++;
		}
	}
	buf = p = malloc(size);
	if (!buf) {
		for (size_t w = 0; w < words; w++)   /* give the notes back */
			__atomic_fetch_or(&ks->noted[w], noted[w], __ATOMIC_RELAXED);
		free(noted);
		return -ENOMEM;
	}
	v = KSYMS_MAGIC;
	p = put(p, &v, 4);
	v = KSYMS_VERSION;
	p = put(p, &v, 4);
	p = put(p, &nmods, 4);
	p = put(p, &nsyms, 4);
	for (size_t i = 0; i < ks->nmods; i++) {
		uint16_t nl = (uint16_t)strlen(ks->mods[i].name);

		p = put(p, &ks->mods[i].start, 8);
		p = put(p, &ks->mods[i].size, 8);
		p = put(p, &nl, 2);
		p = put(p, ks->mods[i].name, nl);
	}
	for (size_t w = 0; w < words; w++) {
		for (uint64_t bits = noted[w]; bits; bits &= bits - 1) {
			const struct ksym *s = &ks->syms[w * 64 + (size_t)__builtin_ctzll(bits)];
			const char *name = ks->names + s->name;
			uint16_t nl = (uint16_t)strlen(name);

			p = put(p, &s->addr, 8);
			p = put(p, &s->size, 4);
			p = put(p, &s->mod, 2);
			p = put(p, &nl, 2);
			p = put(p, name, nl);
		}
	}
	free(noted);
	*data = buf;
	*len = size;
	return 0;
}

static int names_add(struct fr_kallsyms *ks, const uint8_t *s, size_t n, uint32_t *off)
{
	if (ks->names_len + n + 1 > UINT32_MAX)
		return -E2BIG;
	if (fr_grow(&ks->names, &ks->names_cap, ks->names_len + n + 1, 1, 65536))
		return -ENOMEM;
	*off = (uint32_t)ks->names_len;
	memcpy(ks->names + ks->names_len, s, n);
	ks->names[ks->names_len + n] = '\0';
	ks->names_len += n + 1;
	return 0;
}

/* Read n bytes at *p within [*p, end). */
static int take(const uint8_t **p, const uint8_t *end, void *v, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -EBADMSG;
	memcpy(v, *p, n);
	*p += n;
	return 0;
}

static int parse_modules(struct fr_kallsyms *ks, const uint8_t **p, const uint8_t *end,
			 uint32_t nmods, uint16_t *remap)
{
	for (uint32_t i = 0; i < nmods; i++) {
		uint64_t start, size;
		uint16_t nl;
		int err;

		if (take(p, end, &start, 8) || take(p, end, &size, 8) || take(p, end, &nl, 2) ||
		    !nl || (size_t)(end - *p) < nl || memchr(*p, '\0', nl))
			return -EBADMSG;
		err = mod_index(ks, (const char *)*p, nl, &remap[i]);
		if (err)
			return err;
		if (start && !ks->mods[remap[i]].start) {
			ks->mods[remap[i]].start = start;
			ks->mods[remap[i]].size = size;
		}
		*p += nl;
	}
	return 0;
}

int fr_kallsyms__parse(const void *data, size_t len, struct fr_kallsyms **inout)
{
	const uint8_t *p = data, *end = p + len;
	uint32_t hdr[4];
	uint16_t *remap = NULL;
	struct fr_kallsyms *ks = *inout;
	uint64_t prev_end = 0;
	int err;

	if (take(&p, end, hdr, sizeof(hdr)) || hdr[0] != KSYMS_MAGIC)
		return -EBADMSG;
	if (hdr[1] != KSYMS_VERSION)
		return -EPROTONOSUPPORT;
	if (hdr[2] > MAX_MODS || hdr[3] > len / 16)
		return -EBADMSG;
	if (!ks && !(ks = calloc(1, sizeof(*ks))))
		return -ENOMEM;
	remap = calloc(hdr[2] + 1, sizeof(*remap));
	err = remap ? parse_modules(ks, &p, end, hdr[2], remap) : -ENOMEM;
	for (uint32_t i = 0; !err && i < hdr[3]; i++) {
		uint64_t addr;
		uint32_t size, name;
		uint16_t mod, nl;

		if (take(&p, end, &addr, 8) || take(&p, end, &size, 4) || take(&p, end, &mod, 2) ||
		    take(&p, end, &nl, 2) || !nl || (size_t)(end - p) < nl || memchr(p, '\0', nl) ||
		    (mod != MOD_NONE && mod >= hdr[2]) || addr < prev_end || addr + size < addr) {
			err = -EBADMSG;
			break;
		}
		prev_end = addr + size;
		err = names_add(ks, p, nl, &name);
		if (!err)
			err = add_sym(ks, addr, size, name, mod == MOD_NONE ? MOD_NONE : remap[mod]);
		p += nl;
	}
	if (!err && p != end)
		err = -EBADMSG;
	free(remap);
	if (err) {
		if (!*inout)
			fr_kallsyms__delete(ks);
		return err;
	}
	finish_table(ks, false);
	*inout = ks;
	return 0;
}

const char *fr_kallsyms__lookup(const struct fr_kallsyms *ks, uint64_t addr, uint64_t *off,
				const char **module)
{
	long i = ks ? find(ks, addr) : -1;

	if (module)
		*module = NULL;
	if (i < 0) {
		for (size_t m = 0; ks && module && m < ks->nmods; m++)
			if (ks->mods[m].size && addr - ks->mods[m].start < ks->mods[m].size)
				*module = ks->mods[m].name;
		return NULL;
	}
	if (off)
		*off = addr - ks->syms[i].addr;
	if (module && ks->syms[i].mod != MOD_NONE)
		*module = ks->mods[ks->syms[i].mod].name;
	return ks->names + ks->syms[i].name;
}
