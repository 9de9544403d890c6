/* bench/bpf/empty.bpf.c: BTF tracepoint programs that do nothing, on the
 * hooks flightrec's waits.bpf.c uses (sched_switch, rseq_update), for
 * bench/invoke.sh: what a program's invocation costs outside its body,
 * which bpf_stats does not count.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tp_btf/sched_switch")
int fr_empty_switch(void *ctx)
{
	return 0;
}

SEC("tp_btf/rseq_update")
int fr_empty_resume(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
