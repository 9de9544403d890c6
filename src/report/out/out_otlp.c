/* src/report/out/out_otlp.c: --format=otlp: the selected samples of every
 * event and the off-CPU waits as an OTLP ExportProfilesServiceRequest
 * (otlp.c writes it): the host from the file's meta as the resource, the
 * trigger's keys as each profile's attributes (doc/otlp.md).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/file/clock.h"
#include "src/file/file.h"
#include "src/report/fmt/fmt.h"
#include "src/report/out/output.h"
#include "src/util.h"

#define MAX_TRIGGER_KEYS 16
#define MAX_VALUE 256

struct otlp {
	struct fr_pprof *p;
	/* the trigger blob's keys and values, copied out of it */
	char keys[MAX_TRIGGER_KEYS][64], vals[MAX_TRIGGER_KEYS][MAX_VALUE];
	struct fr_otlp_attr attrs[MAX_TRIGGER_KEYS];
	size_t nr_attrs;
	const struct fr_clock_ref *clock;   /* the file's, at finish; NULL: none */
};

static int open_otlp(struct report *rp, void **st)
{
	struct otlp *o = calloc(1, sizeof(*o));
	int err;

	if (!o)
		return -ENOMEM;
	if ((err = fr_pprof__new_timed(&o->p))) {
		free(o);
		return err;
	}
	*st = o;
	return 0;
}

/* slot: the event's index; the waits' is one past the last */
static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	return fr_pprof__add_to(((struct otlp *)st)->p, rp->res, rs, rs->event->index, false);
}

static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	return fr_pprof__add_to(((struct otlp *)st)->p, rp->res, rs, (uint32_t)rp->nr_events, true);
}

/* A key of the trigger blob as an attribute key: flightrec.trigger.KEY
 * (trigger_KEY: KEY), a time (KEY_time_ns) on the wall clock as
 * KEY_time_unix_nano. Keys of other than [a-z0-9_] are left out. */
static bool trigger_key(const char *k, size_t n, char out[64], bool *time)
{
	static const char tsuf[] = "_time_ns";
	size_t ts = sizeof(tsuf) - 1;

	if (!n || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return false;
	*time = n > ts && !memcmp(k + n - ts, tsuf, ts);
	if (n > 8 && !memcmp(k, "trigger_", 8)) {   /* trigger_time_ns: its time */
		k += 8;
		n -= 8;
	}
	snprintf(out, 64, "flightrec.trigger.%.*s%s", (int)(*time ? n - 3 : n), k,
		 *time ? "_unix_nano" : "");
	return true;
}

/* One line of the trigger as an attribute: numbers as ints, times on the
 * wall clock (where the file has one: an event-clock time means nothing
 * elsewhere), the rest as strings (at most MAX_VALUE - 1 bytes each). */
static int trigger_cb(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct otlp *o = ctx;
	struct fr_otlp_attr *a = &o->attrs[o->nr_attrs];
	char *v = o->vals[o->nr_attrs];
	uint64_t num;
	bool time;

	if (o->nr_attrs >= MAX_TRIGGER_KEYS || !trigger_key(key, klen, o->keys[o->nr_attrs], &time))
		return 0;
	snprintf(v, MAX_VALUE, "%.*s", (int)(vlen < MAX_VALUE ? vlen : MAX_VALUE - 1), val);
	a->key = o->keys[o->nr_attrs];
	if (!fr_parse__u64(v, 0, INT64_MAX, &num)) {
		a->str = NULL;
		a->num = (int64_t)(time && o->clock ? fr_clock__to_real(o->clock, num) : num);
	} else {
		a->str = v;
	}
	if (!time || o->clock)
		o->nr_attrs++;
	return 0;
}

static int finish(void *st, struct report *rp, const char *path)
{
	struct otlp *o = st;
	struct fr_otlp_slot *slots = calloc(rp->nr_events + 1, sizeof(*slots));
	struct fr_clock_ref c;
	bool has_clock = !fr_clock__of_file(rp->rd, &c);
	const char *host = fr_reader__meta(rp->rd, "hostname"),
		   *id = fr_reader__meta(rp->rd, "machine_id"),
		   *kernel = fr_reader__meta(rp->rd, "kernel_release"),
		   *arch = fr_reader__meta(rp->rd, "machine"),
		   *name = fr_reader__meta(rp->rd, "name");
	struct fr_otlp_attr res[6];
	char *orig = NULL;
	struct fr_otlp_info in = { .slots = slots, .nr_slots = rp->nr_events + 1,
				   .clock = has_clock ? &c : NULL, .t0 = rp->t0, .t1 = rp->t1,
				   .resource = res, .attrs = o->attrs,
				   .scope_version = PACKAGE_VERSION,
				   .inline_frames = !rp->o->sym.no_inline };
	int err;

	if (!slots)
		return -ENOMEM;
	for (size_t k = 0; k < rp->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index < rp->nr_events)
			slots[e->index].event = e;
	}
	slots[rp->nr_events].off_cpu = true;
	res[in.nr_resource++] = (struct fr_otlp_attr){ "os.type", "linux", 0 };
	if (name && name[0])   /* the recorder's name: what a store groups by */
		res[in.nr_resource++] = (struct fr_otlp_attr){ "service.name", name, 0 };
	if (host && host[0])
		res[in.nr_resource++] = (struct fr_otlp_attr){ "host.name", host, 0 };
	if (id && id[0])
		res[in.nr_resource++] = (struct fr_otlp_attr){ "host.id", id, 0 };
	if (kernel && kernel[0])
		res[in.nr_resource++] = (struct fr_otlp_attr){ "os.version", kernel, 0 };
	if (arch && arch[0])   /* semantic conventions' names for uname's */
		res[in.nr_resource++] = (struct fr_otlp_attr){ "host.arch",
			!strcmp(arch, "x86_64") ? "amd64" : !strcmp(arch, "aarch64") ? "arm64" : arch, 0 };
	o->clock = in.clock;
	fr_input__trigger_each(rp->rd, trigger_cb, o);
	in.nr_attrs = o->nr_attrs;
	if (rp->o->otlp_original && (err = fr_file__slurp(path, SIZE_MAX, &orig, &in.original_len))) {
		free(slots);
		return err;
	}
	in.original = orig;
	err = fr_otlp__write(o->p, rp->out, &in);
	free(orig);
	free(slots);
	return err;
}

static void close_otlp(void *st)
{
	struct otlp *o = st;

	fr_pprof__delete(o->p);
	free(o);
}

const struct fr_output_ops fr_output_otlp = {
	.name = "otlp", .fold = FR_FOLD_EACH, .offcpu_default = true, .binary = true,
	.finish_empty = true,
	.open = open_otlp, .sample = add, .wait = wait, .finish = finish, .close = close_otlp,
};
