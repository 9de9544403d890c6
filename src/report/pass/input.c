/* src/report/pass/input.c: what report, dump and diff share about their input:
 * the newest *.frec of a directory, opening a file with one-line errors,
 * saying what damage was skipped and what could not be used and the exit
 * code that makes (one verdict for every pass), escaping the text that goes
 * to the terminal, notes on wrapped rings and live files, and times written
 * as dump prints them.
 */
#include "config.h"

#include <ctype.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"
#include "src/report/pass/pass.h"
#include "src/report/tp/tpdecode.h"

int fr_input__newest(const char *dir, char *out, size_t len)
{
	struct timespec best = { 0, 0 };
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char p[PATH_MAX];
		struct stat sb;

		if (n < 6 || strcmp(de->d_name + n - 5, ".frec"))
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
			continue;
		if (stat(p, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (!found || sb.st_mtim.tv_sec > best.tv_sec ||
		    (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec > best.tv_nsec) ||
		    (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec == best.tv_nsec &&
		     strcmp(p, out) > 0)) {
			best = sb.st_mtim;
			snprintf(out, len, "%s", p);
			found = 1;
		}
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

int fr_input__choose(const char **input, const char *dir, char *path, size_t len)
{
	struct stat sb;
	int err;

	/* a directory given as the file: its newest file, as -d takes */
	if (*input && (stat(*input, &sb) || !S_ISDIR(sb.st_mode)))
		return FR_EXIT_OK;
	if (*input)
		dir = *input;
	err = fr_input__newest(dir, path, len);
	if (err) {
		fr_err(dir, "no flightrec file (*.frec) here: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	*input = path;
	return FR_EXIT_OK;
}

int fr_input__open(const char *path, struct fr_reader **rd)
{
	int err = fr_reader__open(path, rd);

	if (!err)
		return FR_EXIT_OK;
	if (err == -EBADMSG)
		fr_err(path, "not a flightrec file (bad magic)");
	else if (err == -EPROTONOSUPPORT)
		fr_err(path, "written by a newer flightrec (unsupported format version)");
	else if (err == -ENODEV)
		fr_err(path, "not a regular file (a FIFO, a device or a directory is not read)");
	else
		fr_err(path, "%s", strerror(-err));
	return FR_EXIT_ERROR;
}

size_t fr_input__damage(const struct fr_reader *rd, const char *path)
{
	size_t n = fr_reader__nr_damaged(rd);
	uint64_t unknown;
	uint32_t kind;

	for (size_t i = 0; fr_reader__damage(rd, i); i++) {
		const struct fr_damage *d = fr_reader__damage(rd, i);
		size_t same = 0;
		char text[256];
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++) {
			const struct fr_damage *e = fr_reader__damage(rd, k);

			seen = e->type == d->type && e->kind == d->kind && !strcmp(e->why, d->why);
		}
		if (seen)
			continue;
		for (size_t k = i + 1; fr_reader__damage(rd, k); k++) {
			const struct fr_damage *e = fr_reader__damage(rd, k);

			same += e->type == d->type && e->kind == d->kind && !strcmp(e->why, d->why);
		}
		fr_damage__describe(d, text, sizeof(text));
		if (same)
			fr_err(path, "%s, and %zu more like it", text, same);
		else
			fr_err(path, "%s", text);
	}
	if (n > FR_DAMAGE_KEEP)
		fr_err(path, "%zu more damaged chunks", n - FR_DAMAGE_KEEP);
	unknown = fr_reader__unknown_blobs(rd, &kind);
	if (unknown)   /* a newer writer's: said, not damage (doc/format.md §4 BLOB) */
		fr_err(path, "%llu blob%s of a kind this flightrec does not know (kind %u: a newer "
		       "flightrec's?) skipped", (unsigned long long)unknown, unknown > 1 ? "s" : "",
		       kind);
	return n;
}

bool fr_input__say_unusable(const struct fr_reader *rd, const char *path)
{
	struct fr_unusable u;
	uint64_t n = fr_reader__unusable(rd, &u);

	if (n)
		fr_err(path, "%llu records could not be used: %llu samples of no event of the file, "
		       "%llu samples whose body does not parse by their event's sample_type, %llu CPU "
		       "statistics of a CPU id past %u", (unsigned long long)n,
		       (unsigned long long)u.no_event, (unsigned long long)u.bad_body,
		       (unsigned long long)u.bad_cpu, FR_CPU_MAX - 1);
	return n != 0;
}

/* ---- the escaping stream ---- */

struct esc {
	FILE *f;
	unsigned char pend[4];   /* an incomplete UTF-8 sequence from the last write */
	size_t nr_pend;
};

/* Length of the UTF-8 sequence at p (n bytes available): > 0 valid, 0
 * invalid (or a C1 control), -1 incomplete. */
static int utf8_seq(const unsigned char *p, size_t n)
{
	int len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		  p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	if (!len)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	}
	if ((p[0] == 0xc2 && p[1] < 0xa0) ||        /* C1 controls U+0080..U+009F */
	    (p[0] == 0xe0 && p[1] < 0xa0) ||        /* overlong */
	    (p[0] == 0xed && p[1] >= 0xa0) ||       /* surrogates */
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

static void esc_out(struct esc *e, const unsigned char *p, size_t n, bool final)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		int len;

		if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
			size_t j = i;

			while (j < n && (p[j] == '\n' || p[j] == '\t' || (p[j] >= 0x20 && p[j] < 0x7f)))
				j++;
			fwrite(p + i, 1, j - i, e->f);
			i = j;
			continue;
		}
		len = c >= 0x80 ? utf8_seq(p + i, n - i) : 0;
		if (len < 0 && !final) {  /* keep the start for the next write */
			memcpy(e->pend, p + i, n - i);
			e->nr_pend = n - i;
			return;
		}
		if (len > 0) {
			fwrite(p + i, 1, (size_t)len, e->f);
			i += (size_t)len;
		} else {
			fprintf(e->f, "\\x%02x", c);
			i++;
		}
	}
}

static ssize_t esc_write(void *cookie, const char *buf, size_t size)
{
	struct esc *e = cookie;
	const unsigned char *p = (const unsigned char *)buf;
	size_t used = 0;

	/* the stream below keeps its first error (report -o: the output file's
	 * errno); told "all written", stdio never retries with its own offsets */
	if (ferror(e->f))
		return (ssize_t)size;
	while (e->nr_pend && used < size) {  /* complete the pending sequence first */
		int len;

		e->pend[e->nr_pend++] = p[used++];
		len = utf8_seq(e->pend, e->nr_pend);
		if (len < 0 && e->nr_pend < sizeof(e->pend))
			continue;
		{
			unsigned char tmp[4];
			size_t n = e->nr_pend;

			memcpy(tmp, e->pend, n);
			e->nr_pend = 0;
			esc_out(e, tmp, n, false);
		}
	}
	esc_out(e, p + used, size - used, false);
	return (ssize_t)size;
}

static int esc_close(void *cookie)
{
	struct esc *e = cookie;
	int err;

	esc_out(e, e->pend, e->nr_pend, true);
	err = fflush(e->f) || ferror(e->f) ? -1 : 0;
	free(e);
	return err;
}

FILE *fr_input__escaping(FILE *f)
{
	cookie_io_functions_t io = { .write = esc_write, .close = esc_close };
	struct esc *e = calloc(1, sizeof(*e));
	FILE *out;

	if (!e)
		return NULL;
	e->f = f;
	out = fopencookie(e, "w", io);
	if (!out)
		free(e);
	return out;
}

int fr_input__parse_time(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (p == end)
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return -EINVAL;
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (!digits)
			return -EINVAL;
	}
	if (p != end)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

static uint64_t meta_u64(struct fr_reader *rd, const char *key)
{
	const char *v = fr_reader__meta(rd, key);
	uint64_t n;

	return v && !fr_parse__u64(v, 0, UINT64_MAX, &n) ? n : 0;
}

uint64_t fr_input__lost(const struct fr_reader *rd, uint64_t in_records)
{
	uint64_t stats = 0;

	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		uint64_t n = cs->lost_records > cs->lost_samples ? cs->lost_records : cs->lost_samples;

		stats = fr_u64__sat_add(stats, n);   /* saturated: a file's counts */
	}
	return stats > in_records ? stats : in_records;
}

bool fr_input__say_lost(const struct fr_reader *rd, const char *path, uint64_t in_records)
{
	uint64_t lost = fr_input__lost(rd, in_records);

	if (lost)
		fr_err(path, "%llu records lost while recording (rings overflowed or writes failed): "
		       "the window has holes", (unsigned long long)lost);
	return lost != 0;
}

bool fr_input__wrap_note(struct fr_reader *rd, char *buf, size_t len)
{
	uint64_t start = meta_u64(rd, "record_start_ns"), end = meta_u64(rd, "snapshot_time_ns");
	uint64_t kept = 0;
	size_t n = fr_reader__nr_cpu_stats(rd), wrapped = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		if (!(cs->flags & FR_CPU_FULL))
			continue;
		wrapped++;
		if (cs->first_time > kept)
			kept = cs->first_time;
		if (cs->last_time > end)
			end = cs->last_time;
	}
	if (!wrapped)
		return false;
	if (start && kept > start && end > kept)
		snprintf(buf, len, "ring wrapped on %zu of %zu CPUs: the kernel overwrote older "
			 "records; kept the last %.3f s of the %.3f s recorded", wrapped, n,
			 (double)(end - kept) / 1e9, (double)(end - start) / 1e9);
	else
		snprintf(buf, len, "ring wrapped on %zu of %zu CPUs: the kernel overwrote older "
			 "records", wrapped, n);
	return true;
}

/* One "CPU:FROM-TO" of META cpu_offline at *p (hostile: digits only, each
 * number below 2^64, FROM <= TO unless TO is 0); *p moved past it and a comma. */
static bool next_gap(const char **p, unsigned long *cpu, unsigned long long *from,
		     unsigned long long *to)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*cpu = strtoul(*p, &end, 10);
	if (errno || *end != ':' || *cpu >= FR_CPU_MAX || !isdigit((unsigned char)end[1]))
		return false;
	*from = strtoull(end + 1, &end, 10);
	if (errno || *end != '-' || !isdigit((unsigned char)end[1]))
		return false;
	*to = strtoull(end + 1, &end, 10);
	if (errno || (*end && *end != ',') || (*to && *to < *from))
		return false;
	*p = *end ? end + 1 : end;
	return true;
}

size_t fr_input__cpu_gaps(struct fr_reader *rd, struct fr_cpu_gap *out, size_t max, bool *bad)
{
	const char *v = fr_reader__meta(rd, "cpu_offline");
	size_t n = 0;

	*bad = false;
	while (v && *v && n < max) {
		unsigned long long from, to;
		unsigned long cpu;

		if (!next_gap(&v, &cpu, &from, &to)) {
			*bad = true;
			break;
		}
		out[n++] = (struct fr_cpu_gap){ (uint32_t)cpu, from, to };
	}
	return n;
}

bool fr_input__hotplug_note(struct fr_reader *rd, char *buf, size_t len)
{
	const char *nr = fr_reader__meta(rd, "cpu_not_recorded");
	struct fr_cpu_gap g[FR_CPU_GAPS_MAX];
	bool bad;
	size_t ng = fr_input__cpu_gaps(rd, g, FR_CPU_GAPS_MAX, &bad), n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ng && n + 96 < len; i++) {
		int w;

		if (g[i].to)
			w = snprintf(buf + n, len - n, "%sCPU %u offline from %.3f to %.3f (%.3f s): "
				     "nothing recorded on it then", n ? "; " : "", g[i].cpu,
				     g[i].from / 1e9, g[i].to / 1e9, (g[i].to - g[i].from) / 1e9);
		else
			w = snprintf(buf + n, len - n, "%sCPU %u offline from %.3f on: nothing "
				     "recorded on it after", n ? "; " : "", g[i].cpu, g[i].from / 1e9);
		n += w > 0 && (size_t)w < len - n ? (size_t)w : 0;
	}
	if (bad && n + 64 < len) {
		int w = snprintf(buf + n, len - n, "%sCPUs offline while recording: (the list does "
				 "not parse)", n ? "; " : "");

		n += w > 0 ? (size_t)w : 0;
	}
	if (nr && *nr && n + 96 < len) {
		int w = snprintf(buf + n, len - n, "%sCPUs %.32s came online after the recording "
				 "started: not recorded", n ? "; " : "", nr);

		n += w > 0 ? (size_t)w : 0;
	}
	return n > 0;
}

bool fr_input__live(struct fr_reader *rd, char *buf, size_t len)
{
	uint64_t pid = meta_u64(rd, "recorder_pid");

	/* the writer's lock, never the pid: a crashed recorder's pid may be
	 * another flightrec's by now */
	if (!fr_reader__being_written(rd))
		return false;
	if (pid && pid <= INT32_MAX)
		snprintf(buf, len, "live: still being written by recorder pid %llu (no END yet)",
			 (unsigned long long)pid);
	else
		snprintf(buf, len, "live: still being written (no END yet)");
	return true;
}

int fr_input__trigger_each(struct fr_reader *rd, fr_trigger_cb cb, void *ctx)
{
	void *data;
	size_t len;
	int ret = 0;

	if (!fr_reader__nr_blobs(rd, FR_BLOB_TRIGGER) ||
	    fr_reader__blob(rd, FR_BLOB_TRIGGER, 0, &data, &len))
		return 0;
	for (const char *p = data, *end = (const char *)data + len; p < end && !ret;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(le - p));

		if (eq)
			ret = cb(ctx, p, (size_t)(eq - p), eq + 1, (size_t)(le - eq - 1));
		p = nl ? nl + 1 : end;
	}
	free(data);
	return ret;
}

/* The trigger's keys the header's line names (values from the file: kept
 * printable, numbers parsed whole). */
struct trig {
	char source[32], event[96], end_event[96];
	uint64_t tid, pid, cpu, latency_ns;
	bool has_tid, has_pid, has_cpu, has_latency;
};

static void copy_printable(char *dst, size_t cap, const char *v, size_t n)
{
	size_t k = 0;

	for (; k < n && k + 1 < cap; k++)
		dst[k] = isprint((unsigned char)v[k]) ? v[k] : '?';
	dst[k] = '\0';
}

/* a value's whole text as a number into *out; *has says whether it was one */
static void take_u64(const char *v, size_t n, uint64_t *out, bool *has)
{
	char num[24];

	if (n == 0 || n >= sizeof(num))
		return;
	memcpy(num, v, n);
	num[n] = '\0';
	*has = !fr_parse__u64(num, 0, UINT64_MAX, out);
}

static int trig_key_cb(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct trig *t = ctx;

#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(key, k, klen))
	if (KEY("source"))
		copy_printable(t->source, sizeof(t->source), val, vlen);
	else if (KEY("event"))
		copy_printable(t->event, sizeof(t->event), val, vlen);
	else if (KEY("end_event"))
		copy_printable(t->end_event, sizeof(t->end_event), val, vlen);
	else if (KEY("tid"))
		take_u64(val, vlen, &t->tid, &t->has_tid);
	else if (KEY("pid"))
		take_u64(val, vlen, &t->pid, &t->has_pid);
	else if (KEY("cpu"))
		take_u64(val, vlen, &t->cpu, &t->has_cpu);
	else if (KEY("latency_ns"))
		take_u64(val, vlen, &t->latency_ns, &t->has_latency);
#undef KEY
	return 0;
}

bool fr_input__trigger_note(struct fr_reader *rd, char *buf, size_t len)
{
	struct trig t = { .source = "" };
	int w = 0;

	if (fr_input__trigger_each(rd, trig_key_cb, &t) || !t.source[0] || !len)
		return false;   /* no trigger (or an empty one) */
	if (!strcmp(t.source, "latency") && t.has_tid && t.has_latency)
		w = snprintf(buf, len, "trigger: latency: thread %llu (pid %llu) took %.3f ms from %s "
			     "to %s (who kept it waiting: report --critical-path %llu)",
			     (unsigned long long)t.tid, (unsigned long long)t.pid,
			     (double)t.latency_ns / 1e6, t.event, t.end_event,
			     (unsigned long long)t.tid);
	else if (!strcmp(t.source, "event") && t.event[0] && t.has_tid)
		w = snprintf(buf, len, "trigger: event %s by thread %llu (pid %llu) on CPU %llu",
			     t.event, (unsigned long long)t.tid, (unsigned long long)t.pid,
			     (unsigned long long)t.cpu);
	return w > 0;   /* other sources: nothing more than META trigger says */
}

/* trigger_time_ns's value into *(uint64_t *)ctx: 1 (found), else 0 */
static int trigger_time_cb(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	static const char k[] = "trigger_time_ns";
	bool has = false;

	if (klen == sizeof(k) - 1 && !memcmp(key, k, klen))
		take_u64(val, vlen, ctx, &has);
	return has;
}

bool fr_input__trigger_time(struct fr_reader *rd, uint64_t *ns)
{
	return fr_input__trigger_each(rd, trigger_time_cb, ns) == 1;
}

void fr_input__window(struct fr_reader *rd, uint64_t *first, uint64_t *last)
{
	*first = *last = 0;
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		if (cs->first_time && (!*first || cs->first_time < *first))
			*first = cs->first_time;
		if (cs->last_time > *last)
			*last = cs->last_time;
	}
}

int fr_input__time_ranges(struct fr_reader *rd, const struct fr_timesel *sel,
			  struct fr_time_ranges *out, const char **why)
{
	struct fr_time_ctx c = { 0 };

	fr_input__window(rd, &c.first, &c.last);
	c.has_clock = !fr_clock__of_file(rd, &c.clock);
	c.has_trigger = fr_input__trigger_time(rd, &c.trigger_ns);
	return fr_timesel__resolve(sel, &c, out, why);
}

int fr_input__walk_verdict(struct fr_reader *rd, const char *path, int walk_err, const char *did)
{
	char note[1024];

	if (walk_err < 0 && walk_err != -EBADMSG) {
		fr_err(path, "corrupt chunk: %s (records before it were %s)", strerror(-walk_err), did);
		return FR_EXIT_PARTIAL;
	}
	if (fr_input__damage(rd, path))
		return FR_EXIT_PARTIAL;
	if (fr_reader__truncated(rd) && fr_input__live(rd, note, sizeof(note))) {
		fr_info("%s: %s (records written so far were %s)", path, note, did);
	} else if (fr_reader__truncated(rd)) {
		fr_err(path, "truncated: the file ends before its last chunk (records of complete "
		       "chunks were %s)", did);
		return FR_EXIT_PARTIAL;
	}
	return FR_EXIT_OK;
}

int fr_input__tpdecode(struct fr_reader *rd, struct fr_tpdecode **out)
{
	if (fr_tpdecode__new(out))
		return -ENOMEM;
	for (size_t i = 0; i < fr_reader__nr_events(rd); i++) {
		const struct fr_file_event *e = fr_reader__event(rd, i);

		if (e->format && e->format_len)
			fr_tpdecode__add(*out, e->name, e->format, e->format_len);
	}
	return 0;
}

int fr_input__content_verdict(struct fr_reader *rd, const char *path, struct fr_tpdecode *tp,
			      uint64_t lost)
{
	int ret = FR_EXIT_OK;

	if (tp && fr_tpdecode__say(tp, path))   /* refused formats, damaged records */
		ret = FR_EXIT_PARTIAL;
	if (fr_input__say_unusable(rd, path))
		ret = FR_EXIT_PARTIAL;
	if (fr_input__say_lost(rd, path, lost))
		ret = FR_EXIT_PARTIAL;
	return ret;
}

int fr_input__verdict(struct fr_reader *rd, const char *path, int walk_err,
		      struct fr_tpdecode *tp, uint64_t lost, const char *did)
{
	int walk = fr_input__walk_verdict(rd, path, walk_err, did);
	int content = fr_input__content_verdict(rd, path, tp, lost);

	return walk ? walk : content;
}
