/* src/report/fmt/profile_internal.h: the profile dictionary that the pprof
 * writer (pprof.c) and the OTLP writer (otlp.c) both encode, built by
 * profile.c: strings, mappings, functions, locations with their lines (as
 * pprof's messages), and the samples: per event slot, thread name, process
 * and stack, with each occurrence's time where the writer needs them.
 */
#ifndef FR_REPORT_FMT_PROFILE_INTERNAL_H
#define FR_REPORT_FMT_PROFILE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hmap.h"
#include "src/report/fmt/fmt.h"
#include "src/report/fmt/profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

struct fkey {                  /* what makes a Function: the symbol and its source file */
	const struct fr_sym *sym;
	const char *file;
};

struct mstate {                /* what a Mapping's locations have, for its has_* fields */
	bool kernel, funcs, files, lines;
	uint64_t lo, hi;           /* kernel: the addresses seen (its range) */
};

struct sid {                   /* a callchain the resolver gave an id: its Sample */
	uint64_t stack_id;
	int64_t thread, pid;
	uint32_t slot, sample;
};

struct occ {                   /* one sample or wait as it happened (timed dictionaries) */
	uint32_t sample;
	uint64_t time;             /* event clock */
	int64_t period;
};

#define VALUES 4   /* per sample: samples/count, cpu (or the event), off_cpu/nanoseconds,
		    * latency (--latency: period / parallelism) */

struct fr_pprof {
	/* strings, mappings, functions, locations, samples, stack ids -> index */
	struct fr_hmap strs, maps_index, funcs_index, locs_index, samples_index, sids_index;
	char **strings;
	size_t nr_strings, strings_cap;
	struct fkey *fkeys;        /* of each function */
	size_t fkeys_cap;
	Function *funcs;           /* ids from 1: funcs[id - 1]; so for the others */
	Location *locs;
	size_t *loc_line;          /* each location's first line */
	Line *lines;
	size_t nr_funcs, funcs_cap, nr_locs, locs_cap, loc_line_cap, nr_lines, lines_cap;
	Mapping *maps;             /* build_id: a string index (hex), 0: none */
	struct mstate *mst;
	size_t nr_maps, maps_cap, mst_cap;
	Sample *samples;
	Label *labels;             /* each sample's thread name (key "thread") */
	int64_t *values;           /* VALUES per sample: samples, cpu, off_cpu ns, latency */
	bool off_cpu;              /* a wait was added: the off_cpu sample type */
	bool latency;              /* a sample had its parallelism: the latency type */
	uint64_t **loc_ids;
	size_t nr_samples, samples_cap, labels_cap, values_cap, loc_ids_cap;
	/* timed (fr_pprof__new_timed): samples apart per event slot and process */
	bool timed;
	uint32_t *slots;           /* each sample's slot */
	int64_t *pids;             /* its process, and that process's name (a string) */
	int64_t *exes;
	size_t slots_cap, pids_cap, exes_cap;
	struct occ *occ;           /* every occurrence, in the order added */
	size_t nr_occ, occ_cap;
	struct sid *sids;
	size_t nr_sids, sids_cap;
	uint64_t ids[FR_MAX_FRAMES];     /* one sample's locations */
	uint64_t fids[FR_MAX_FRAMES];    /* one location's functions */
	int64_t thread_key;
};

/* The index of s in the string table, added on first use (-ENOMEM). */
int64_t fr_pprof__str(struct fr_pprof *p, const char *s);
/* e is cpu-clock or task-clock: its period is nanoseconds of CPU. */
bool fr_pprof__clock_event(const struct fr_file_event *e);
/* The events between two samples of e: its period, or the clock's at its
 * frequency (ns); 0 where unknown. */
int64_t fr_pprof__period(const struct fr_file_event *e);
/* Each mapping's has_* fields from what its locations have; the kernel's
 * range from the addresses seen. */
void fr_pprof__finish_mappings(struct fr_pprof *p, bool inline_frames);

#endif
