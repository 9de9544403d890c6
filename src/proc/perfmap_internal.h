/* src/proc/perfmap_internal.h: the perf map set's storage, private to
 * src/proc (perfmap.c keeps, parses, looks up and encodes it;
 * perfmap_collect.c reads the maps and jitdumps of processes into it).
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

struct ent {
	struct fr_perfmap_entry e;
	uint64_t seq;              /* order written: the later wins */
};

struct pmap {
	uint32_t pid;
	struct ent *ents;
	size_t n, cap;
	bool sorted, capped;
	uint64_t skipped, read, seq;
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
	uint64_t bytes;            /* what they take (names counted whole, interned or not) */
	uint64_t over;             /* entries left out for the budget */
};

#define HELD_MAX 1024              /* files held open at most */

/* pid's entries, or NULL; made if missing (NULL: no memory). */
struct pmap *fr_pmap_find(const struct fr_perfmaps *pm, uint32_t pid);
struct pmap *fr_pmap_of(struct fr_perfmaps *pm, uint32_t pid);
/* One more entry of m, its name interned. */
int fr_pmap_add(struct fr_perfmaps *pm, struct pmap *m, uint64_t start, uint64_t size,
		const char *name, size_t len);
/* Read fd (the map of pid, owned by uid or root) from where pid's stopped. */
int fr_pmap_read_fd(struct fr_perfmaps *pm, uint32_t pid, int fd, uid_t uid);

#endif
