/* tests/fuzz/fuzz_record.c: the ring record decoder (ring/record.h), and an
 * offcpu sample's raw data (src/file/waitstack.h). Input: u64 sample_type,
 * u64 regs mask, then one record (its header's size is set to the bytes
 * given, rounded down to 8, as the file reader guarantees). Every pointer a
 * parser returns must lie inside the record: touched here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ring/record.h"
#include "src/file/waitstack.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

/* The raw data as an offcpu sample's (record --off-cpu-thresh). */
static void offcpu(const struct fr_sample *s)
{
	struct fr_offcpu_switch sw;
	struct fr_offcpu_batch b;
	struct fr_wait_stack w;
	uint64_t t;

	if (!fr_offcpu_switch__parse(s->raw, s->raw_size, &sw))
		sink += sw.next_tid + sw.prev_tid + sw.delay_ns + (uint64_t)sw.state;
	if (!fr_offcpu_batch__parse(s->raw, s->raw_size, &b))
		while (!fr_offcpu_batch__next(&b, &sw, &t))
			sink += t + sw.next_tid + sw.prev_tid + sw.delay_ns + (uint64_t)sw.state;
	if (!fr_wait_stack__parse(s->raw, s->raw_size, &w)) {
		touch(w.kernel, (size_t)w.nr_kernel * 8);
		touch(w.user, (size_t)w.nr_user * 8);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header *h;
	uint64_t st, regs, v;
	struct fr_sample s;
	struct fr_comm c;
	struct fr_task t;
	struct fr_mmap2 m;
	struct fr_lost l;
	size_t n;

	if (size < 16 + sizeof(*h))
		return 0;
	memcpy(&st, data, 8);
	memcpy(&regs, data + 8, 8);
	n = (size - 16) & ~(size_t)7;
	if (n > 65528)
		n = 65528;
	h = malloc(n);  /* exactly the record: ASan sees any read past it */
	if (!h)
		return 0;
	memcpy(h, data + 16, n);
	h->size = (uint16_t)n;
	if (!fr_record__parse_sample(h, st, regs, &s)) {
		uint32_t pid;

		touch(s.ips, s.nr_ips * 8);
		touch(s.raw, s.raw_size);
		touch(s.regs, (size_t)s.nr_regs * 8);
		touch(s.stack, s.stack_size);
		offcpu(&s);
		/* the pid fast path agrees with the full decode */
		if (h->type == PERF_RECORD_SAMPLE && s.has_tid &&
		    (fr_record__pid(h, st, &pid) || pid != s.pid))
			abort();
	}
	{
		uint32_t pid;

		if (!fr_record__pid(h, st, &pid))
			sink += pid;
	}
	if (!fr_record__parse_id(h, st, &s))
		sink += s.id + s.time;
	if (!fr_record__time(h, st, &v))
		sink += v;
	if (!fr_record__identifier(h, st, &v))
		sink += v;
	if (!fr_record__comm(h, &c))
		touch(c.comm, strlen(c.comm));
	if (!fr_record__task(h, &t))
		sink += t.pid;
	if (!fr_record__mmap2(h, &m))
		touch(m.filename, strlen(m.filename));
	if (!fr_record__lost(h, &l))
		sink += l.lost;
	{
		/* a name tracepoint's sample (TIME|RAW), its exec fields at
		 * offsets the input chose, and the COMM made of it */
		struct fr_exec_fields f = { (uint16_t)st, (uint16_t)(st >> 16), (uint16_t)(st >> 32) };
		const uint8_t *raw;
		uint32_t rsize, pid, old_pid;
		uint64_t rec[16];
		char comm[16];

		if (!fr_record__time_raw(h, &v, &raw, &rsize)) {
			touch(raw, rsize);
			if (!fr_record__exec_name(raw, rsize, &f, &pid, &old_pid, comm)) {
				if (strlen(comm) > 15)
					abort();
				if (fr_record__make_comm(rec, sizeof(rec), pid, old_pid, comm, 0, regs, v) < 0)
					abort();   /* 15 bytes and every trailer field fit */
				if (fr_record__comm((void *)rec, &c) || strcmp(c.comm, comm))
					abort();
			}
		}
	}
	{
		/* a sample ring's sideband record retrailed: within its buffer,
		 * the same body, and the time that fr_record__time gave */
		size_t cap = (size_t)(regs % 65544);
		uint8_t *out = malloc(cap ? cap : 1);
		uint64_t t1, t2;
		int r;

		if (out) {
			r = fr_record__retrail_time(h, st, out, cap);
			if (r > 0) {
				const struct perf_event_header *o = (const void *)out;

				if ((size_t)r > cap || o->size != r || o->type != h->type ||
				    fr_record__time(h, st, &t1) || fr_record__time(o, PERF_SAMPLE_TIME, &t2) ||
				    t1 != t2 || memcmp(out + 8, (const uint8_t *)h + 8, (size_t)r - 16))
					abort();
			}
			free(out);
		}
	}
	sink += fr_record__id_size(st);
	free(h);
	return 0;
}
