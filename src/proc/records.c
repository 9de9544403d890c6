/* src/proc/records.c: sideband records into the process model: each of
 * COMM, FORK, EXIT and MMAP2 checked and turned into the model's operation,
 * within its policy (what is kept, where a build id comes from).
 */
#include "config.h"
#include "src/proc/model.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "ring/record.h"

static int on_comm(struct fr_proctable *pt, const struct perf_event_header *h, uint64_t t,
		   uint64_t sample_type)
{
	struct fr_comm c;

	/* the name must end before the sample_id trailer */
	if (fr_record__comm(h, &c) || !c.comm ||
	    16 + strlen(c.comm) + 1 + fr_record__id_size(sample_type) > h->size)
		return -EBADMSG;
	if (pt->pol.processes_only && c.pid != c.tid && !c.exec)
		return 0;   /* a thread's name */
	return fr_proctable__comm(pt, c.pid, c.tid, t, c.comm, c.exec);
}

static int on_task(struct fr_proctable *pt, const struct perf_event_header *h, uint64_t t)
{
	struct fr_task tk;

	if (fr_record__task(h, &tk))
		return -EBADMSG;
	if (!t)
		t = tk.time;
	if (h->type == PERF_RECORD_EXIT)
		return fr_proctable__exit(pt, tk.pid, tk.tid, t);
	return fr_proctable__fork(pt, tk.pid, tk.tid, tk.ppid, tk.ptid, t);
}

static int on_mmap2(struct fr_proctable *pt, const struct perf_event_header *h, uint64_t t)
{
	struct fr_mmap2 m;
	uint8_t bid[20];
	size_t bid_size = 0;

	if (fr_record__mmap2(h, &m) || !m.filename)
		return -EBADMSG;
	if (!(m.prot & PROT_EXEC))
		return 0;   /* only code is looked up */
	if (m.has_build_id && m.build_id_size) {
		bid_size = m.build_id_size < sizeof(bid) ? m.build_id_size : sizeof(bid);
		memcpy(bid, m.build_id, bid_size);
	} else if (pt->pol.read_build_id && m.filename[0] == '/') {
		/* the kernel gave none: read the note while the file still exists */
		bid_size = pt->pol.read_build_id(m.pid, m.filename, bid);
	}
	return fr_proctable__mmap(pt, m.pid, t, m.addr, m.len, m.pgoff, m.prot, m.filename,
				  bid_size ? bid : NULL, bid_size);
}

int fr_proctable__record_at(struct fr_proctable *pt, const struct perf_event_header *h,
			    uint64_t sample_type, uint64_t t)
{
	switch (h->type) {
	case PERF_RECORD_COMM: return on_comm(pt, h, t, sample_type);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return on_task(pt, h, t);
	case PERF_RECORD_MMAP2: return on_mmap2(pt, h, t);
	default: return 0;
	}
}

int fr_proctable__record(struct fr_proctable *pt, const struct perf_event_header *h,
			 uint64_t sample_type)
{
	struct fr_sample id;

	return fr_proctable__record_at(pt, h, sample_type,
				       fr_record__parse_id(h, sample_type, &id) ? 0 : id.time);
}
