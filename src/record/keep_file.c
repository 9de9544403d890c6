/* src/record/keep_file.c: record --keep in a session: the forward readers
 * started into the in-memory window (keep.c), and a snapshot's samples: the
 * window's chunks written as they are, no recompression.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/record/internal.h"

int fr_session__keep_start(struct fr_session *s)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_forward_opts fo = { .zstd_level = s->o.zstd_level, .flush_ms = s->o.flush_ms,
				      .reader_cpus = s->o.reader_cpus,
				      .nr_reader_cpus = s->o.nr_reader_cpus,
				      .unpinned = s->o.readers_unpinned,
				      .own = s->o.readers_own };
	int err;

	fr_session__load_ksyms(s);   /* before the readers note addresses in it */
	fr_kallsyms__sticky(s->ksyms);   /* a chunk goes into every snapshot it is kept for */
	s->keep_drops = calloc(ncpu, sizeof(*s->keep_drops));
	if (!s->keep_drops)
		return -ENOMEM;
	err = fr_keep__new(ncpu, s->o.keep_ns, s->o.keep_bytes, &s->keep);
	if (err)
		return err;
	fo.keep = s->keep;
	return fr_forward__start(s->el, -1, &fo, fr_session_forward_record, s, &s->fwd);
}

uint64_t fr_session__keep_ns(const struct fr_session *s)
{
	return s->keep ? s->o.keep_ns : 0;
}

int fr_session_keep_begin(struct fr_session *s)
{
	int err = s->fwd ? fr_forward__sync(s->fwd, s->keep_drops) : 0;

	if (err)
		return err;
	return fr_keep__view(s->keep, &s->keep_view);
}

void fr_session_keep_end(struct fr_session *s)
{
	fr_keep_view__release(s->keep, s->keep_view);
	s->keep_view = NULL;
}

int fr_session_keep_samples(struct fr_session *s, struct fr_writer *w, size_t ci, uint64_t cutoff,
			    struct fr_cpu_stat *cs, struct fr_snapshot_stats *st)
{
	size_t n = fr_keep_view__nr(s->keep_view, ci);
	struct fr_keep_cpu kc;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const struct fr_keep_chunk *c = fr_keep_view__chunk(s->keep_view, ci, i);

		if (cutoff && c->last_ns < cutoff) {
			st->dropped_by_window += c->nr_records;   /* whole chunks only */
			continue;
		}
		err = fr_writer__raw_chunk(w, c->data, c->len);
		if (c->first_ns && !cs->first_time)
			cs->first_time = c->first_ns;
		if (c->last_ns)
			cs->last_time = c->last_ns;
		cs->nr_samples += c->nr_records;
		cs->lost_records += c->lost;
	}
	fr_keep__cpu(s->keep, ci, &kc);
	st->keep = true;
	st->keep_held += kc.bytes;
	st->keep_evicted += kc.evicted_records;
	st->keep_size_evicted += kc.evicted_by_size;
	if (kc.evicted_chunks)
		cs->flags |= FR_CPU_FULL;   /* older records were dropped from the window */
	return err;
}
