/* src/record/waits.h: record --off-cpu-thresh: BPF programs that write each
 * context switch, and the stacks of every long wait and a sample of the
 * short ones, into the offcpu event (waits.c, waits.bpf.c).
 */
#ifndef FR_RECORD_WAITS_H
#define FR_RECORD_WAITS_H

#include <stdint.h>

#include "ring/evlist.h"
#include "src/file/waitstack.h"
#include "src/record/record.h"

#define FR_WAITS_EVENT FR_OFFCPU_EVENT
/* The programs' own timer's period, where no sampler of the recording ticks
 * every 2 of it (a switch waits in its CPU's batch about two ticks at most) */
#define FR_WAITS_TICK_NS 10000000ull

struct fr_waits;

/* Load and attach the programs, writing into el's FR_WAITS_EVENT (opened
 * per CPU, system-wide), flushing each CPU's batch at the ticks of el's
 * first CPU clock sampler that ticks every 2 FR_WAITS_TICK_NS or faster at
 * every privilege level (its samples kept), else of a timer of their own:
 * every context switch, and the stacks of every wait
 * of thresh_ns or more, of a shorter one of d ns with probability d / scale,
 * each CPU's scale (>= thresh_ns) set every 250 ms to keep about rate such
 * stacks a second (waits_rate.h); no stacks of process self's threads.
 * Returns 0; -ENOENT (el has no such event), -EPERM/-EACCES (BPF not
 * allowed), -EINVAL, -ENOMEM, or what the kernel or libbpf said (a kernel
 * without BTF or BPF trampolines). Nothing is printed. */
int fr_waits__open(struct fr_evlist *el, uint64_t thresh_ns, uint32_t rate, int self,
		   struct fr_waits **out);
/* Each CPU's batch of switches written out: returns once every CPU's tick
 * says that the switches before the call are out (about two ticks; at most
 * 6 FR_WAITS_TICK_NS). The evlist's writer flush. */
void fr_waits__flush(struct fr_waits *w);
/* Detach and unload (before el's events are closed). NULL is a no-op. */
void fr_waits__delete(struct fr_waits *w);

#endif
