/* src/report/fmt/fmt.h: the format writers, which the outputs (out/), the
 * off-CPU stage (offcpu/) and diff.c write with: folded stacks, perf-script,
 * JSON, flame graphs, the HTML page, pprof and OTLP (resolved samples:
 * pass/pass.h).
 */
#ifndef FR_REPORT_FMT_H
#define FR_REPORT_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/report/pass/pass.h"

/* ---- folded.c: FlameGraph's collapsed stacks ---- */
struct fr_folded;
int fr_folded__new(bool period, struct fr_folded **out);
void fr_folded__delete(struct fr_folded *fo);
int fr_folded__add(struct fr_folded *fo, const struct fr_rsample *s);
/* "comm;root;...;leaf count" lines, sorted. */
int fr_folded__print(struct fr_folded *fo, FILE *f);
/* The same with each weight divided by div, rounded (ns to us: 1000). */
int fr_folded__print_scaled(struct fr_folded *fo, uint64_t div, FILE *f);
/* Each distinct stack once, in the order first added: frames leaf first; weight is
 * samples, or period when made with period. A non-zero return of cb stops
 * the walk and is returned. */
typedef int (*fr_folded_cb)(void *ctx, const char *comm, const struct fr_sym *const *frames,
			    size_t n, uint64_t weight, uint64_t samples, uint64_t period);
int fr_folded__for_each(struct fr_folded *fo, fr_folded_cb cb, void *ctx);
uint64_t fr_folded__total(const struct fr_folded *fo);   /* sum of the weights */

/* ---- script.c: perf script's text layout ---- */
struct fr_tpdecode;
/* One sample as `perf script` prints it; name_width: the longest event name
 * of the file (perf aligns the names to it). */
int fr_script__sample(FILE *f, const struct fr_rsample *s, struct fr_tpdecode *tp,
		      int name_width);
/* The same with perf script's -F +tod field (the local wall-clock time,
 * microseconds) before the time, when tod is not NULL. */
int fr_script__sample_tod(FILE *f, const struct fr_rsample *s, struct fr_tpdecode *tp,
			  int name_width, const struct fr_clock_ref *tod);
/* Print a name with control characters (line breaks, tabs) as '_'. */
void fr_put_name(FILE *f, const char *s);

/* ---- json.c: Chrome trace event format ---- */
struct fr_json;
int fr_json__new(FILE *f, struct fr_tpdecode *tp, struct fr_json **out);
int fr_json__sample(struct fr_json *j, const struct fr_rsample *s);
/* The running slices are not made from sched_switch here: the caller gives
 * every state slice (the off-CPU stage), one source, so that none overlaps. */
void fr_json__no_running(struct fr_json *j);
/* tid left the CPU at at (a wait's start, its exit): its flame chart's
 * frames end there, within its running slice. */
void fr_json__switched_out(struct fr_json *j, uint32_t tid, uint64_t at);
/* Where tid's open frames end (its last sample's period), 0: none open. */
uint64_t fr_json__frames_end(struct fr_json *j, uint32_t tid);
/* A thread state slice ("running", "sleeping", ...; cat "sched") from..to ns. */
int fr_json__slice(struct fr_json *j, const char *name, uint32_t pid, uint32_t tid, uint64_t from,
		   uint64_t to);
/* A flow arrow (Chrome trace flow events, cat "wakeup") from the waker's
 * thread to the thread it woke, both at time at; id: unique per arrow. */
int fr_json__flow(struct fr_json *j, uint64_t id, uint32_t from_pid, uint32_t from_tid,
		  uint32_t to_pid, uint32_t to_tid, uint64_t at);
/* Writes the stack frames, thread names and the closing brackets; frees j. */
int fr_json__finish(struct fr_json *j, const char *file_name);
void fr_json__delete(struct fr_json *j);
/* A JSON string literal of s (quotes included), invalid UTF-8 replaced. */
void fr_json__string(FILE *f, const char *s);
/* The same for a <script> of an HTML page: < > & as \u escapes. */
void fr_json__string_html(FILE *f, const char *s);
/* The length of the UTF-8 sequence at p, 0 if it is not a valid one. */
size_t fr_utf8_len(const unsigned char *p);

/* ---- flame.c: the flame graph as one interactive SVG ---- */
struct fr_flame_opts {
	const char *title;       /* NULL: "Flame Graph" */
	const char *unit;        /* what the weights count: "samples" */
	unsigned width;          /* px, 0: 1200 */
	bool standalone;         /* an SVG file (XML declaration), not inlined in HTML */
	/* NULL: a warm colour from each frame's name. Else the frame's fill
	 * into rgb (0..255) from its path (path[0] "all", then the thread's
	 * name, then the frames outermost first; n names) and weight, and a note
	 * for its title (note[0] = 0: none); used by `flightrec diff`. */
	void (*fill)(void *ctx, const char *const *path, size_t n, uint64_t weight,
		     unsigned rgb[3], char *note, size_t note_len);
	void *fill_ctx;
};
/* The folded stacks as a flame graph: root "all", then the thread's name,
 * then frames outermost first; siblings in name order. */
int fr_flame__svg(struct fr_folded *fo, const struct fr_flame_opts *o, FILE *f);
/* The graphs of the events i with fo[i], titled with names[i], one under the
 * other in one SVG (one: as fr_flame__svg; none: the empty none's). */
int fr_flame__svgs(struct fr_folded *const *fo, const char *const *names, size_t n,
		   struct fr_folded *none, const struct fr_flame_opts *o, FILE *f);
/* s as XML text: & < > " ' escaped, control characters '_', bad UTF-8 U+FFFD. */
void fr_xml__string(FILE *f, const char *s);

/* ---- html.c: one HTML page: timeline, flame graph, tables by range ---- */
struct fr_timeline;
/* Bins [t0, t1] for the CPUs 0..nr_cpus-1; by_period: the folded event's
 * weights are periods, else samples. */
int fr_timeline__new(uint64_t t0, uint64_t t1, uint32_t nr_cpus, bool by_period,
		     struct fr_timeline **out);
void fr_timeline__delete(struct fr_timeline *tl);
/* Count one sample (tracepoint: an event) for its CPU and thread at time;
 * fold: one of the flame graph's event, its stack kept for the page's script.
 * 0 or -ENOMEM. */
int fr_timeline__add(struct fr_timeline *tl, const struct fr_rsample *s, uint64_t time,
		     bool tracepoint, bool fold);
/* An off-CPU wait (s->time its start, s->period its ns, frames leaf first
 * with the state frame outermost): its weight into the page's cells of the
 * bins it spans, in proportion (a range over a stall shows its waits). */
int fr_timeline__wait(struct fr_timeline *tl, const struct fr_rsample *s);
/* A LOST record: marked on its CPU's row at its time (the first 64). */
void fr_timeline__lost(struct fr_timeline *tl, uint32_t cpu, uint64_t time, uint64_t lost);
/* A CPU offline from..to (to 0: to the end): a grey band on its rows. */
void fr_timeline__offline(struct fr_timeline *tl, uint32_t cpu, uint64_t from, uint64_t to);
/* The page's script (html_js.c). */
extern const char fr_html_script[];
struct fr_html_info {
	const char *file, *event, *unit;
	uint64_t samples;
	bool has_trigger;
	uint64_t trigger_ns;
	uint64_t t0, t1;       /* the page's time axis (set by fr_html__write: its
				* timeline's), which more() draws on too */
	/* more of the page after the CPU timeline (report --off-cpu's thread
	 * states), or NULL */
	int (*more)(void *ctx, FILE *f, const struct fr_html_info *in);
	void *more_ctx;
};
int fr_html__write(FILE *f, const struct fr_html_info *in, const struct fr_timeline *tl,
		   struct fr_folded *fo);
/* The geometry of the page's timelines: width, left margin (labels), the
 * x of a time on the axis [t0, t1]. */
#define FR_HTML_TL_W 1200
#define FR_HTML_LEFT 150

/* ---- profile.c: the profile dictionary that pprof.c and otlp.c encode ---- */
struct fr_pprof;
int fr_pprof__new(struct fr_pprof **out);
/* Timed: samples apart per event slot and process, every occurrence's time
 * kept (the OTLP writer's). */
int fr_pprof__new_timed(struct fr_pprof **out);
void fr_pprof__delete(struct fr_pprof *p);
/* Add a sample of res (its frames' mappings come from res's process model). */
int fr_pprof__add(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s);
/* Add a wait of --off-cpu (s->period: its ns) as the off_cpu/nanoseconds
 * sample type, which the profile then has third. */
int fr_pprof__add_off_cpu(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s);
/* Either, into slot (timed: one profile per slot; otherwise slots are one). */
int fr_pprof__add_to(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s,
		     uint32_t slot, bool off_cpu);

/* ---- pprof.c: profile.proto, gzipped ---- */
struct fr_pprof_info {
	const struct fr_file_event *event;   /* the sampled event (sample types) */
	uint64_t time_ns, duration_ns;        /* time: wall clock (epoch) */
	bool inline_frames;                  /* inline instances were resolved */
};
/* The profile, gzipped, written to f: 0, -ENOMEM or -EIO (a failed write:
 * ferror(f)). */
int fr_pprof__write(struct fr_pprof *p, FILE *f, const struct fr_pprof_info *in);

/* ---- otlp.c: the OTLP profiles signal (doc/otlp.md) ---- */
struct fr_clock_ref;
struct fr_otlp_attr {          /* an attribute: a string, or a number where str is NULL */
	const char *key, *str;
	int64_t num;
};
struct fr_otlp_slot {          /* what a slot of a timed dictionary holds: one profile */
	const struct fr_file_event *event;   /* its event (sample type, period) */
	bool off_cpu;                        /* the off-CPU waits (off_cpu/nanoseconds) */
};
struct fr_otlp_info {
	const struct fr_otlp_slot *slots;
	size_t nr_slots;
	const struct fr_clock_ref *clock;    /* event clock to wall clock; NULL: no timestamps */
	uint64_t t0, t1;                     /* the window (event clock) */
	const struct fr_otlp_attr *resource, *attrs;   /* the host's; each profile's (the trigger) */
	size_t nr_resource, nr_attrs;
	const char *scope_version;
	const void *original;                /* the recorded file as original_payload, or NULL */
	size_t original_len;
	bool inline_frames;
};
/* An ExportProfilesServiceRequest of p (timed) written to f: one resource,
 * one scope, a profile per slot that has samples, the dictionary shared.
 * 0, -ENOMEM, -EOVERFLOW (a table past int32) or -EIO (a failed write). */
int fr_otlp__write(struct fr_pprof *p, FILE *f, const struct fr_otlp_info *in);

#endif
