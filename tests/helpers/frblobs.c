/* tests/helpers/frblobs.c: prints a flightrec file's TRIGGER and PROCS blobs
 * for the end-to-end tests (the user-facing view is `flightrec dump`).
 * Usage: frblobs [-i] FILE  ->  "trigger KEY=VALUE" and "proc/map" lines
 * (-i: each map line ends with " id=HEX", its build id).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/file/file.h"
#include "src/proc/proctable.h"

int main(int argc, char **argv)
{
	struct fr_proctable *pt = fr_proctable__new();
	struct fr_reader *r;
	void *data;
	size_t len;

	bool ids = argc == 3 && !strcmp(argv[1], "-i");

	if (ids) {
		argv++;
		argc--;
	}
	if (argc != 2 || !pt || fr_reader__open(argv[1], &r))
		return 2;
	for (size_t i = 0; i < fr_reader__nr_blobs(r, FR_BLOB_TRIGGER); i++) {
		char *line, *save = NULL;

		if (fr_reader__blob(r, FR_BLOB_TRIGGER, i, &data, &len))
			return 1;
		for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("trigger %s\n", line);
		free(data);
	}
	for (size_t i = 0; i < fr_reader__nr_blobs(r, FR_BLOB_PROCS); i++) {
		if (fr_reader__blob(r, FR_BLOB_PROCS, i, &data, &len) ||
		    fr_proctable__parse(pt, data, len))
			return 1;
		free(data);
	}
	for (size_t i = 0; i < fr_proctable__nr(pt); i++) {
		const struct fr_proc *p = fr_proctable__get(pt, i);

		printf("proc %u ppid=%u start=%llu exit=%llu comm=%s maps=%zu\n", p->pid, p->ppid,
		       (unsigned long long)p->start_time, (unsigned long long)p->exit_time,
		       p->nr_comms ? p->comms[p->nr_comms - 1].comm : "", p->nr_maps);
		for (size_t k = 0; k < p->nr_maps; k++) {
			const struct fr_pmap *m = &p->maps[k];

			printf("map %u 0x%llx 0x%llx %s bid=%u", p->pid, (unsigned long long)m->start,
			       (unsigned long long)m->len, m->path, m->build_id_size);
			if (ids) {
				printf(" id=");
				for (unsigned b = 0; b < m->build_id_size && b < 20; b++)
					printf("%02x", m->build_id[b]);
			}
			printf("\n");
		}
	}
	fr_reader__close(r);
	fr_proctable__delete(pt);
	return 0;
}
