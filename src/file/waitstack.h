/* src/file/waitstack.h: the raw data of an offcpu sample (record
 * --off-cpu-thresh; written by src/record/waits.bpf.c, laid out in
 * doc/format.md "The offcpu event"): a batch of context switches (a
 * single one in files before batches), or the stacks of a wait; checked
 * before it is read (waitstack.c).
 */
#ifndef FR_FILE_WAITSTACK_H
#define FR_FILE_WAITSTACK_H

#include <stddef.h>
#include <stdint.h>

#define FR_OFFCPU_EVENT "offcpu"
#define FR_WAIT_FRAMES 64     /* kernel and user frames each, at most */
#define FR_WAIT_USER 1u       /* flags: user[] is the user stack as the waiter returned to user space */

enum fr_offcpu_kind {
	FR_OFFCPU_SWITCH = 1, FR_OFFCPU_STACK = 2, FR_OFFCPU_BATCH = 3,
	FR_OFFCPU_PACKED = 4,   /* a batch as the recorder packs it (fr_offcpu_batch__pack) */
	FR_OFFCPU_STACK_IN = 5, /* a wait's stacks with its switch-in's time, off_ns its span */
};
/* The state a switched-out task left in. */
enum fr_switch_state { FR_SWITCH_R, FR_SWITCH_S, FR_SWITCH_D, FR_SWITCH_DEAD };

/* A context switch: prev went out (or died), next came in. */
struct fr_offcpu_switch {
	enum fr_switch_state state;
	uint32_t prev_tid, prev_pid, next_tid, next_pid;
	uint32_t delay_ns;    /* delay_in: next was runnable this long before this switch-in
	                       * (woken or preempted); else prev, before the run that ends
	                       * here; 0: not known */
	int delay_in;
};
#define FR_BATCH_DELAY_IN 1   /* a batch's flags (its byte 3): delay_ns is next's */

/* A CPU's switches in the order they happened, each at base + its dt; the
 * task that goes out of each is the one the switch before brought in (the
 * first one's is in the header). Read with fr_offcpu_batch__next. */
struct fr_offcpu_batch {
	uint64_t base;        /* CLOCK_MONOTONIC ns */
	uint32_t nr, at;      /* nr: 1 to 255; at: the next switch to read */
	uint32_t prev_tid, prev_pid;   /* the next switch's prev */
	uint32_t dt;          /* packed: the last switch's time after base */
	int packed;
	int delay_in;         /* FR_BATCH_DELAY_IN */
	const uint8_t *recs;  /* the next switch: records of 16 bytes, or packed */
	const uint8_t *end;   /* the raw data's end */
};

struct fr_wait_stack {
	uint64_t off_ns;      /* kind 2: the wait, switch-out to switch-in, as the kernel
	                       * measured it; kind 5: the waiter's previous switch-in to this
	                       * one (its run, then its wait), the length it was sampled by */
	uint64_t in_ns;       /* kind 5: the switch-in (its batch's time of it); kind 2: 0 */
	uint64_t thresh_ns;   /* shorter waits were kept with probability off_ns / thresh_ns */
	uint32_t tid, pid;
	uint32_t nr_kernel, nr_user, flags;
	const uint64_t *kernel, *user;   /* leaf first; unaligned in the record: read with memcpy */
};

/* The kind of raw (raw_size bytes), or 0 where it is neither (too short,
 * an unknown kind: not to be used). */
enum fr_offcpu_kind fr_offcpu__kind(const void *raw, size_t raw_size);
/* Read a switch: 0, or -EBADMSG (short, or a state out of range). */
int fr_offcpu_switch__parse(const void *raw, size_t raw_size, struct fr_offcpu_switch *sw);
/* Read a batch's header (either kind), positioned on its first switch: 0,
 * or -EBADMSG (no switches, fewer bytes than its count says; packed: a
 * switch that does not decode within raw_size, or a time past 2^30 ns). */
int fr_offcpu_batch__parse(const void *raw, size_t raw_size, struct fr_offcpu_batch *b);
/* The batch's next switch and its time: 0, or -ENOENT after the last. */
int fr_offcpu_batch__next(struct fr_offcpu_batch *b, struct fr_offcpu_switch *sw,
			  uint64_t *time);
/* A batch (FR_OFFCPU_BATCH) packed (FR_OFFCPU_PACKED, doc/format.md) into
 * out, at most cap bytes: its length in *len, 0; -EINVAL where raw is not
 * a batch, a switch's time goes back, or it would not fit (raw as it is is
 * then the smaller). */
int fr_offcpu_batch__pack(const void *raw, size_t raw_size, void *out, size_t cap, size_t *len);
/* Read a wait's stacks: 0, or -EBADMSG where it is shorter than its counts
 * say, a count passes FR_WAIT_FRAMES, or tid is 0. */
int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w);

#endif
