/* src/file/waitstack.c: reading the raw data of an offcpu sample: a switch
 * (24 bytes), or a wait's stacks (a 40-byte header, 64 kernel frame slots,
 * then nr_user user frames).
 */
#include "config.h"
#include "src/file/waitstack.h"

#include <errno.h>
#include <string.h>

#include "src/util.h"

#define SWITCH_SIZE 24
#define HEAD 40   /* kind, flags, off_ns, thresh_ns, tid, pid, nr_kernel, nr_user */

enum fr_offcpu_kind fr_offcpu__kind(const void *raw, size_t raw_size)
{
	const uint8_t *p = raw;

	if (!raw || raw_size < SWITCH_SIZE)
		return 0;
	if (p[0] == FR_OFFCPU_SWITCH)
		return FR_OFFCPU_SWITCH;
	return raw_size >= HEAD && fr_get32(p) == FR_OFFCPU_STACK ? FR_OFFCPU_STACK : 0;
}

int fr_offcpu_switch__parse(const void *raw, size_t raw_size, struct fr_offcpu_switch *sw)
{
	const uint8_t *p = raw;

	if (fr_offcpu__kind(raw, raw_size) != FR_OFFCPU_SWITCH || p[1] > FR_SWITCH_DEAD)
		return -EBADMSG;
	sw->state = (enum fr_switch_state)p[1];
	sw->next_tid = fr_get32(p + 4);
	sw->next_pid = fr_get32(p + 8);
	sw->delay_ns = fr_get32(p + 12);
	sw->prev_tid = fr_get32(p + 16);
	sw->prev_pid = fr_get32(p + 20);
	return 0;
}

int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w)
{
	const uint8_t *p = raw;
	size_t user_at = HEAD + FR_WAIT_FRAMES * 8;

	if (fr_offcpu__kind(raw, raw_size) != FR_OFFCPU_STACK || raw_size < user_at)
		return -EBADMSG;
	w->flags = fr_get32(p + 4);
	w->off_ns = fr_get64(p + 8);
	w->thresh_ns = fr_get64(p + 16);
	w->tid = fr_get32(p + 24);
	w->pid = fr_get32(p + 28);
	w->nr_kernel = fr_get32(p + 32);
	w->nr_user = fr_get32(p + 36);
	if (!w->tid || w->nr_kernel > FR_WAIT_FRAMES || w->nr_user > FR_WAIT_FRAMES ||
	    raw_size < user_at + (size_t)w->nr_user * 8)
		return -EBADMSG;
	if (!(w->flags & FR_WAIT_USER))
		w->nr_user = 0;
	w->kernel = (const uint64_t *)(p + HEAD);
	w->user = (const uint64_t *)(p + user_at);
	return 0;
}
