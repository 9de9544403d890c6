/* src/proc/perfmap_internal.h: the perf map set's storage, private to
 * src/proc (perfmap.c keeps, parses, looks up and encodes it;
 * perfmap_collect.c reads the maps and jitdumps of processes into it;
 * perfmap_budget.c drops the oldest entries past the set's budget).
 */
#ifndef FR_PERFMAP_INTERNAL_H
#define FR_PERFMAP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/hmap.h"
#include "src/proc/jitdump.h"
#include "src/proc/perfmap.h"

#define ENT_LEN_BITS 16u           /* a name is at most FR_PERFMAP_LINE_MAX long */

struct ent {
	struct fr_perfmap_entry e;
	uint64_t tag;              /* seq << ENT_LEN_BITS | the name's length; seq: the
				    * order written, one count for every pid (the
				    * later wins a lookup, the older goes first) */
};

static inline uint64_t ent_seq(const struct ent *x)
{
	return x->tag >> ENT_LEN_BITS;
}

/* What an entry takes of the budget (its name counted whole, interned or not). */
static inline uint64_t ent_cost(const struct ent *x)
{
	return sizeof(struct ent) + (x->tag & ((1u << ENT_LEN_BITS) - 1)) + 1;
}

struct pmap {
	uint32_t pid;
	struct ent *ents;
	size_t n, cap;
	bool sorted, capped;
	bool gone;                 /* its process exited: its entries go first */
	uint64_t skipped, read;
	uint64_t last;             /* the seq of its newest entry */
	dev_t dev;
	ino_t ino;                 /* the file read so far (0: none) */
	int fd;                    /* collect: that file, held while the process runs, or -1 */
	uid_t uid;                 /* its process's owner */
	uint32_t nspid;            /* collect: its pid in its namespace (0: not seen alive) */
	bool local;                /* seen alive in the collector's mount namespace */
	time_t seen;               /* then, without a map */
	struct fr_jitdump *dump;   /* collect: its jitdump read so far, or NULL */
};

struct fr_perfmaps {
	struct pmap *maps;
	size_t n, cap;
	struct fr_hmap index;      /* pid -> maps[] */
	struct fr_strpool *names;
	size_t held;               /* maps and dumps with an fd */
	uint64_t budget;           /* bytes the entries may take, all pids (0: no cap) */
	uint64_t bytes;            /* what they take (ent_cost) */
	uint64_t seq;              /* the next entry's */
	uint64_t dropped;          /* entries dropped for the budget, the oldest first */
	uint64_t dropped_bytes;    /* what they took */
	uint64_t compactions;      /* times the set was cut down and its pool rebuilt */
};

#define HELD_MAX 1024              /* files held open at most */

/* pid's entries, or NULL; made if missing (NULL: no memory). */
struct pmap *fr_pmap_find(const struct fr_perfmaps *pm, uint32_t pid);
struct pmap *fr_pmap_of(struct fr_perfmaps *pm, uint32_t pid);
/* One more entry of m, its name interned (name may be a string of the set's
 * pool: a jitdump's move); past the budget the oldest entries go first
 * (fr_pmap_compact). */
int fr_pmap_add(struct fr_perfmaps *pm, struct pmap *m, uint64_t start, uint64_t size,
		const char *name, size_t len);
/* Drop m's entries (their bytes given back; not counted as dropped for the
 * budget), its files' offsets kept. */
void fr_pmap_drop(struct fr_perfmaps *pm, struct pmap *m);
/* Make room for an entry of cost bytes (at most the budget), name[0..len)
 * (which may live in the pool): entries dropped and counted, the maps of
 * processes gone first, then the oldest of all, down to 3/4 of the budget,
 * the pool rebuilt of the survivors (their jitdumps' names with it). *kept:
 * name in the new pool, or NULL where there was no memory for one (the old
 * pool kept: intern it there). */
void fr_pmap_compact(struct fr_perfmaps *pm, uint64_t cost, const char *name, size_t len,
		     const char **kept);
/* Read fd (the map of pid, owned by uid or root) from where pid's stopped. */
int fr_pmap_read_fd(struct fr_perfmaps *pm, uint32_t pid, int fd, uid_t uid);

#endif
