/* src/report/diff_internal.h: what the two files of `flightrec diff` share:
 * the rows of the comparison and the two sides (diff.c makes them in one
 * pass over each file, diff_print.c writes them out). Private to them.
 */
#ifndef FR_REPORT_DIFF_INTERNAL_H
#define FR_REPORT_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hmap.h"
#include "src/report/fmt/fmt.h"
#include "src/report/report.h"

#define SEP '\x1f'   /* between the parts of a row's key */

struct row {
	char *key;
	uint64_t n[2], w[2];    /* samples, weight: baseline, new */
	double z, p, delta;     /* delta: new share - baseline share */
	bool sig;
};

struct table {
	struct row *rows;
	size_t nr, cap;
	struct fr_hmap index;
	double zcrit;           /* |z| at least this: significant */
	double maxdelta;        /* largest |delta| of the significant rows */
};

/* The off-CPU time of both sides, where the files recorded context switches:
 * rows per stack (comm, the state frame, root ... leaf) and per thread (comm,
 * tid), w[] in ns, n[] waits; each side's total. */
struct waits {
	struct table stacks, threads;
	uint64_t ns[2], n[2];
	bool any;                /* some side had switches */
};

struct offcpu_in;
/* One side of the comparison. */
struct side {
	struct fr_hist *hist;
	struct fr_folded *folded;
	uint64_t samples, weight, first, last;
	struct offcpu_in *oc;    /* its off-CPU stage, or NULL */
	struct waits *waits;     /* where its waits go */
	int index;               /* 0: baseline, 1: new */
	char *buf;               /* a row's key being made */
	size_t cap;
};


/* The row of key, added on first use (NULL: no memory). */
struct row *fr_diff_row(struct table *t, const char *key);
void fr_diff_table_exit(struct table *t);
/* Into the growing buffer *buf at *len: s, then sep if sep. */
int fr_diff_put(char **buf, size_t *cap, size_t *len, const char *s, char sep);
/* The comparison out: the table (sorted here), or the differential flame
 * graph of the new side. Returns an exit code, said. */
int fr_diff_write(const struct fr_diff_opts *o, struct table *t, struct side *const *s,
		  const char *const *names, const char *event, struct waits *w);

#endif
