/* src/cmd_list.c: `flightrec list [GLOB]`: the events this machine can
 * record, as perf list prints them; one call: fr_event__list (ring/event.c).
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/cli.h"
#include "ring/event.h"

struct list_opts {
	const char *glob;
	int usage_err;
};

static error_t list_parse(int key, char *arg, struct argp_state *st)
{
	struct list_opts *o = st->input;

	switch (key) {
	case ARGP_KEY_ARG: fr_cli__one_arg(&o->glob, arg, "pattern", &o->usage_err); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int print_event(void *ctx, const char *name, enum fr_event_kind kind, bool supported)
{
	static const char *const what[] = { "Tracepoint event", "Software event",
					    "Hardware event" };

	(void)ctx;
	printf("  %-48s [%s]%s\n", name, what[kind],
	       supported ? "" : " (not supported on this machine)");
	return ferror(stdout) ? -EIO : 0;
}

int cmd_list(int argc, char **argv)
{
	static const char doc[] =
		"List the events flightrec can record, as perf list does: hardware events "
		"(marked when this machine has no PMU for them), software events, and the "
		"tracepoints in tracefs (found, or mounted). GLOB (fnmatch, e.g. "
		"'syscalls:sys_enter_rea*' or 'sched:*') keeps the names it matches; "
		"matching nothing prints nothing.\v"
		"Exit codes: 0 ok (also when nothing matched); 1 tracefs could not be found or "
		"mounted (the other events were listed); 2 runtime error; 64 usage.";
	static const struct argp_option opts[] = { { 0 } };
	struct argp a = { opts, list_parse, "[GLOB]", doc, NULL, NULL, NULL };
	struct list_opts o = { 0 };
	int r = fr_parse_args(&a, argc, argv, "flightrec list", &o), err;

	if (r)
		return r < 0 ? FR_EXIT_OK : r;
	if (o.usage_err)
		return FR_EXIT_USAGE;
	err = fr_event__list(o.glob, print_event, NULL);
	if (fflush(stdout) || (err && err != -ENODEV)) {
		fr_err("list", "%s", strerror(err && err != -ENODEV ? -err : EIO));
		return FR_EXIT_ERROR;
	}
	if (err == -ENODEV) {
		fr_err("tracefs", "not found and could not be mounted: tracepoints not listed");
		return FR_EXIT_PARTIAL;
	}
	return FR_EXIT_OK;
}
