/* src/main.c: the flightrec command: dispatches to record, snapshot, dump,
 * report, diff, archive, list and push (src/cmd_*.c), after installing the message printer (src/cli.c).
 */
#include "config.h"
#include "src/cli.h"

#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: flightrec COMMAND [OPTIONS]\n"
		"\n"
		"An always-on flight recorder: keeps the recent past in the kernel's perf\n"
		"ring buffers and writes it out on demand.\n"
		"\n"
		"Commands:\n"
		"  record     record system-wide (backward rings), a command or processes (streamed)\n"
		"  snapshot   ask a running recorder to write its window to a file\n"
		"  dump       list every record of a file\n"
		"  report     symbolized report: histogram, callchains (-g), --folded,\n"
		"             --flamegraph FILE, --format=html|pprof|otlp|perf-script|json -o FILE\n"
		"             (--raw: every record, as dump)\n"
		"  diff       two files (or one split at a time or its trigger) compared:\n"
		"             what changed, ranked by significance\n"
		"  archive    copy the objects a file's samples hit into the build-id cache\n"
		"             (-o X.tar: also into a tarball for report --symdir elsewhere)\n"
		"  list       the events this machine can record (list 'sched:*')\n"
		"  push       send files to an OpenTelemetry profiles endpoint (OTLP/HTTP)\n"
		"\n"
		"Examples:\n"
		"  flightrec record -e syscalls:sys_enter_read --backward\n"
		"  flightrec record -F 999 -g -- ./server --port 8080\n"
		"  flightrec snapshot            (or: kill -USR2 $(pidof flightrec))\n"
		"  flightrec report -g --sort comm,dso,sym\n"
		"  flightrec report --flamegraph flame.svg FILE\n"
		"  flightrec report --format=pprof -o cpu.pb.gz FILE\n"
		"  flightrec list 'syscalls:sys_enter_rea*'\n"
		"  flightrec dump flightrec-default-*.frec\n"
		"\n"
		"'flightrec help COMMAND' (or 'flightrec COMMAND --help') describes each command.\n"
		"\n"
		"Exit codes: 0 ok; 1 partial (data lost or file cut short, said on stderr);\n"
		"2 runtime error; 3 denied or unsupported by the kernel/machine; 64 usage.\n");
}

static const char *const commands[] = { "record", "snapshot", "dump", "report", "diff", "archive", "list",
					"push" };

static bool is_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i]))
			return true;
	return false;
}

/* argv[0] is the command's name */
static int run_command(int argc, char **argv)
{
	if (!strcmp(argv[0], "record"))
		return cmd_record(argc, argv);
	if (!strcmp(argv[0], "snapshot"))
		return cmd_snapshot(argc, argv);
	if (!strcmp(argv[0], "dump"))
		return cmd_dump(argc, argv);
	if (!strcmp(argv[0], "report"))
		return cmd_report(argc, argv);
	if (!strcmp(argv[0], "diff"))
		return cmd_diff(argc, argv);
	if (!strcmp(argv[0], "list"))
		return cmd_list(argc, argv);
	if (!strcmp(argv[0], "push"))
		return cmd_push(argc, argv);
	return cmd_archive(argc, argv);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	fr_cli__init();
	if (!cmd) {
		usage(stderr);
		return FR_EXIT_USAGE;
	}
	if (!strcmp(cmd, "help") && argc > 2) {
		/* help CMD: CMD --help */
		char *hv[] = { argv[2], (char *)"--help", NULL };

		if (is_command(argv[2]))
			return run_command(2, hv);
		fr_err(argv[2], "unknown command (try 'flightrec --help')");
		return FR_EXIT_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return FR_EXIT_OK;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("flightrec %s\n", PACKAGE_VERSION);
		return FR_EXIT_OK;
	}
	if (is_command(cmd))
		return run_command(argc - 1, argv + 1);
	fr_err(cmd, "unknown command (try 'flightrec --help')");
	return FR_EXIT_USAGE;
}
