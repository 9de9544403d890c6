/* src/report/out/output.c: the table of output formats: fmt to its row. A new
 * format is one out_*.c file, a row here and its name in src/cmd_report.c.
 */
#include "config.h"
#include "src/report/out/output.h"

const struct fr_output_ops *fr_output__of(enum fr_report_fmt fmt)
{
	static const struct fr_output_ops *const rows[] = {
		[FMT_TEXT] = &fr_output_text,   [FMT_FOLDED] = &fr_output_folded,
		[FMT_SCRIPT] = &fr_output_script, [FMT_JSON] = &fr_output_json,
		[FMT_FLAME] = &fr_output_flame, [FMT_HTML] = &fr_output_html,
		[FMT_PPROF] = &fr_output_pprof,
	};

	return (unsigned)fmt < sizeof(rows) / sizeof(rows[0]) && rows[fmt] ? rows[fmt]
									   : &fr_output_text;
}
