/* src/report/pass/hist_print.c: the histogram as text: entries heaviest first
 * with their key columns and call paths (callee first, as perf report
 * --no-children), or inclusive Children and Self weights (--children), and
 * the Latency column (each sample / its parallelism; --sort latency).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/pass/pass.h"
#include "src/report/pass/hist_internal.h"

#define PREFIX_MAX 8192

static const char *const key_headers[FR_NR_KEYS] = { "Command", "Pid", "Shared Object",
						     "Symbol", "Source:Line", "CPU", "Tid" };

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

/* --sort latency: the most latency first, then as above */
static int cmp_entry_latency(const void *a, const void *b)
{
	const struct hentry *x = *(const struct hentry *const *)a;
	const struct hentry *y = *(const struct hentry *const *)b;

	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return cmp_entry(a, b);
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
	fr_hist_flush_memos(h);
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
	if (h->n)   /* qsort of a NULL array (none) is UB */
		qsort(h->entries, h->n, sizeof(*h->entries),
		      h->o.latency && h->o.by_latency ? cmp_entry_latency : cmp_entry);
	for (int k = 0; k < h->o.nr_keys; k++) {
		width[k] = strlen(key_headers[h->o.keys[k]]);
		for (size_t i = 0; i < h->n; i++)
			if (h->entries[i]->text[k] && strlen(h->entries[i]->text[k]) > width[k])
				width[k] = strlen(h->entries[i]->text[k]);
	}
	fprintf(f, "# event: %s\n# samples: %llu  event count: %llu  (overhead by %s%s%s)\n#\n",
		event_name, (unsigned long long)h->samples, (unsigned long long)h->weight,
		h->o.period ? "period" : "samples", h->o.latency ? ", latency by " : "",
		!h->o.latency ? "" : h->o.period ? "period / parallelism" : "samples / parallelism");
	fprintf(f, "%s%s    Samples", h->o.children ? "# Children      Self" : "# Overhead",
		h->o.latency ? "     Latency" : "");
	for (int k = 0, last = -1; k < h->o.nr_keys; k++) {
		for (int j = k; j < h->o.nr_keys; j++)
			if (shown[j])
				last = j;
		if (shown[k])
			fprintf(f, "  %-*s", k == last ? 0 : (int)width[k], key_headers[h->o.keys[k]]);
	}
	fprintf(f, "\n# ........%s%s  .........", h->o.children ? "  ........" : "",
		h->o.latency ? "  .........." : "");
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
		double lpct = h->latency > 0 ? 100.0 * e->latency / h->latency : 0;
		int last = -1;

		if ((h->o.latency && h->o.by_latency ? lpct : h->o.children ? cpct : pct) <
		    h->o.percent_limit)
			continue;
		for (int k = 0; k < h->o.nr_keys; k++)
			if (shown[k])
				last = k;
		if (h->o.children)
			fprintf(f, "%9.2f%%  ", cpct);
		fprintf(f, "%9.2f%%  ", pct);
		if (h->o.latency)
			fprintf(f, "%9.2f%%  ", lpct);
		fprintf(f, "%9llu", (unsigned long long)e->samples);
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
