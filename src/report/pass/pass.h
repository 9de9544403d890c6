/* src/report/pass/pass.h: what the report's pass (run.c), its outputs
 * (out/), the off-CPU stage (offcpu/), the format writers (fmt/) and the
 * other passes over a file (dump.c, diff.c, archive.c) share, below the
 * front door (report.h): resolved samples and the resolver (stack.c), JIT
 * names (jit.c), the histogram (hist.c), where the output goes (outfile.c),
 * reading ahead, what a file holds and the verdict on it (input.c, held.c).
 * Nothing outside src/report/ and its tests includes it.
 */
#ifndef FR_REPORT_PASS_H
#define FR_REPORT_PASS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ring/record.h"
#include "src/file/file.h"
#include "src/report/pass/report_opts.h"
#include "symbolize/symbolize.h"

#define FR_MAX_FRAMES 1024   /* frames kept per sample, inline frames included */

/* A sample ready for output. Pointers are valid until the next sample. */
struct fr_rsample {
	const struct fr_file_event *event;
	uint32_t pid, tid, cpu;          /* cpu: the stream's CPU */
	uint64_t time, period;
	const char *comm;                /* interned: equal names, equal pointers */
	const struct fr_frame *frames;   /* leaf first */
	size_t nr_frames;
	bool has_stack;                  /* the event records an ip or a callchain */
	const void *raw;                 /* tracepoint data or NULL */
	uint32_t raw_size;
	uint64_t stack_id;               /* not 0: every sample of this id has these frames */
	uint32_t parallelism;            /* the latency view: its process's threads on a CPU
					  * then, itself among them (>= 1); 0: not known */
};

/* The weight of s in the latency view: its period / its parallelism,
 * rounded (its period where the parallelism is not known). */
static inline uint64_t fr_rsample__latency(const struct fr_rsample *s)
{
	return s->parallelism > 1 ? (s->period + s->parallelism / 2) / s->parallelism : s->period;
}

/* ---- stack.c: records to resolved samples ---- */
struct fr_resolver;

/* Reads the file's KSYMS blobs; keeps the process model and the symbolizer. */
int fr_resolver__new(struct fr_reader *rd, const struct fr_symbolizer_opts *so,
		     struct fr_resolver **out);
void fr_resolver__delete(struct fr_resolver *r);
/* Feed a sideband record (COMM, MMAP2, FORK, EXIT; others are ignored). */
int fr_resolver__sideband(struct fr_resolver *r, const struct fr_rec *rec);
/* The name of a thread at a time (":TID" when unknown). */
const char *fr_resolver__comm(struct fr_resolver *r, uint32_t tid, uint64_t time);
/* The process of a thread, as the model last knew it, or 0. */
uint32_t fr_resolver__pid(const struct fr_resolver *r, uint32_t tid);
/* Fill out from a parsed sample; stack: resolve frames (else nr_frames = 0). */
int fr_resolver__sample(struct fr_resolver *r, const struct fr_rec *rec,
			const struct fr_sample *s, bool stack, struct fr_rsample *out);
/* How often a sample's callchain was found resolved in the cache, and how
 * often it was resolved (tests, benchmarks). */
void fr_resolver__cache_stats(const struct fr_resolver *r, uint64_t *hits, uint64_t *misses);
/* on: frames of a callchain's first address only (the sample's own: the
 * leaf and its inline instances); the other addresses are not looked up. */
void fr_resolver__leaf_only(struct fr_resolver *r, bool on);
struct fr_symbolizer *fr_resolver__symbolizer(struct fr_resolver *r);
/* Samples whose user stack could not be unwound past the sampled ip. */
uint64_t fr_resolver__unwind_failures(const struct fr_resolver *r);
/* Kernel addresses were looked up but the file has no kernel symbols. */
bool fr_resolver__missed_ksyms(const struct fr_resolver *r);
/* The mapping that held user address addr of process pid at time, and its
 * file: 0, or -ENOENT when none did. */
int fr_resolver__mapping(struct fr_resolver *r, uint32_t pid, uint64_t time, uint64_t addr,
			 const struct fr_map **map, const struct fr_dso_id **dso);

/* JIT frames named from perf maps, and frames in anonymous memory (JIT
 * code) left unnamed, over the samples resolved so far. */
void fr_resolver__jit_stats(const struct fr_resolver *r, uint64_t *named, uint64_t *unnamed);
const struct fr_jit *fr_resolver__jit(const struct fr_resolver *r);

/* ---- jit.c: JIT code names (perf maps), the resolver's hook ---- */
struct fr_jit_opts {
	bool demangle;           /* C++/Rust names from a map demangled */
	bool local_maps;         /* also maps of pids the file has none of: DIR/jit/perf-PID.map
				  * of each symdir, then /tmp/perf-PID.map */
	const char *const *symdirs;
	size_t nr_symdirs;
};
struct fr_jit;
/* Reads the file's PERFMAP blobs (rd may be NULL); a bad one is damage. */
int fr_jit__new(struct fr_reader *rd, const struct fr_jit_opts *o, struct fr_jit **out);
void fr_jit__delete(struct fr_jit *j);
/* f, a user frame of pid the symbolizer left unknown: named from the perf
 * map entry covering its address, as a function of "[JIT] tid PID", if
 * there is one. 0 or -ENOMEM. */
int fr_jit__name(struct fr_jit *j, uint32_t pid, bool ret, struct fr_frame *f);
/* Count a sample's frames for fr_jit__stats. */
void fr_jit__count(struct fr_jit *j, const struct fr_frame *f, size_t n);
/* How many "[JIT] " symbols j has made (0: fr_jit__count finds none of them). */
size_t fr_jit__nr_syms(const struct fr_jit *j);
void fr_jit__stats(const struct fr_jit *j, uint64_t *named, uint64_t *unnamed);
/* The local maps read so far: the i-th one's pid and path (i < the count
 * returned). */
size_t fr_jit__local_maps(const struct fr_jit *j, size_t i, uint32_t *pid, const char **path);

/* The frames that describe the sampled address itself: frames[0] up to the
 * first frame that is not an inline instance. */
size_t fr_leaf_frames(const struct fr_rsample *s);

/* ---- hist.c: the text report's histogram (its keys and options: report_opts.h) ---- */
struct fr_hist;
int fr_hist__new(const struct fr_hist_opts *o, struct fr_hist **out);
void fr_hist__delete(struct fr_hist *h);
int fr_hist__add(struct fr_hist *h, const struct fr_rsample *s);
uint64_t fr_hist__samples(const struct fr_hist *h);
/* Add src (same options; its samples resolved by another resolver) to dst,
 * a histogram that only ever received merges: 0 or -ENOMEM. src's symbols
 * and names must outlive dst. */
int fr_hist__merge(struct fr_hist *dst, struct fr_hist *src);
/* Each entry once, in no order: its keys as text in the order of the
 * options' keys ("-" where a sample had none), its samples and weight. A
 * non-zero return of cb stops the walk and is returned. */
typedef int (*fr_hist_cb)(void *ctx, const char *const *text, int nr_keys, uint64_t samples,
			  uint64_t weight);
int fr_hist__for_each(struct fr_hist *h, fr_hist_cb cb, void *ctx);
/* The column title of a key: "Shared Object" for FR_KEY_DSO. */
const char *fr_hist__key_header(enum fr_sort_key k);
/* The entries, heaviest first, with a header naming the event. */
int fr_hist__print(struct fr_hist *h, const char *event_name, FILE *f);

/* ---- outfile.c: where the report goes ---- */
struct fr_outfile;
/* path NULL: stdout. Else a temporary file beside path (same directory,
 * O_EXCL, the mode path has or a new file would get), renamed over path by
 * commit and removed by abort or on SIGINT/SIGTERM/SIGHUP/SIGPIPE (those not
 * ignored), so the previous path stays whole until the new one is. Written
 * in place instead, as fopen(path, "w") would: a path that is not a regular
 * file (a device, a FIFO, a dangling symlink), our own stdout or stderr
 * (-o /dev/stdout), an existing file in a directory we may not write. One at
 * a time. 0 or -errno. */
int fr_outfile__open(const char *path, struct fr_outfile **out);
FILE *fr_outfile__stream(const struct fr_outfile *of);
/* -errno of the first failed write (-ENOSPC on a full disk), -EIO if the
 * stream failed otherwise (stdout), 0. */
int fr_outfile__err(const struct fr_outfile *of);
/* Flush, fsync, close, rename over path: 0 or -errno (then path is as it was
 * and the temporary file gone). Frees of. */
int fr_outfile__commit(struct fr_outfile *of);
/* Close and remove the temporary file; path is as it was. Frees of; NULL ok. */
void fr_outfile__abort(struct fr_outfile *of);

/* readahead.c: fr_reader__for_each with the reading (decompression, the
 * merge) in a second thread; cb runs in the caller's thread, records in the
 * same order, each valid during its call. The reader is the second thread's
 * until it returns: cb must not use it. */
int fr_readahead__for_each(struct fr_reader *rd, fr_rec_cb cb, void *ctx);

/* ---- input.c: which file, and opening it ---- */
/* The newest *.frec in dir into out: 0 or -errno (-ENOENT: none). */
int fr_input__newest(const char *dir, char *out, size_t len);
/* Open with one-line errors; returns an exit code. */
int fr_input__open(const char *path, struct fr_reader **rd);
/* Say on stderr what damage the reader found (one line per kind of problem,
 * with a count); returns how many damaged chunks there were. */
size_t fr_input__damage(const struct fr_reader *rd, const char *path);
/* Records the file's chunks hold but that could not be used (no event, a
 * body that does not parse, a CPU id past FR_CPU_MAX), said in one line:
 * true if any (exit 1). */
bool fr_input__say_unusable(const struct fr_reader *rd, const char *path);
/* A stream that writes to f with control bytes (< 0x20 but \n and \t, 0x7f,
 * UTF-8 C1 controls) and invalid UTF-8 escaped as \xNN: names and text from
 * a file reach the terminal through it. Closing it leaves f open. */
FILE *fr_input__escaping(FILE *f);
/* What the file says was lost while recording: the larger of the LOST
 * records' counts (in_records, summed by the caller) and the CPU stats'. */
uint64_t fr_input__lost(const struct fr_reader *rd, uint64_t in_records);
/* Said in one line (exit 1) when anything was lost; false when nothing was. */
bool fr_input__say_lost(const struct fr_reader *rd, const char *path, uint64_t in_records);
/* When a CPU's ring wrapped (FR_CPU_FULL: the kernel overwrote older
 * records), a one-line note of the span kept versus the span recorded
 * (record_start_ns to snapshot_time_ns); false when none wrapped. */
bool fr_input__wrap_note(struct fr_reader *rd, char *buf, size_t len);
/* The CPUs that went offline while recording (META cpu_offline) and those
 * that came online after its start (cpu_not_recorded), as one line. */
bool fr_input__hotplug_note(struct fr_reader *rd, char *buf, size_t len);
/* META cpu_offline's gaps, at most max (*bad: the list stopped at what does
 * not parse); a recorder keeps 20. */
#define FR_CPU_GAPS_MAX 32
struct fr_cpu_gap {
	uint32_t cpu;
	uint64_t from, to;    /* to 0: still offline at the file's end */
};
size_t fr_input__cpu_gaps(struct fr_reader *rd, struct fr_cpu_gap *out, size_t max, bool *bad);
/* A file without its END that is still being written: a writer holds it
 * open (fr_reader__being_written; recorder_pid in the meta only names it).
 * True with a note. */
bool fr_input__live(struct fr_reader *rd, char *buf, size_t len);
/* What a pass over the file (report, dump, diff) leaves to say about its
 * input, said, and the exit code it makes, in two parts a command may put
 * its own checks between. The walk: its error walk_err (a corrupt chunk),
 * damaged chunks, a truncated file (a live one's said as a note): FR_EXIT_OK
 * or FR_EXIT_PARTIAL; did: what the pass did with the records before the
 * damage ("reported"). The content: tracepoint records whose fields lie
 * outside them (tp, or NULL), records that could not be used, records lost
 * (lost: the LOST records' counts the pass summed): FR_EXIT_OK or
 * FR_EXIT_PARTIAL. fr_input__verdict is both, in that order. */
struct fr_tpdecode;
/* The decoder of rd's tracepoint events, each format of the file added
 * (one refused is said by fr_tpdecode__say). 0 or -ENOMEM. */
int fr_input__tpdecode(struct fr_reader *rd, struct fr_tpdecode **out);
int fr_input__walk_verdict(struct fr_reader *rd, const char *path, int walk_err, const char *did);
int fr_input__content_verdict(struct fr_reader *rd, const char *path, struct fr_tpdecode *tp,
			      uint64_t lost);
int fr_input__verdict(struct fr_reader *rd, const char *path, int walk_err,
		      struct fr_tpdecode *tp, uint64_t lost, const char *did);
/* The file's trigger in one line (the text header's): for an event, the
 * event, thread and CPU; for a latency pair, the thread, the pair and its
 * latency. false: no trigger, or one of another source (META trigger says
 * it). Values from the file kept printable. */
bool fr_input__trigger_note(struct fr_reader *rd, char *buf, size_t len);
/* trigger_time_ns of the file's first TRIGGER blob: false when none. */
bool fr_input__trigger_time(struct fr_reader *rd, uint64_t *ns);
/* Each "key=value" line of the file's (first) trigger, as it stands (neither
 * NUL-terminated: klen and vlen bytes); lines without '=' skipped. A
 * non-zero return of cb stops the walk and is returned; 0 where there is
 * no trigger. */
typedef int (*fr_trigger_cb)(void *ctx, const char *key, size_t klen, const char *val,
			     size_t vlen);
int fr_input__trigger_each(struct fr_reader *rd, fr_trigger_cb cb, void *ctx);
/* The span of the file's records, from its CPU stats (0, 0 when none). */
void fr_input__window(struct fr_reader *rd, uint64_t *first, uint64_t *last);
/* sel resolved against the file (its span, trigger, clock pair): 0, or
 * -EINVAL with *why. */
int fr_input__time_ranges(struct fr_reader *rd, const struct fr_timesel *sel,
			  struct fr_time_ranges *out, const char **why);

/* ---- held.c: what a file holds ---- */
/* Say in one line what path holds (its samples' span, the processes with the
 * most samples, by name) when the filters selected none. Returns
 * FR_EXIT_PARTIAL. */
int fr_held__say(const char *path, const struct fr_symbolizer_opts *so);

#endif
