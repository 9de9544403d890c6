/* symbolize/kallsyms.h: kernel symbols captured at record time, so a file
 * reports kernel addresses correctly on another machine: the recorder loads
 * /proc/kallsyms and /proc/modules once, notes the kernel addresses its
 * samples hold, and writes only the symbols they need (FR_BLOB_KSYMS).
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_KALLSYMS_H
#define FR_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct fr_kallsyms;

/* Record side: load the text symbols and module list (paths: NULL = /proc). */
int fr_kallsyms__load(const char *kallsyms, const char *modules, struct fr_kallsyms **out);
void fr_kallsyms__delete(struct fr_kallsyms *ks);
/* A kernel address some sample holds (ip or callchain entry). A binary
 * search (about 40 ns); safe to call from several threads at once. */
void fr_kallsyms__note(struct fr_kallsyms *ks, uint64_t addr);
/* The noted symbols and the module list as a blob payload (doc/report.md);
 * takes and clears the notes (notes made meanwhile go to the next one).
 * *data is malloc'd. */
int fr_kallsyms__serialize(struct fr_kallsyms *ks, void **data, size_t *len);
/* Serialize leaves the notes set from now on: record --keep notes addresses
 * when it reads records, and one window's records go into several snapshots. */
void fr_kallsyms__sticky(struct fr_kallsyms *ks);

/* Report side: a table from one or more blobs. */
int fr_kallsyms__parse(const void *data, size_t len, struct fr_kallsyms **inout);
/* The symbol containing addr, its offset, and its module (NULL: the kernel
 * image). NULL when unknown. */
const char *fr_kallsyms__lookup(const struct fr_kallsyms *ks, uint64_t addr, uint64_t *off,
				const char **module);

#endif
