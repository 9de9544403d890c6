/* src/report/pass/hist_internal.h: the histogram's state, shared by hist.c
 * (entries, call paths, memo, merge) and hist_print.c (the text). Private to
 * src/report/pass/.
 */
#ifndef FR_REPORT_HIST_INTERNAL_H
#define FR_REPORT_HIST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/hmap.h"
#include "src/report/pass/pass.h"

struct memo;
struct node_block;
struct fr_strpool;

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
	double latency;                  /* self, each sample's weight / its parallelism */
	struct cnode root;               /* call paths, leaf first */
	char *text[FR_NR_KEYS];          /* filled when printing */
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
	double latency;
};

/* Add every memo slot's pending weight to its entries and path nodes. */
void fr_hist_flush_memos(struct fr_hist *h);

#endif
