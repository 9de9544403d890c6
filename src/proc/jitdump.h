/* src/proc/jitdump.h: jitdump files (jit-PID.dump, the format `perf inject
 * --jit` reads) read as hostile input and read on as they grow: the names and
 * address ranges of their code loads and moves, handed out one by one (the
 * perf maps, src/proc/perfmap.c, keep them). Returns 0 or -errno, never prints.
 */
#ifndef FR_JITDUMP_H
#define FR_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hmap.h"

#define FR_JITDUMP_MAGIC 0x4A695444u        /* "JiTD", the writer's byte order */
#define FR_JITDUMP_VERSION 1u
#define FR_JITDUMP_FILE_MAX (1ull << 30)    /* bytes of one dump read, at most */
#define FR_JITDUMP_NAMES_MAX (64u << 20)    /* bytes of names (+ 20 each) kept, at most */
#define FR_JITDUMP_NAME_MAX 4096u           /* a longer name: the record is skipped */

enum {
	FR_JIT_CODE_LOAD = 0,
	FR_JIT_CODE_MOVE = 1,
	FR_JIT_CODE_DEBUG_INFO = 2,
	FR_JIT_CODE_CLOSE = 3,
	FR_JIT_CODE_UNWINDING_INFO = 4,
};

/* A piece of code: cb(ctx, start, size, name, len, &kept) for each load and
 * each move (the moved code's name); *kept: the caller's lasting copy of
 * name, which a later move of that code hands back. Non-zero stops. */
typedef int (*fr_jitdump_code_cb)(void *ctx, uint64_t start, uint64_t size, const char *name,
				  size_t len, const char **kept);

struct jd_code;

/* The reading of one dump: where it stopped and what it found. Zeroed (and
 * fd -1) by fr_jitdump__init. */
struct fr_jitdump {
	uint64_t off;          /* bytes consumed: the header and whole records */
	uint64_t loads, moves; /* records handed out */
	uint64_t skipped;      /* records skipped: malformed, unknown, name too long */
	uint64_t tail;         /* bytes of a last record not whole at the last read */
	uint64_t names;        /* bytes of names handed out (+ 20 each) */
	bool header;           /* the file header was read and accepted */
	bool refused;          /* a bad header or record framing: read no further */
	bool capped;           /* FR_JITDUMP_FILE_MAX or _NAMES_MAX reached */
	dev_t dev;
	ino_t ino;             /* the file read so far (0: none) */
	int fd;                /* the file, held while its process runs, or -1 */
	struct jd_code *codes; /* loaded code by address, for moves */
	size_t n, cap;
	struct fr_hmap index;
};

void fr_jitdump__init(struct fr_jitdump *d);
/* Free what d holds (its fd closed); d is as after init. */
void fr_jitdump__exit(struct fr_jitdump *d);
/* Read again from the start: what was read forgotten, the fd held kept. */
void fr_jitdump__restart(struct fr_jitdump *d);

/* The caller's copies of names moved (its pool rebuilt): the code at addr
 * named old is named new now, and kept by the next fr_jitdump__prune, which
 * forgets the code whose name was not renamed since the last prune (its
 * name is gone: a later move of that code is unnamed). */
void fr_jitdump__rename(struct fr_jitdump *d, uint64_t addr, const char *old, const char *new);
void fr_jitdump__prune(struct fr_jitdump *d);

/* Parse buf: the dump's bytes from d->off on, len of them in buf, avail in
 * the file (avail >= len). Consumes the header and every whole record (a
 * record may end past buf: its code bytes are not needed) and advances
 * d->off; stops at a record not whole in avail (d->tail: its bytes so far)
 * or whose start (a load: up to its name's NUL) is not in buf: the caller
 * reads again from d->off. 0 (also when it stopped), -EINVAL (a header
 * of another format, version or byte order, or a record shorter than its
 * header: d->refused), -ENOMEM, or cb's non-zero. */
int fr_jitdump__parse(struct fr_jitdump *d, const uint8_t *buf, size_t len, uint64_t avail,
		      fr_jitdump_code_cb cb, void *ctx);

/* Read fd, a dump of a process owned by uid, on from d->off (another file
 * or one cut short: read again from its start). -EPERM: not a regular file,
 * or an owner other than uid or root. */
int fr_jitdump__read(struct fr_jitdump *d, int fd, uid_t uid, fr_jitdump_code_cb cb, void *ctx);

/* Whether path's last component is a dump's name: jit-DIGITS.dump. */
bool fr_jitdump__is_dump_name(const char *path);

#endif
