/* src/record/waits.h: the off-CPU stacks of --off-cpu-thresh: BPF programs
 * that time each thread's waits and write the stack of every long wait, and
 * a sample of the short ones, into the offcpu-stack event (waits.c).
 */
#ifndef FR_RECORD_WAITS_H
#define FR_RECORD_WAITS_H

#include <stdint.h>

#include "ring/evlist.h"

#define FR_WAITS_EVENT "offcpu-stack"
#define FR_WAITS_MAX_THRESH_NS (4000000000ull)   /* the sampling's 32-bit product */

struct fr_waits;

/* Load and attach the programs, writing into el's FR_WAITS_EVENT (opened
 * per CPU, system-wide): every wait of thresh_ns or more gives a sample
 * with the thread's stack at its switch-in, a shorter one of d ns with
 * probability d / thresh_ns; the threads of process self are left out.
 * Returns 0; -ENOENT (el has no such event), -EPERM/-EACCES (BPF not
 * allowed), -EINVAL, -ENOMEM, or what the kernel or libbpf said (a kernel
 * without BTF or BPF trampolines). Nothing is printed. */
int fr_waits__open(struct fr_evlist *el, uint64_t thresh_ns, int self,
		   struct fr_waits **out);
/* Detach and unload (before el's events are closed). NULL is a no-op. */
void fr_waits__delete(struct fr_waits *w);

#endif
