/* src/report/out/output.c: the table of output formats, found by name. A
 * new format is one out_*.c file (its row) and its line here.
 */
#include "config.h"
#include "src/report/out/output.h"

#include <string.h>

extern const struct fr_output_ops fr_output_text, fr_output_folded, fr_output_flame,
	fr_output_html, fr_output_pprof, fr_output_otlp, fr_output_script, fr_output_json,
	fr_output_waits, fr_output_critpath;

/* In the order --help and a usage error list them. */
static const struct fr_output_ops *const rows[] = {
	&fr_output_text, &fr_output_folded, &fr_output_flame, &fr_output_html,
	&fr_output_pprof, &fr_output_otlp, &fr_output_script, &fr_output_json, &fr_output_waits,
	&fr_output_critpath,
};

#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

const struct fr_output_ops *fr_output__find(const char *name)
{
	if (!name)
		return &fr_output_text;
	for (size_t i = 0; i < NR_ROWS; i++)
		if (!strcmp(rows[i]->name, name))
			return rows[i];
	return NULL;
}

const struct fr_output_ops *fr_output__at(size_t i)
{
	return i < NR_ROWS ? rows[i] : NULL;
}
