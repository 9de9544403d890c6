/* base/grow.h: the one growth helper: an array that doubles to hold what it
 * must, with every size checked for overflow. Leaf header of base/ (includes
 * nothing of ours); every folder may include it.
 */
#ifndef FR_BASE_GROW_H
#define FR_BASE_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grow *arr (of *cap elements of size bytes) to hold at least need elements,
 * doubling from min_cap. 0, or -ENOMEM (also on size overflow); *arr and
 * *cap are unchanged on failure. */
static inline int fr_grow(void *arr, size_t *cap, size_t need, size_t size, size_t min_cap)
{
	void **a = (void **)arr;
	size_t n = *cap ? *cap : (min_cap ? min_cap : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*a, n * size);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = n;
	return 0;
}

#endif
