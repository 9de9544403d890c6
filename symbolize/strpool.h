/* symbolize/strpool.h: interned strings: one copy of each distinct string, so
 * callers compare names, paths and comms by pointer. Strings live until the
 * pool is deleted. Library code: returns NULL on allocation failure.
 */
#ifndef FR_STRPOOL_H
#define FR_STRPOOL_H

#include <stddef.h>

struct fr_strpool;

struct fr_strpool *fr_strpool__new(void);
void fr_strpool__delete(struct fr_strpool *p);
/* Forget every string (pointers from the pool are dead after it), keeping the
 * memory: the arena blocks and the index's room are used again. */
void fr_strpool__clear(struct fr_strpool *p);
/* The pooled copy of s[0..len) (NUL-terminated); NULL when out of memory. */
const char *fr_strpool__intern(struct fr_strpool *p, const char *s, size_t len);
/* Same for a NUL-terminated string. */
const char *fr_strpool__str(struct fr_strpool *p, const char *s);

#endif
