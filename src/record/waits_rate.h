/* src/record/waits_rate.h: which waits' stacks the offcpu event keeps: every
 * wait of thresh_ns or more, a shorter one of d ns with probability
 * d / scale, where each CPU's scale (>= thresh_ns) follows its short-wait
 * stacks to a budget a second; included by waits.bpf.c, and by its unit
 * test, which cannot load the program (doc/design-notes.md "A budget for
 * the short waits' stacks").
 */
#ifndef FR_RECORD_WAITS_RATE_H
#define FR_RECORD_WAITS_RATE_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The scale is at most this (ns): the keep test multiplies it by a 32-bit
 * random number (record.h's FR_RECORD_MAX_THRESH_NS is not above it). */
#define FR_WRATE_MAX_SCALE 4000000000ull
/* The time between two settings of the scale (ns): at the first of the
 * CPU's ticks this long after the last. */
#define FR_WRATE_PERIOD_NS 250000000ull

/* One CPU's sampling of short waits. */
struct fr_wrate {
	__u64 scale;   /* a wait of d < thresh is kept with probability d / scale; 0: thresh */
	__u32 taken;   /* short waits kept since the period began */
	__u32 pad;
	__u64 start;   /* when the period began (CLOCK_MONOTONIC ns); 0: at the next tick */
};

/* The scale a wait of d ns would be kept at: thresh for a long one (always
 * kept), the CPU's for a short one; 0 when the wait is not kept. rnd: a
 * uniform 32-bit random number. target: the short-wait stacks a period
 * (>= 1); more than twice that within one doubles the scale at once (a
 * burst costs at most about that many). */
static __always_inline __u64 fr_wrate__keep(struct fr_wrate *r, __u64 d, __u64 thresh,
					    __u32 rnd, __u32 target)
{
	__u64 s = r->scale < thresh ? thresh : r->scale;

	if (d >= thresh)
		return thresh;
	if ((((__u64)rnd * s) >> 32) >= d)
		return 0;
	if (++r->taken > 2 * target && s <= FR_WRATE_MAX_SCALE / 2) {
		r->scale = 2 * s;   /* for the waits after this one */
		r->taken = target;
	}
	return s;
}

/* The CPU's clock ticked at now: at the end of a period the scale moves
 * half way to the one that would have kept target stacks in FR_WRATE_PERIOD_NS
 * (kept ~ 1 / scale; a period that ran long, its ticks late, counts for its
 * length), within [thresh, FR_WRATE_MAX_SCALE]. */
static __always_inline void fr_wrate__tick(struct fr_wrate *r, __u64 now, __u64 thresh,
					   __u32 target)
{
	__u64 s = r->scale < thresh ? thresh : r->scale, want, ms;

	if (!r->start || now < r->start) {
		r->start = now;
		return;
	}
	ms = (now - r->start) / 1000000;
	if (ms < FR_WRATE_PERIOD_NS / 1000000)
		return;
	want = s * r->taken / (target ? target : 1);
	if (want > 2 * FR_WRATE_MAX_SCALE)
		want = 2 * FR_WRATE_MAX_SCALE;   /* clamped below anyway; no overflow next */
	want = want * (FR_WRATE_PERIOD_NS / 1000000) / ms;
	s = (s + want) / 2;
	if (s < thresh)
		s = thresh;
	if (s > FR_WRATE_MAX_SCALE)
		s = FR_WRATE_MAX_SCALE;
	r->scale = s;
	r->taken = 0;
	r->start = now;
}

#endif
