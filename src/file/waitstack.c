/* src/file/waitstack.c: reading the raw data of an offcpu-stack sample:
 * fixed header, 64 kernel frame slots, then nr_user user frames.
 */
#include "config.h"
#include "src/file/waitstack.h"

#include <errno.h>
#include <string.h>

#define HEAD 40   /* off_ns, thresh_ns, tid, pid, nr_kernel, nr_user, flags, pad */

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w)
{
	const unsigned char *p = raw;
	size_t user_at = HEAD + FR_WAIT_FRAMES * 8;

	if (!raw || raw_size < user_at)
		return -EBADMSG;
	w->off_ns = u64_at(p);
	w->thresh_ns = u64_at(p + 8);
	w->tid = u32_at(p + 16);
	w->pid = u32_at(p + 20);
	w->nr_kernel = u32_at(p + 24);
	w->nr_user = u32_at(p + 28);
	w->flags = u32_at(p + 32);
	if (!w->tid || w->nr_kernel > FR_WAIT_FRAMES || w->nr_user > FR_WAIT_FRAMES ||
	    raw_size < user_at + (size_t)w->nr_user * 8)
		return -EBADMSG;
	if (!(w->flags & FR_WAIT_USER))
		w->nr_user = 0;
	w->kernel = (const uint64_t *)(p + HEAD);
	w->user = (const uint64_t *)(p + user_at);
	return 0;
}
