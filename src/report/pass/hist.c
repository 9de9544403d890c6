/* src/report/pass/hist.c: the histogram's entries: samples grouped by any
 * subset of the sort keys, their call paths and --children weights, the memo of
 * repeated stacks, and the merge of parallel histograms. Printing is
 * hist_print.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/pass/pass.h"
#include "src/report/pass/hist_internal.h"
#include "symbolize/strpool.h"

#define NODE_BLOCK 4096

static const char *const key_names[FR_NR_KEYS] = { "comm", "pid", "dso", "sym", "srcline",
						   "cpu", "tid" };

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
	double latency;
};

int fr_hist__parse_keys(const char *spec, struct fr_hist_opts *o)
{
	const char *p = spec;
	bool latency = false;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		if (len == 7 && !strncmp(p, "latency", 7)) {   /* an order, not a group */
			if (latency)
				return -EINVAL;
			latency = true;
			p += len;
			if (*p == ',' && *++p == '\0')
				return -EINVAL;
			continue;
		}
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
	if (latency && !o->nr_keys) {
		o->keys[o->nr_keys++] = FR_KEY_COMM;
		o->keys[o->nr_keys++] = FR_KEY_DSO;
		o->keys[o->nr_keys++] = FR_KEY_SYM;
	}
	o->by_latency = latency;
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
	e->latency += m->latency;
	if (h->o.callchains) {
		e->root.weight += w;
		for (uint32_t i = 0; i < m->npath; i++)
			((struct cnode *)m->ptrs[i])->weight += w;
	}
	for (uint32_t i = 0; i < m->nkids; i++)
		((struct hentry *)m->ptrs[m->npath + i])->children += w;
	m->samples = m->weight = 0;
	m->latency = 0;
}

void fr_hist_flush_memos(struct fr_hist *h)
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

static bool memo_hit(struct fr_hist *h, const struct fr_rsample *s, uint64_t w, double lat)
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
	m->latency += lat;
	h->samples++;
	h->weight += w;
	h->latency += lat;
	return true;
}

int fr_hist__add(struct fr_hist *h, const struct fr_rsample *s)
{
	const struct fr_sym *leaf;
	uint64_t w = h->o.period ? s->period : 1;
	/* the latency view: the sample's part of the wall-clock time */
	double lat = s->parallelism > 1 ? (double)w / s->parallelism : (double)w;
	uintptr_t key[FR_NR_KEYS];
	struct memo *m = NULL;
	struct hentry *e;
	int err;

	if (s->stack_id && s->nr_frames && s->nr_frames <= MEMO_MAX_FRAMES) {
		if (memo_hit(h, s, w, lat))
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
	e->latency += lat;
	h->samples++;
	h->weight += w;
	h->latency += lat;
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
				    m->nkids, e, m->ptrs, m->cap, 0, 0, 0 };
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
	fr_hist_flush_memos(src);
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
		d->latency += e->latency;
		d->children += e->children;
		d->root.weight += e->root.weight;
		if ((err = merge_children(dst, &d->root, &e->root)))
			return err;
	}
	dst->samples += src->samples;
	dst->weight += src->weight;
	dst->latency += src->latency;
	return 0;
}
