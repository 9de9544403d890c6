/* ring/record.h: decoding perf records (PERF_RECORD_SAMPLE fields by
 * sample_type, the sample_id_all trailer of other records, sideband bodies).
 */
#ifndef FR_RECORD_H
#define FR_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* sample_type bits this decoder understands. */
#define FR_SAMPLE_SUPPORTED                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |         \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |          \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER)

struct fr_sample {
	uint64_t id;          /* PERF_SAMPLE_IDENTIFIER or _ID, else 0 */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_ips;
	const uint64_t *ips;  /* callchain, nr_ips entries, inside the record */
	uint32_t raw_size;
	const void *raw;      /* tracepoint data, inside the record */
	uint64_t regs_abi;
	const uint64_t *regs; /* weight(regs_mask) entries */
	uint32_t nr_regs;
	uint64_t stack_size;
	const void *stack;
	uint64_t stack_dyn_size;
	bool has_tid, has_time;
};

/* Decode a PERF_RECORD_SAMPLE. regs_mask is attr.sample_regs_user.
 * Returns 0, -EBADMSG if the record is shorter than its fields say, -ENOTSUP
 * for sample_type bits outside FR_SAMPLE_SUPPORTED. */
int fr_record__parse_sample(const struct perf_event_header *h, uint64_t sample_type,
			    uint64_t regs_mask, struct fr_sample *s);

/* Decode the sample_id_all trailer of a non-sample record (tid, time, id, cpu). */
int fr_record__parse_id(const struct perf_event_header *h, uint64_t sample_type,
			struct fr_sample *s);

/* Bytes of the sample_id_all trailer for this sample_type. */
size_t fr_record__id_size(uint64_t sample_type);

/* The time of any record (sample or not, given sample_id_all). Returns 0 and
 * sets *time, or -ENOENT when the record carries no time. */
int fr_record__time(const struct perf_event_header *h, uint64_t sample_type, uint64_t *time);

/* The pid of a sample (PERF_SAMPLE_TID), read where the layout puts it
 * (after IDENTIFIER and IP) without decoding the rest. -ENOENT without TID,
 * -EINVAL for a record that is not a sample, -EBADMSG when it is too short. */
int fr_record__pid(const struct perf_event_header *h, uint64_t sample_type, uint32_t *pid);

/* The event identifier (PERF_SAMPLE_IDENTIFIER) of any record. -ENOENT without one. */
int fr_record__identifier(const struct perf_event_header *h, uint64_t sample_type, uint64_t *id);

/* Sideband bodies (fields before the sample_id trailer). */
struct fr_comm {
	uint32_t pid, tid;
	const char *comm;     /* NUL-terminated inside the record, or NULL if malformed */
	bool exec;
};
int fr_record__comm(const struct perf_event_header *h, struct fr_comm *c);
/* A COMM record as the kernel writes it into buf: pid, tid, comm (at most 15
 * bytes, NUL-padded to 8), misc (PERF_RECORD_MISC_COMM_EXEC or 0), then the
 * sample_id trailer of sample_type st (TID and TIME filled, other fields 0).
 * Returns its size, or -ENOSPC when buf is too small. */
int fr_record__make_comm(void *buf, size_t cap, uint32_t pid, uint32_t tid, const char *comm,
			 uint16_t misc, uint64_t st, uint64_t time);

/* COMM, MMAP, MMAP2, FORK or EXIT: the records the process model takes (a
 * sample ring holds them where the recorder asked it to, as perf does). */
bool fr_record__is_process(uint32_t type);

/* A non-sample record of another event's sample_id_all trailer (sample_type
 * st, which has TIME) rewritten into buf as the sideband event's: the same
 * header and body, then the time alone (PERF_SAMPLE_TIME). Returns the new
 * size; -EINVAL for a sample or a size not a multiple of 8, -ENOENT without
 * TIME, -EBADMSG when the trailer does not fit, -ENOSPC when buf is too small. */
int fr_record__retrail_time(const struct perf_event_header *h, uint64_t st, void *buf,
			    size_t cap);

/* A sample of sample_type TIME|RAW (the sideband's name tracepoints): its
 * time and raw data (common_type in its first two bytes, common_pid at 4).
 * 0, or -EBADMSG. */
int fr_record__time_raw(const struct perf_event_header *h, uint64_t *time, const uint8_t **raw,
			uint32_t *size);

/* sched:sched_process_exec's raw data: the name the kernel gave the task,
 * the basename of its filename cut to 15 bytes (begin_new_exec's
 * __set_task_comm), the pid after exec (the thread group's leader) and the
 * thread that called exec (old_pid). The offsets are the format's fields
 * (filename a __data_loc string). 0, or -EBADMSG for a field that does not
 * fit. */
struct fr_exec_fields {
	uint16_t pid_off, old_pid_off, file_off;
};
int fr_record__exec_name(const uint8_t *raw, uint32_t size, const struct fr_exec_fields *f,
			 uint32_t *pid, uint32_t *old_pid, char comm[16]);

struct fr_task {               /* PERF_RECORD_FORK and PERF_RECORD_EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};
int fr_record__task(const struct perf_event_header *h, struct fr_task *t);

struct fr_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t prot, flags;
	bool has_build_id;
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const char *filename;
};
int fr_record__mmap2(const struct perf_event_header *h, struct fr_mmap2 *m);

struct fr_lost {
	uint64_t id, lost;
};
int fr_record__lost(const struct perf_event_header *h, struct fr_lost *l);

/* Which event a record belongs to when several share a ring: the kernel ids
 * of each event's fds (PERF_EVENT_IOC_ID) to the caller's event index, looked
 * up by the record's PERF_SAMPLE_IDENTIFIER. Used by the recorder (its evlist)
 * and the file reader (the file's events) alike. */
struct fr_idmap;
struct fr_idmap *fr_idmap__new(void);
void fr_idmap__delete(struct fr_idmap *m);
/* Build, then query: map each of ids[0..nr) to index (0 or -ENOMEM), then
 * sort once before the first find (finds may then run from many threads). */
int fr_idmap__add(struct fr_idmap *m, const uint64_t *ids, size_t nr, size_t index);
void fr_idmap__sort(struct fr_idmap *m);
size_t fr_idmap__nr(const struct fr_idmap *m);
/* The index of h's event (sample_type: any of the ring's events; the
 * identifier sits at the same place for all). 0, or -ENOENT when h carries no
 * identifier or an unknown one, -EBADMSG when it is too short. */
int fr_idmap__find(const struct fr_idmap *m, const struct perf_event_header *h,
		   uint64_t sample_type, size_t *index);

/* "SAMPLE", "COMM", "MMAP2", ... or "TYPE<n>". */
const char *fr_record__type_name(uint32_t type);

#endif
