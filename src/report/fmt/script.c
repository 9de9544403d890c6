/* src/report/fmt/script.c: --format=perf-script: each sample byte for byte as
 * `perf script` prints it with its default fields (the header line, then one
 * tab-indented line per frame and a blank line for events with callchains),
 * which stackcollapse-perf.pl, speedscope and the Firefox Profiler import;
 * with --tod, perf script -F +tod's wall-clock field.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"
#include "src/report/tp/tpdecode.h"

void fr_put_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '_' : *s, f);
}

/* The address perf shows: in the file for user code (its callchains), else
 * as sampled. */
static uint64_t frame_addr(const struct fr_frame *fr, bool in_file)
{
	return in_file && !fr->sym->kernel && fr->vaddr ? fr->vaddr : fr->addr;
}

/* "SYM+0xOFF (DSO)", "[unknown] (DSO)" or "SYM+0xOFF (inlined)". */
static void print_sym(FILE *f, const struct fr_frame *fr)
{
	if (fr->sym->unknown) {
		fputs("[unknown]", f);
	} else {
		fr_put_name(f, fr->sym->name);
		fprintf(f, "+0x%llx", (unsigned long long)fr->off);
	}
	if (fr->sym->inlined) {
		fputs(" (inlined)", f);
		return;
	}
	fputs(" (", f);
	fr_put_name(f, fr->sym->dso);
	fputc(')', f);
}

int fr_script__sample(FILE *f, const struct fr_rsample *s, struct fr_tpdecode *tp,
		      int name_width)
{
	return fr_script__sample_tod(f, s, tp, name_width, NULL);
}

int fr_script__sample_tod(FILE *f, const struct fr_rsample *s, struct fr_tpdecode *tp,
			  int name_width, const struct fr_clock_ref *tod)
{
	const char *name = s->event ? s->event->name : "[unknown]";
	uint64_t st = s->event ? s->event->attr.sample_type : 0;
	bool tracepoint = s->event && s->event->attr.type == PERF_TYPE_TRACEPOINT;
	bool chain = (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)) && s->has_stack;
	char fields[4096];

	/* perf pads the name to 16 only where no callchain follows */
	if (!chain)
		for (size_t n = strlen(s->comm); n < 16; n++)
			fputc(' ', f);
	fr_put_name(f, s->comm);
	fprintf(f, " %5d ", (int)s->tid);   /* perf: a tid of -1 (an exiting task) as -1 */
	if (s->cpu != FR_CPU_NONE)
		fprintf(f, "[%03u] ", s->cpu);
	if (tod) {   /* perf script -F +tod: local time, microseconds */
		char buf[64];

		fr_walltime__format(fr_clock__to_real(tod, s->time), 6, buf, sizeof(buf));
		fprintf(f, "%s ", buf);
	}
	fprintf(f, "%5llu.%06llu: ", (unsigned long long)(s->time / 1000000000ull),
		(unsigned long long)(s->time % 1000000000ull / 1000ull));
	if (!tracepoint && (st & PERF_SAMPLE_PERIOD))
		fprintf(f, "%10llu ", (unsigned long long)s->period);
	fprintf(f, "%*s: ", name_width, name);
	/* the print fmt's text (tpprint.c), or the fields name=value */
	if (s->raw && tp && !fr_tpdecode__text(tp, name, s->raw, s->raw_size, fields, sizeof(fields)))
		fputs(fields, f);
	if (chain) {
		fputc('\n', f);
		for (size_t i = 0; i < s->nr_frames; i++) {
			fprintf(f, "\t%16llx ", (unsigned long long)frame_addr(&s->frames[i], true));
			print_sym(f, &s->frames[i]);
			fputc('\n', f);
		}
	} else if (!tracepoint && s->nr_frames) {
		/* the sampled function, not its inline instances, at the address */
		const struct fr_frame *fr = &s->frames[fr_leaf_frames(s) - 1];

		fprintf(f, " %16llx ", (unsigned long long)frame_addr(fr, false));
		print_sym(f, fr);
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
