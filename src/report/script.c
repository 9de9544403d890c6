/* src/report/script.c: --format=perf-script: each sample in the text layout
 * of `perf script` (header line, then one tab-indented line per frame, then a
 * blank line), which stackcollapse-perf.pl, speedscope and the Firefox
 * Profiler import.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "src/report/report.h"
#include "src/report/tpdecode.h"

void fr_put_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '_' : *s, f);
}

static void print_frame(FILE *f, const struct fr_frame *fr)
{
	uint64_t addr = fr->sym->kernel || !fr->vaddr ? fr->addr : fr->vaddr;

	fprintf(f, "\t%16llx ", (unsigned long long)addr);
	fr_put_name(f, fr->sym->name);
	if (fr->sym->inlined) {
		fputs(" (inlined)\n", f);
		return;
	}
	if (!fr->sym->unknown)
		fprintf(f, "+0x%llx", (unsigned long long)fr->off);
	fprintf(f, " (%s)\n", fr->sym->dso);
}

int fr_script__sample(FILE *f, const struct fr_rsample *s, struct fr_tpdecode *tp)
{
	const char *name = s->event ? s->event->name : "unknown";
	char fields[4096];

	fr_put_name(f, s->comm);
	fprintf(f, " %5u/%-5u [%03u] %5llu.%06llu: ", s->pid, s->tid,
		s->cpu == FR_CPU_NONE ? 0 : s->cpu, (unsigned long long)(s->time / 1000000000ull),
		(unsigned long long)(s->time % 1000000000ull / 1000ull));
	if (s->event && (s->event->attr.sample_type & PERF_SAMPLE_PERIOD))
		fprintf(f, "%10llu ", (unsigned long long)s->period);
	fprintf(f, "%s: ", name);
	if (s->raw && tp && !fr_tpdecode__fields(tp, name, s->raw, s->raw_size, fields,
						 sizeof(fields)))
		fputs(fields[0] == ' ' ? fields + 1 : fields, f);
	fputc('\n', f);
	for (size_t i = 0; i < s->nr_frames; i++)
		print_frame(f, &s->frames[i]);
	if (s->nr_frames)
		fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
