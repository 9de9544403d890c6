/* src/report/pass/report_opts.c: the report's thread filter (--pid, --tid,
 * --comm), which the pass (run.c) and the off-CPU stage (offcpu_in.c) apply.
 */
#include "config.h"

#include <string.h>

#include "src/report/pass/report_opts.h"

static bool in_list(const int *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)list[i] == v)
			return true;
	return false;
}

static bool comm_selected(const struct fr_report_opts *o, const char *comm)
{
	for (size_t i = 0; comm && i < o->nr_comms; i++)
		if (!strcmp(o->comms[i], comm))
			return true;
	return !o->nr_comms;
}

bool fr_report_opts__selects(const struct fr_report_opts *o, uint32_t pid, uint32_t tid,
			     const char *comm)
{
	return (!o->nr_pids || in_list(o->pids, o->nr_pids, pid)) &&
	       (!o->nr_tids || in_list(o->tids, o->nr_tids, tid)) && comm_selected(o, comm);
}
