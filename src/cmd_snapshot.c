/* src/cmd_snapshot.c: `flightrec snapshot`: find the running recorder by name
 * in the run directory, ask it to write its window, print the new file's path.
 */
#include "config.h"
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "src/record/control.h"
#include "src/cli.h"
#include "src/util.h"

enum { OPT_NAME = 1000, OPT_RUN_DIR, OPT_TIMEOUT, OPT_AFTER };

struct snap_opts {
	const char *name, *run_dir;
	uint64_t timeout_s;
	uint64_t after_ns;
	int usage_err;
};

static const struct argp_option snap_options[] = {
	{ "name", OPT_NAME, "NAME", 0, "the recorder's name (default: the only one running; "
	  "with several, they are listed)", 0 },
	{ "run-dir", OPT_RUN_DIR, "DIR", 0, "where control sockets live (default /run/flightrec, "
	  "or $FLIGHTREC_RUN_DIR)", 0 },
	{ "timeout", OPT_TIMEOUT, "SECONDS", 0, "how long to wait for the file, after --after "
	  "(default 60)", 0 },
	{ "after", OPT_AFTER, "DURATION", 0, "keep recording DURATION (e.g. 5s) after this "
	  "trigger, then write: the window before and after it", 0 },
	{ 0 }
};

static error_t snap_parse(int key, char *arg, struct argp_state *st)
{
	struct snap_opts *o = st->input;

	switch (key) {
	case OPT_NAME: o->name = arg; break;
	case OPT_RUN_DIR: o->run_dir = arg; break;
	case OPT_TIMEOUT:
		if (fr_parse__u64(arg, 1, 3600, &o->timeout_s)) {
			fr_err("--timeout", "expected seconds, 1..3600");
			o->usage_err = 1;
		}
		break;
	case OPT_AFTER:
		if (fr_parse__duration(arg, &o->after_ns) || o->after_ns > FR_CONTROL_MAX_AFTER_NS) {
			fr_err("--after", "expected a duration like 5s or 500ms (at most 1h)");
			o->usage_err = 1;
		}
		break;
	case ARGP_KEY_ARG:
		fr_err(arg, "unexpected argument");
		o->usage_err = 1;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp snap_argp = {
	snap_options, snap_parse, NULL,
	"Ask a running recorder to write its window to a new file, and print its path.\v"
	"Examples:\n"
	"  flightrec snapshot                (the only recorder running)\n"
	"  flightrec snapshot --name web\n"
	"  flightrec snapshot --after 5s     (5 s more, then the file)\n\n"
	"Only a recorder run by root or by you is trusted: the run directory, the socket\n"
	"and the process behind it must belong to root or to you.\n\n"
	"Exit codes: 0 file written; 2 no recorder runs, it could not write, or the run\n"
	"directory, socket or recorder is not trusted; 64 usage.",
	NULL, NULL, NULL
};

/* No --name: the only recorder running, else the list of them (exit 64).
 * Returns an exit code, 0 with *name set. */
static int pick_recorder(const char *dir, const char **name)
{
	static char names[16][FR_CONTROL_NAME_MAX];
	pid_t pids[16];
	const char *why = NULL;
	int n = fr_control__list(dir, names, 16, pids, &why);

	*name = "default";
	if (n < 0 && why) {
		fr_err(dir, "not trusted: %s", why);
		return FR_EXIT_ERROR;
	}
	if (n <= 0) {
		fr_err("snapshot", "no recorder is running (no live socket in %s)", dir);
		return FR_EXIT_ERROR;
	}
	if (n == 1) {
		*name = names[0];
		return FR_EXIT_OK;
	}
	fr_err("snapshot", "%d recorders are running; pick one with --name:", n);
	for (int i = 0; i < n && i < 16; i++)
		fprintf(stderr, "  %s (pid %d)\n", names[i], (int)pids[i]);
	return FR_EXIT_USAGE;
}

static bool waited;

/* On a terminal: how long the recorder has been writing (big rings, --after). */
static void show_wait(uint64_t ms)
{
	waited = true;
	fprintf(stderr, "\rflightrec: snapshot: waiting for the recorder: %llu s",
		(unsigned long long)(ms / 1000));
}

int cmd_snapshot(int argc, char **argv)
{
	struct snap_opts o = { .timeout_s = 60 };
	const char *dir, *why = NULL, *text;
	char reply[4200], req[64];
	size_t text_len;
	uint64_t wait_ms;
	int err, ok;

	int r = fr_parse_args(&snap_argp, argc, argv, "flightrec snapshot", &o);

	if (r)
		return r < 0 ? FR_EXIT_OK : r;
	if (o.usage_err)
		return FR_EXIT_USAGE;
	dir = fr_control__run_dir(o.run_dir);
	if (!o.name && (r = pick_recorder(dir, &o.name)))
		return r;
	if (!fr_control__valid_name(o.name)) {
		fr_err(o.name, "bad recorder name: use 1-64 of [A-Za-z0-9_.-]");
		return FR_EXIT_USAGE;
	}
	snprintf(req, sizeof(req), "snapshot after=%llu", (unsigned long long)o.after_ns);
	if (isatty(2))
		fr_control__on_wait(show_wait);
	wait_ms = o.timeout_s * 1000 + o.after_ns / 1000000;
	err = fr_control__request(dir, o.name, req, reply, sizeof(reply),
				  wait_ms > INT_MAX ? INT_MAX : (int)wait_ms, &why);
	if (waited)
		fputs("\r\033[K", stderr);
	if (err == -ENOENT || err == -ECONNREFUSED) {
		fr_err("snapshot", "no recorder named '%s' is running (no live socket %s/%s.sock)",
		       o.name, dir, o.name);
		return FR_EXIT_ERROR;
	}
	if (err == -ETIMEDOUT) {
		fr_err("snapshot", "recorder '%s' did not answer within %llu s", o.name,
		       (unsigned long long)o.timeout_s);
		return FR_EXIT_ERROR;
	}
	if (err && why) {
		fr_err(dir, "not trusted: %s", why);
		return FR_EXIT_ERROR;
	}
	if (err == -EBADMSG || err == -EMSGSIZE) {
		fr_err("snapshot", "recorder '%s': malformed reply", o.name);
		return FR_EXIT_ERROR;
	}
	if (err) {
		fr_err("snapshot", "%s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	if (fr_control__parse_reply(reply, strlen(reply), &ok, &text, &text_len, &why)) {
		fr_err("snapshot", "recorder '%s': malformed reply: %s", o.name, why);
		return FR_EXIT_ERROR;
	}
	if (!ok) {
		fr_err("snapshot", "recorder '%s': %.*s", o.name, (int)text_len, text);
		return FR_EXIT_ERROR;
	}
	printf("%.*s\n", (int)text_len, text);
	return FR_EXIT_OK;
}
