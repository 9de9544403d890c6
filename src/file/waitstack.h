/* src/file/waitstack.h: the raw data of an offcpu-stack sample (record
 * --off-cpu-thresh; written by src/record/waits.bpf.c, laid out in
 * doc/format.md "offcpu-stack"), checked before it is read (waitstack.c).
 */
#ifndef FR_FILE_WAITSTACK_H
#define FR_FILE_WAITSTACK_H

#include <stddef.h>
#include <stdint.h>

#define FR_WAIT_FRAMES 64     /* kernel and user frames each, at most */
#define FR_WAIT_USER 1u       /* flags: user[] is the user stack as the wait's call returned */

struct fr_wait_stack {
	uint64_t off_ns;      /* the wait, switch-out to switch-in, as the kernel measured it */
	uint64_t thresh_ns;   /* shorter waits were kept with probability off_ns / thresh_ns */
	uint32_t tid, pid;
	uint32_t nr_kernel, nr_user, flags;
	const uint64_t *kernel, *user;   /* leaf first; unaligned in the record: read with memcpy */
};

/* Read raw (raw_size bytes) into w: 0, or -EBADMSG where it is shorter than
 * its counts say, a count passes FR_WAIT_FRAMES, or tid is 0. */
int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w);

#endif
