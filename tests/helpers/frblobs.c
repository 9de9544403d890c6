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
#include "src/proc/perfmap.h"
#include "src/proc/proctable.h"

struct show {
	const struct fr_proctable *pt;
	const struct fr_proc *p;
	size_t nr_maps;
	bool ids;
};

static int count_map(void *ctx, const struct fr_map *m)
{
	(void)m;
	((struct show *)ctx)->nr_maps++;
	return 0;
}

static int show_map(void *ctx, const struct fr_map *m)
{
	struct show *sh = ctx;
	const struct fr_dso_id *d = fr_proctable__dso(sh->pt, m->dso);

	printf("map %u 0x%llx 0x%llx %s bid=%u", sh->p->pid, (unsigned long long)m->start,
	       (unsigned long long)(m->end - m->start), d->path, d->build_id_size);
	if (sh->ids) {
		printf(" id=");
		for (unsigned b = 0; b < d->build_id_size && b < 20; b++)
			printf("%02x", d->build_id[b]);
	}
	printf("\n");
	return 0;
}

static int show_proc(void *ctx, const struct fr_proc *p)
{
	struct show *sh = ctx;
	size_t nc;
	const struct fr_pcomm *c = fr_proctable__proc_comms(sh->pt, p, &nc);

	sh->p = p;
	sh->nr_maps = 0;
	fr_proctable__proc_maps(sh->pt, p, count_map, sh);
	printf("proc %u ppid=%u start=%llu exit=%llu comm=%s maps=%zu\n", p->pid, p->ppid,
	       (unsigned long long)p->start_time, (unsigned long long)p->exit_time,
	       nc ? c[nc - 1].comm : "", sh->nr_maps);
	return fr_proctable__proc_maps(sh->pt, p, show_map, sh);
}

int main(int argc, char **argv)
{
	struct fr_proctable *pt = fr_proctable__new(NULL);
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
	fr_proctable__for_each(pt, show_proc, &(struct show){ .pt = pt, .ids = ids });
	if (fr_reader__nr_blobs(r, FR_BLOB_PERFMAP)) {
		struct fr_perfmaps *pm;
		uint32_t pids[256];
		size_t n;

		if (fr_perfmaps__new(&pm))
			return 2;
		for (size_t i = 0; i < fr_reader__nr_blobs(r, FR_BLOB_PERFMAP); i++) {
			if (fr_reader__blob(r, FR_BLOB_PERFMAP, i, &data, &len) ||
			    fr_perfmap__decode(pm, data, len))
				return 1;
			free(data);
		}
		n = fr_perfmaps__pids(pm, pids, 256);
		for (size_t i = 0; i < n && i < 256; i++) {
			struct fr_perfmap_stats st;

			if (!fr_perfmaps__stats(pm, pids[i], &st))
				printf("perfmap pid=%u entries=%zu skipped=%llu\n", pids[i], st.entries,
				       (unsigned long long)st.skipped);
		}
		fr_perfmaps__delete(pm);
	}
	fr_reader__close(r);
	fr_proctable__delete(pt);
	return 0;
}
