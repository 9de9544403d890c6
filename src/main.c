/* src/main.c: the flightrec command: dispatches to record, snapshot, dump,
 * report and list (src/cmd_*.c), after installing the message printer (src/cli.c).
 */
#include "config.h"
#include "src/cli.h"

#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
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
		"  record     record system-wide, a command, or processes (backward rings)\n"
		"  snapshot   ask a running recorder to write its window to a file\n"
		"  dump       list every record of a file\n"
		"  report     symbolized report: histogram, callchains (-g), --folded,\n"
		"             --format=perf-script|json (--raw: every record, as dump)\n"
		"  archive    copy the objects a file's samples hit into the build-id cache\n"
		"             (-o X.tar: also into a tarball for report --symdir elsewhere)\n"
		"             --flamegraph FILE, --format=html|pprof|perf-script|json -o FILE\n"
		"             (--raw: every record, as dump)\n"
		"  list       the events this machine can record (list 'sched:*')\n"
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
		"'flightrec COMMAND --help' describes each command.\n"
		"\n"
		"Exit codes: 0 ok; 1 partial (data lost or file cut short, said on stderr);\n"
		"2 runtime error; 3 denied or unsupported by the kernel/machine; 64 usage.\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	fr_cli__init();
	if (!cmd) {
		usage(stderr);
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
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "snapshot"))
		return cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "archive"))
		return cmd_archive(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	fr_err(cmd, "unknown command (try 'flightrec --help')");
	return FR_EXIT_USAGE;
}
