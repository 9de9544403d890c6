/* src/report/hist.c: the text report's histogram: samples grouped by any
 * subset of comm, pid, tid, cpu, dso, sym, srcline, heaviest first, with the
 * call paths that led to each entry (callee first, as perf report
 * --no-children), or with inclusive Children and Self weights (--children).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/report.h"
#include "symbolize/strpool.h"

#define NODE_BLOCK 4096
#define PREFIX_MAX 8192

static const char *const key_names[FR_NR_KEYS] = { "comm", "pid", "dso", "sym", "srcline",
						   "cpu", "tid" };
static const char *const key_headers[FR_NR_KEYS] = { "Command", "Pid", "Shared Object",
						     "Symbol", "Source:Line", "CPU", "Tid" };

struct cnode {
	const struct fr_sym *sym;
	uint64_t weight;
	struct cnode *child, *next;
};

struct hentry {
	uintptr_t key[FR_NR_KEYS];       /* by position in o.keys; 0: none */
	const struct fr_sym *sym;        /* for [k]/[.] */
	uint64_t samples, weight;        /* self */
	uint64_t children;               /* --children: samples with the function on the stack */
	struct cnode root;               /* call paths, leaf first */
	char *text[FR_NR_KEYS];          /* filled when printing */
};

struct node_block {
	struct node_block *next;
	size_t used;
	struct cnode nodes[NODE_BLOCK];
};

/* A sample seen again (the resolver's same stack_id: the same frames, and
 * the same name, process, thread and CPU) lands in the same entry, call path
 * nodes and --children entries as the one before it: they are remembered
 * here, and the samples' weight is added to them in one go when the slot is
 * taken by another stack or before printing. */
#define MEMO_SLOTS 4096
#define MEMO_MAX_FRAMES 256
#define MEMO_AFTER 4096          /* samples before the table (256 KiB) pays off */

struct memo {
	uint64_t stack_id;               /* 0: empty */
	const char *comm;
	uint32_t pid, tid, cpu;
	uint32_t npath, nkids;           /* cnodes below e->root, then hentries */
	struct hentry *e;
	void **ptrs;                     /* npath struct cnode *, then nkids struct hentry * */
	size_t cap;
	uint64_t samples, weight;        /* not yet added */
};

struct fr_hist {
	struct fr_hist_opts o;
	struct memo *memo;               /* MEMO_SLOTS, on first use */
	const struct fr_sym **csyms;     /* fr_hist__merge: one symbol per (name, dso, flags) */
	size_t ncsyms, csyms_cap;
	struct fr_hmap csyms_index;
	struct hentry **entries;
	size_t n, cap;
	struct fr_hmap index;            /* key -> entries[] */
	struct fr_strpool *strs;
	struct node_block *blocks;
	uint64_t samples, weight;
};

int fr_hist__parse_keys(const char *spec, struct fr_hist_opts *o)
{
	const char *p = spec;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < FR_NR_KEYS; k++)
			if (strlen(key_names[k]) == len && !strncmp(p, key_names[k], len))
				break;
		if (k == FR_NR_KEYS || o->nr_keys == FR_NR_KEYS)
			return -EINVAL;
		for (int i = 0; i < o->nr_keys; i++)
			if (o->keys[i] == (enum fr_sort_key)k)
				return -EINVAL;
		o->keys[o->nr_keys++] = (enum fr_sort_key)k;
		p += len;
		if (*p == ',' && *++p == '\0')
			return -EINVAL;
	}
	return o->nr_keys ? 0 : -EINVAL;
}

int fr_hist__new(const struct fr_hist_opts *o, struct fr_hist **out)
{
	struct fr_hist *h = calloc(1, sizeof(*h));

	if (!h || !(h->strs = fr_strpool__new())) {
		free(h);
		return -ENOMEM;
	}
	h->o = *o;
	*out = h;
	return 0;
}

void fr_hist__delete(struct fr_hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++) {
		for (int k = 0; k < FR_NR_KEYS; k++)
			free(h->entries[i]->text[k]);
		free(h->entries[i]);
	}
	while (h->blocks) {
		struct node_block *b = h->blocks;

		h->blocks = b->next;
		free(b);
	}
	if (h->memo)
		for (size_t i = 0; i < MEMO_SLOTS; i++)
			free(h->memo[i].ptrs);
	free(h->memo);
	free(h->csyms);
	free(h->entries);
	fr_hmap__exit(&h->index);
	fr_hmap__exit(&h->csyms_index);
	fr_strpool__delete(h->strs);
	free(h);
}

uint64_t fr_hist__samples(const struct fr_hist *h)
{
	return h->samples;
}

static struct hentry *find_entry(struct fr_hist *h, const uintptr_t *key)
{
	uint64_t hash = 0;
	struct fr_hmap_it it;
	struct hentry *e;
	uint32_t i;

	for (int k = 0; k < h->o.nr_keys; k++)
		hash = fr_hash__mix(hash, (uint64_t)key[k]);
	for (bool ok = fr_hmap__first(&h->index, hash, &it, &i); ok;
	     ok = fr_hmap__next(&h->index, &it, &i)) {
		int k = 0;

		e = h->entries[i];
		while (k < h->o.nr_keys && e->key[k] == key[k])
			k++;
		if (k == h->o.nr_keys)
			return e;
	}
	if (h->n >= UINT32_MAX - 1 || fr_grow(&h->entries, &h->cap, h->n + 1, sizeof(*h->entries), 256))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || fr_hmap__add(&h->index, hash, (uint32_t)h->n)) {
		free(e);
		return NULL;
	}
	memcpy(e->key, key, sizeof(e->key[0]) * (size_t)h->o.nr_keys);
	h->entries[h->n++] = e;
	return e;
}

static struct cnode *new_node(struct fr_hist *h, const struct fr_sym *sym)
{
	struct cnode *c;

	if (!h->blocks || h->blocks->used == NODE_BLOCK) {
		struct node_block *b = malloc(sizeof(*b));

		if (!b)
			return NULL;
		b->next = h->blocks;
		b->used = 0;
		h->blocks = b;
	}
	c = &h->blocks->nodes[h->blocks->used++];
	*c = (struct cnode){ sym, 0, NULL, NULL };
	return c;
}

static int add_path(struct fr_hist *h, struct cnode *node, const struct fr_rsample *s,
		    uint64_t w, void **rec)
{
	node->weight += w;
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct fr_sym *sym = s->frames[i].sym;
		struct cnode *c = node->child;

		while (c && c->sym != sym)
			c = c->next;
		if (!c) {
			c = new_node(h, sym);
			if (!c)
				return -ENOMEM;
			c->next = node->child;
			node->child = c;
		}
		c->weight += w;
		node = c;
		if (rec)
			rec[i] = c;
	}
	return 0;
}

static uintptr_t srcline_key(struct fr_hist *h, const struct fr_frame *f)
{
	char buf[512];

	if (f->file && f->line) {
		const char *base = strrchr(f->file, '/');

		snprintf(buf, sizeof(buf), "%s:%u", base ? base + 1 : f->file, f->line);
	} else {
		snprintf(buf, sizeof(buf), "%s[%llx]", f->sym->dso_short,
			 (unsigned long long)(f->sym->kernel ? f->addr : f->vaddr));
	}
	return (uintptr_t)fr_strpool__str(h->strs, buf);
}

/* The key of a sample whose function is frames[fi] (its srcline: frames[si]). */
static int make_key(struct fr_hist *h, const struct fr_rsample *s, const struct fr_sym *sym,
		    const struct fr_frame *line, uintptr_t *key)
{
	memset(key, 0, sizeof(key[0]) * FR_NR_KEYS);
	for (int i = 0; i < h->o.nr_keys; i++) {
		switch (h->o.keys[i]) {
		case FR_KEY_COMM: key[i] = (uintptr_t)s->comm; break;
		case FR_KEY_PID: key[i] = (uintptr_t)s->pid + 1; break;
		case FR_KEY_TID: key[i] = (uintptr_t)s->tid + 1; break;
		case FR_KEY_CPU: key[i] = (uintptr_t)s->cpu + 1; break;
		case FR_KEY_DSO: key[i] = sym ? (uintptr_t)sym->dso : 0; break;
		case FR_KEY_SYM: key[i] = (uintptr_t)sym; break;
		case FR_KEY_SRCLINE:
			key[i] = line ? srcline_key(h, line) : 0;
			if (line && !key[i])
				return -ENOMEM;
			break;
		case FR_NR_KEYS: break;
		}
	}
	return 0;
}

/* --children: each function on the stack (once per sample, inline instances
 * counted with the function they are in) gets the sample's weight. */
static int add_children(struct fr_hist *h, const struct fr_rsample *s, uint64_t w,
			void **rec, uint32_t *nrec)
{
	struct hentry *seen[64];
	size_t nseen = 0;
	uintptr_t key[FR_NR_KEYS];

	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct fr_frame *f = &s->frames[i];
		struct hentry *e;
		size_t j;

		if (f->sym->inlined)
			continue;
		if (make_key(h, s, f->sym, f, key) || !(e = find_entry(h, key)))
			return -ENOMEM;
		if (!e->sym)
			e->sym = f->sym;
		for (j = 0; j < nseen && seen[j] != e; j++)
			;
		if (j < nseen)
			continue;   /* recursion: once per sample */
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = e;
		e->children += w;
		if (rec)
			rec[(*nrec)++] = e;
	}
	return 0;
}

static void memo_flush(struct fr_hist *h, struct memo *m)
{
	struct hentry *e = m->e;
	uint64_t w = m->weight;

	if (!m->samples)
		return;
	e->samples += m->samples;
	e->weight += w;
	if (h->o.callchains) {
		e->root.weight += w;
		for (uint32_t i = 0; i < m->npath; i++)
			((struct cnode *)m->ptrs[i])->weight += w;
	}
	for (uint32_t i = 0; i < m->nkids; i++)
		((struct hentry *)m->ptrs[m->npath + i])->children += w;
	m->samples = m->weight = 0;
}

static void memo_flush_all(struct fr_hist *h)
{
	if (h->memo)
		for (size_t i = 0; i < MEMO_SLOTS; i++)
			memo_flush(h, &h->memo[i]);
}

/* The table's slot for s (the table exists). */
static struct memo *memo_slot(struct fr_hist *h, const struct fr_rsample *s)
{
	uint64_t x = s->stack_id * 0x9e3779b97f4a7c15ull ^ s->tid ^ (uint64_t)s->cpu << 32;

	return &h->memo[(x ^ x >> 29) & (MEMO_SLOTS - 1)];
}

/* The slot for s: its pending weight added, ready to remember s's. NULL
 * when s cannot be remembered. */
static struct memo *memo_take(struct fr_hist *h, const struct fr_rsample *s)
{
	size_t need = 2 * s->nr_frames;   /* path nodes, then at most one entry per frame */
	struct memo *m;

	if (!h->memo && (h->samples < MEMO_AFTER ||
			 !(h->memo = calloc(MEMO_SLOTS, sizeof(*h->memo)))))
		return NULL;
	m = memo_slot(h, s);
	memo_flush(h, m);
	m->stack_id = 0;
	return fr_grow(&m->ptrs, &m->cap, need, sizeof(*m->ptrs), 16) ? NULL : m;
}

static bool memo_hit(struct fr_hist *h, const struct fr_rsample *s, uint64_t w)
{
	struct memo *m;

	if (!h->memo)
		return false;
	m = memo_slot(h, s);
	if (m->stack_id != s->stack_id || m->comm != s->comm || m->pid != s->pid ||
	    m->tid != s->tid || m->cpu != s->cpu)
		return false;
	m->samples++;
	m->weight += w;
	h->samples++;
	h->weight += w;
	return true;
}

int fr_hist__add(struct fr_hist *h, const struct fr_rsample *s)
{
	const struct fr_sym *leaf;
	uint64_t w = h->o.period ? s->period : 1;
	uintptr_t key[FR_NR_KEYS];
	struct memo *m = NULL;
	struct hentry *e;
	int err;

	if (s->stack_id && s->nr_frames && s->nr_frames <= MEMO_MAX_FRAMES) {
		if (memo_hit(h, s, w))
			return 0;
		m = memo_take(h, s);
	}
	leaf = s->nr_frames ? s->frames[fr_leaf_frames(s) - 1].sym : NULL;
	if (make_key(h, s, leaf, s->nr_frames ? &s->frames[0] : NULL, key))
		return -ENOMEM;
	e = find_entry(h, key);
	if (!e)
		return -ENOMEM;
	if (!e->sym)
		e->sym = leaf;
	e->samples++;
	e->weight += w;
	h->samples++;
	h->weight += w;
	if (m)
		m->nkids = 0;
	if (h->o.children) {
		if (!s->nr_frames)
			e->children += w;
		else if ((err = add_children(h, s, w, m ? m->ptrs + s->nr_frames : NULL,
					     m ? &m->nkids : NULL)))
			return err;
	}
	if (h->o.callchains && s->nr_frames &&
	    (err = add_path(h, &e->root, s, w, m ? m->ptrs : NULL)))
		return err;
	if (m) {
		/* the --children entries were put after room for the path */
		uint32_t npath = h->o.callchains ? (uint32_t)s->nr_frames : 0;

		if (!npath && m->nkids)
			memmove(m->ptrs, m->ptrs + s->nr_frames, m->nkids * sizeof(*m->ptrs));
		*m = (struct memo){ s->stack_id, s->comm, s->pid, s->tid, s->cpu, npath,
				    m->nkids, e, m->ptrs, m->cap, 0, 0 };
	}
	return 0;
}

/* ---- merging the histograms of other resolvers (a parallel report) -------
 * Keys are pointers each resolver interns (names, files, symbols): merged
 * here, a string key becomes the string in this histogram's pool and a symbol
 * the first one seen with its name, files and flags, so equal keys of
 * different resolvers meet as one. */

static bool same_sym(const struct fr_sym *a, const struct fr_sym *b)
{
	return a == b || (!strcmp(a->name, b->name) && !strcmp(a->dso, b->dso) &&
			  !strcmp(a->dso_short, b->dso_short) && a->kernel == b->kernel &&
			  a->inlined == b->inlined && a->unknown == b->unknown);
}

static const struct fr_sym *canon_sym(struct fr_hist *h, const struct fr_sym *s)
{
	uint64_t hash;
	struct fr_hmap_it it;
	uint32_t i;

	if (!s)
		return NULL;
	hash = fr_hash__mix(fr_hash__str(fr_hash__str(0, s->name), s->dso),
			    (uint64_t)(s->kernel | s->inlined << 1 | s->unknown << 2));
	for (bool ok = fr_hmap__first(&h->csyms_index, hash, &it, &i); ok;
	     ok = fr_hmap__next(&h->csyms_index, &it, &i))
		if (same_sym(h->csyms[i], s))
			return h->csyms[i];
	if (h->ncsyms >= UINT32_MAX ||
	    fr_grow(&h->csyms, &h->csyms_cap, h->ncsyms + 1, sizeof(*h->csyms), 1024) ||
	    fr_hmap__add(&h->csyms_index, hash, (uint32_t)h->ncsyms))
		return NULL;
	h->csyms[h->ncsyms++] = s;
	return s;
}

static int canon_key(struct fr_hist *h, enum fr_sort_key k, uintptr_t v, uintptr_t *out)
{
	switch (k) {
	case FR_KEY_COMM:
	case FR_KEY_DSO:
	case FR_KEY_SRCLINE:
		*out = v ? (uintptr_t)fr_strpool__str(h->strs, (const char *)v) : 0;
		break;
	case FR_KEY_SYM:
		*out = (uintptr_t)canon_sym(h, (const struct fr_sym *)v);
		break;
	default:
		*out = v;
	}
	return v && !*out ? -ENOMEM : 0;
}

/* src's children of a node into dst's (the node's own weight is added by the caller). */
static int merge_children(struct fr_hist *h, struct cnode *dst, const struct cnode *src)
{
	for (const struct cnode *c = src->child; c; c = c->next) {
		const struct fr_sym *sym = canon_sym(h, c->sym);
		struct cnode *d = dst->child;
		int err;

		if (!sym)
			return -ENOMEM;
		while (d && d->sym != sym)
			d = d->next;
		if (!d) {
			if (!(d = new_node(h, sym)))
				return -ENOMEM;
			d->next = dst->child;
			dst->child = d;
		}
		d->weight += c->weight;
		if ((err = merge_children(h, d, c)))
			return err;
	}
	return 0;
}

int fr_hist__merge(struct fr_hist *dst, struct fr_hist *src)
{
	memo_flush_all(src);
	for (size_t i = 0; i < src->n; i++) {
		const struct hentry *e = src->entries[i];
		uintptr_t key[FR_NR_KEYS] = { 0 };
		struct hentry *d;
		int err;

		for (int k = 0; k < dst->o.nr_keys; k++)
			if (canon_key(dst, dst->o.keys[k], e->key[k], &key[k]))
				return -ENOMEM;
		if (!(d = find_entry(dst, key)))
			return -ENOMEM;
		if (!d->sym && e->sym && !(d->sym = canon_sym(dst, e->sym)))
			return -ENOMEM;
		d->samples += e->samples;
		d->weight += e->weight;
		d->children += e->children;
		d->root.weight += e->root.weight;
		if ((err = merge_children(dst, &d->root, &e->root)))
			return err;
	}
	dst->samples += src->samples;
	dst->weight += src->weight;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct hentry *x = *(const struct hentry *const *)a;
	const struct hentry *y = *(const struct hentry *const *)b;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	for (int k = 0; k < FR_NR_KEYS; k++) {
		int c = strcmp(x->text[k] ? x->text[k] : "", y->text[k] ? y->text[k] : "");

		if (c)
			return c;
	}
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct cnode *x = *(const struct cnode *const *)a;
	const struct cnode *y = *(const struct cnode *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->sym->name, y->sym->name);
}

static const char *node_name(const struct cnode *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", c->sym->name, c->sym->inlined ? " [inlined]" : "");
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '_';
	return buf;
}

struct chain_print {
	FILE *f;
	uint64_t total, min;
	char prefix[PREFIX_MAX];
};

static int print_chain(struct chain_print *cp, const struct cnode *node, size_t plen)
{
	char name[1024];

	for (;;) {
		const struct cnode **kids, *c;
		size_t n = 0;

		for (c = node->child; c; c = c->next)
			n += c->weight >= cp->min;
		if (!n)
			return 0;
		kids = malloc(n * sizeof(*kids));
		if (!kids)
			return -ENOMEM;
		n = 0;
		for (c = node->child; c; c = c->next)
			if (c->weight >= cp->min)
				kids[n++] = c;
		qsort(kids, n, sizeof(kids[0]), cmp_node);
		if (n == 1 && kids[0]->weight == node->weight) {
			fprintf(cp->f, "%.*s%s\n", (int)plen, cp->prefix,
				node_name(kids[0], name, sizeof(name)));
			node = kids[0];
			free(kids);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			bool last = i + 1 == n;
			char head[32];
			int hl = snprintf(head, sizeof(head), "%s--%.2f%%--", last ? " " : "|",
					  100.0 * (double)kids[i]->weight / (double)cp->total);

			fprintf(cp->f, "%.*s|\n%.*s%s%s\n", (int)plen, cp->prefix, (int)plen,
				cp->prefix, head, node_name(kids[i], name, sizeof(name)));
			if (plen + (size_t)hl >= PREFIX_MAX) {
				fprintf(cp->f, "%.*s ...\n", (int)plen, cp->prefix);
				continue;
			}
			memset(cp->prefix + plen, ' ', (size_t)hl);
			cp->prefix[plen] = last ? ' ' : '|';
			print_chain(cp, kids[i], plen + (size_t)hl);
		}
		free(kids);
		return 0;
	}
}

static void print_entry_chain(FILE *f, const struct hentry *e, uint64_t total, double limit)
{
	struct chain_print *cp = malloc(sizeof(*cp));
	const struct cnode *top;
	char name[1024];

	if (!cp || !e->root.child)
		goto out;
	cp->f = f;
	cp->total = total;
	cp->min = (uint64_t)(limit * (double)e->weight / 100.0);
	memset(cp->prefix, ' ', 15);
	top = e->root.child;
	if (!top->next) {
		/* one leaf function: "---leaf", then its callers under it */
		fprintf(f, "            |\n            ---%s\n", node_name(top, name, sizeof(name)));
		print_chain(cp, top, 15);
	} else {
		memset(cp->prefix, ' ', 12);
		print_chain(cp, &e->root, 12);
	}
	fputc('\n', f);
out:
	free(cp);
}

static char *entry_text(const struct hentry *e, enum fr_sort_key k, uintptr_t v)
{
	char buf[1100];

	switch (k) {
	case FR_KEY_COMM: snprintf(buf, sizeof(buf), "%s", (const char *)v); break;
	case FR_KEY_PID:
	case FR_KEY_TID:   /* as perf: -1 for an exiting task's */
		snprintf(buf, sizeof(buf), "%d", (int)(uint32_t)(v - 1));
		break;
	case FR_KEY_CPU: snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(v - 1)); break;
	case FR_KEY_DSO: snprintf(buf, sizeof(buf), "%s", e->sym ? e->sym->dso_short : "-"); break;
	case FR_KEY_SYM:
		snprintf(buf, sizeof(buf), "[%c] %s", e->sym->kernel ? 'k' : '.', e->sym->name);
		break;
	case FR_KEY_SRCLINE: snprintf(buf, sizeof(buf), "%s", (const char *)v); break;
	default: buf[0] = '\0'; break;
	}
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '_';   /* one entry, one line */
	return strdup(buf);
}

/* Every entry's keys as text (shown[k]: some entry has key k); pending
 * memo weights added first. */
static int fill_text(struct fr_hist *h, bool *shown)
{
	memo_flush_all(h);
	for (size_t i = 0; i < h->n; i++) {
		for (int k = 0; k < h->o.nr_keys; k++) {
			if (!h->entries[i]->key[k])
				continue;
			shown[k] = true;
			if (h->entries[i]->text[k])
				continue;
			h->entries[i]->text[k] = entry_text(h->entries[i], h->o.keys[k],
							    h->entries[i]->key[k]);
			if (!h->entries[i]->text[k])
				return -ENOMEM;
		}
	}
	return 0;
}

const char *fr_hist__key_header(enum fr_sort_key k)
{
	return k < FR_NR_KEYS ? key_headers[k] : "";
}

int fr_hist__for_each(struct fr_hist *h, fr_hist_cb cb, void *ctx)
{
	bool shown[FR_NR_KEYS] = { false };
	const char *text[FR_NR_KEYS];
	int err = fill_text(h, shown);

	for (size_t i = 0; i < h->n && !err; i++) {
		const struct hentry *e = h->entries[i];

		for (int k = 0; k < h->o.nr_keys; k++)
			text[k] = e->text[k] ? e->text[k] : "-";
		err = cb(ctx, text, h->o.nr_keys, e->samples, e->weight);
	}
	return err;
}

int fr_hist__print(struct fr_hist *h, const char *event_name, FILE *f)
{
	size_t width[FR_NR_KEYS] = { 0 };
	bool shown[FR_NR_KEYS] = { false };
	uint64_t total = h->weight;

	if (fill_text(h, shown))
		return -ENOMEM;
	qsort(h->entries, h->n, sizeof(*h->entries), cmp_entry);
	for (int k = 0; k < h->o.nr_keys; k++) {
		width[k] = strlen(key_headers[h->o.keys[k]]);
		for (size_t i = 0; i < h->n; i++)
			if (h->entries[i]->text[k] && strlen(h->entries[i]->text[k]) > width[k])
				width[k] = strlen(h->entries[i]->text[k]);
	}
	fprintf(f, "# event: %s\n# samples: %llu  event count: %llu  (overhead by %s)\n#\n",
		event_name, (unsigned long long)h->samples, (unsigned long long)h->weight,
		h->o.period ? "period" : "samples");
	fprintf(f, h->o.children ? "# Children      Self    Samples" : "# Overhead    Samples");
	for (int k = 0, last = -1; k < h->o.nr_keys; k++) {
		for (int j = k; j < h->o.nr_keys; j++)
			if (shown[j])
				last = j;
		if (shown[k])
			fprintf(f, "  %-*s", k == last ? 0 : (int)width[k], key_headers[h->o.keys[k]]);
	}
	fprintf(f, h->o.children ? "\n# ........  ........  ........." : "\n# ........  .........");
	for (int k = 0; k < h->o.nr_keys; k++) {
		if (!shown[k])
			continue;
		fputs("  ", f);
		for (size_t i = 0; i < width[k]; i++)
			fputc('.', f);
	}
	fputs("\n#\n", f);
	for (size_t i = 0; i < h->n; i++) {
		const struct hentry *e = h->entries[i];
		double pct = total ? 100.0 * (double)e->weight / (double)total : 0;
		double cpct = total ? 100.0 * (double)e->children / (double)total : 0;
		int last = -1;

		if ((h->o.children ? cpct : pct) < h->o.percent_limit)
			continue;
		for (int k = 0; k < h->o.nr_keys; k++)
			if (shown[k])
				last = k;
		if (h->o.children)
			fprintf(f, "%9.2f%%  ", cpct);
		fprintf(f, "%9.2f%%  %9llu", pct, (unsigned long long)e->samples);
		for (int k = 0; k < h->o.nr_keys; k++)
			if (shown[k])
				fprintf(f, "  %-*s", k == last ? 0 : (int)width[k],
					e->text[k] ? e->text[k] : "-");
		fputc('\n', f);
		if (h->o.callchains)
			print_entry_chain(f, e, total, h->o.chain_limit);
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
