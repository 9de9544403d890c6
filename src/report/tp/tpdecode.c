/* src/report/tp/tpdecode.c: tracepoint field decoding through libtraceevent:
 * one tep_handle per file. The recorded format text is hostile: libtraceevent
 * is given only the canonical text tpformat.c composes from what its grammar
 * accepted, and a record's fields are printed only once each of them is inside
 * the record. Refused formats and damaged records are counted per event and
 * said at the end (fr_tpdecode__say).
 */
#include "config.h"
#include "src/report/tp/tpdecode.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "src/util.h"
#include "src/report/tp/tpformat.h"
#include "src/report/tp/tpprint.h"

struct tpev {
	char *name;                 /* "subsys:name", as the file names it */
	struct tep_event *tep;      /* NULL: unusable, its samples have no fields */
	struct fr_tpformat fmt;     /* the accepted fields */
	struct fr_tpprint *print;   /* its print fmt, where tpprint.c's grammar takes it */
	char why[200];              /* why its format was refused, "" if it was not */
	bool refused;
	uint64_t bad;               /* records with a field outside them */
	char first_bad[160];
};

struct fr_tpdecode {
	struct tep_handle *tep;
	struct tpev *evs;
	size_t nr, cap;
	bool sorted;
	struct tpev *last;          /* the last event looked up */
	struct trace_seq seq;       /* reused for every record */
};

int fr_tpdecode__new(struct fr_tpdecode **out)
{
	struct fr_tpdecode *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tep = tep_alloc();
	if (!d->tep) {
		free(d);
		return -ENOMEM;
	}
	tep_set_loglevel(TEP_LOG_NONE);   /* what it would say, we say (fr_tpdecode__say) */
	tep_set_long_size(d->tep, (int)sizeof(long));
	tep_set_page_size(d->tep, (int)sysconf(_SC_PAGESIZE));
	trace_seq_init(&d->seq);
	*out = d;
	return 0;
}

void fr_tpdecode__delete(struct fr_tpdecode *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr; i++) {
		free(d->evs[i].name);
		fr_tpprint__delete(d->evs[i].print);
		fr_tpformat__exit(&d->evs[i].fmt);
	}
	free(d->evs);
	trace_seq_destroy(&d->seq);
	tep_free(d->tep);
	free(d);
}

static bool ident(const char *s, size_t n)
{
	if (!n || n > 127)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
		      (i && s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* The canonical text of ev's accepted format to libtraceevent, as system sys. */
static int parse_canonical(struct fr_tpdecode *d, struct tpev *ev, const char *sys)
{
	char *text = fr_tpformat__compose(&ev->fmt);
	int err;

	if (!text)
		return -ENOMEM;
	err = tep_parse_format(d->tep, &ev->tep, text, strlen(text), sys) ? -EINVAL : 0;
	free(text);
	return err;
}

static int add(struct fr_tpdecode *d, struct tpev *ev, const char *format, size_t len)
{
	const char *colon = strchr(ev->name, ':');
	char sys[128];
	int err;

	if (!colon || !ident(ev->name, (size_t)(colon - ev->name)) ||
	    !ident(colon + 1, strlen(colon + 1))) {
		snprintf(ev->why, sizeof(ev->why), "not a tracepoint name");
		return -EINVAL;
	}
	memcpy(sys, ev->name, (size_t)(colon - ev->name));
	sys[colon - ev->name] = '\0';
	err = fr_tpformat__parse(&ev->fmt, format, len);
	if (err == -ENOMEM)
		return err;
	if (err == -EINVAL) {
		snprintf(ev->why, sizeof(ev->why), "no name, ID and field lines of a format");
		return err;
	}
	if (strcmp(ev->fmt.name, colon + 1)) {
		snprintf(ev->why, sizeof(ev->why), "the format names another event (%s)",
			 ev->fmt.name);
		return -EINVAL;
	}
	if (err)
		snprintf(ev->why, sizeof(ev->why), "%s", ev->fmt.why);
	if (parse_canonical(d, ev, sys)) {   /* not seen: the grammar is narrower than its parser */
		for (size_t i = 0; i < ev->fmt.nr_fields; i++)
			ev->fmt.fields[i].conv[0] = '\0';
		if (!ev->why[0])
			snprintf(ev->why, sizeof(ev->why), "libtraceevent refused its print fmt");
		err = parse_canonical(d, ev, sys);
		if (err)
			snprintf(ev->why, sizeof(ev->why), "libtraceevent refused its fields");
		return err;
	}
	if (ev->why[0])
		return -EBADMSG;
	/* outside the grammar: its fields are printed name=value */
	return fr_tpprint__new(&ev->print, &ev->fmt, format + ev->fmt.print_off, ev->fmt.print_len,
			       NULL, 0) == -ENOMEM ? -ENOMEM : 0;
}

int fr_tpdecode__add(struct fr_tpdecode *d, const char *name, const char *format, size_t len)
{
	struct tpev *ev;
	int err;

	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->evs[i].name, name))
			return -EEXIST;
	if (fr_grow(&d->evs, &d->cap, d->nr + 1, sizeof(*d->evs), 8))
		return -ENOMEM;
	ev = &d->evs[d->nr];
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	if (!ev->name)
		return -ENOMEM;
	d->nr++;
	d->sorted = false;
	d->last = NULL;
	err = add(d, ev, format, len);
	ev->refused = err != 0;
	if (err == -ENOMEM)
		ev->tep = NULL;
	return err;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct tpev *)a)->name, ((const struct tpev *)b)->name);
}

static struct tpev *find(struct fr_tpdecode *d, const char *name)
{
	struct tpev key = { .name = (char *)name };

	if (d->last && !strcmp(d->last->name, name))
		return d->last;
	if (!d->sorted && d->nr) {   /* qsort of a NULL array (none added) is UB */
		qsort(d->evs, d->nr, sizeof(*d->evs), by_name);
		d->sorted = true;
	}
	d->last = d->nr ? bsearch(&key, d->evs, d->nr, sizeof(*d->evs), by_name) : NULL;
	return d->last;
}

static uint64_t read_num(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	if (size == 1 || size == 2 || size == 4 || size == 8)
		memcpy(&v, p, size);  /* little-endian host: the low bytes */
	return v;
}

/* libtraceevent prints an array of char, u8 or s8 with %s when its bytes up
 * to the first NUL (or all of them) are printable: such a string must end
 * inside the record. */
static bool is_string(const struct fr_tpfield *f)
{
	return strstr(f->type, "char") || strstr(f->type, "u8") || strstr(f->type, "s8");
}

static bool string_ends(const uint8_t *raw, size_t size, uint64_t off, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!raw[off + i] || !(isprint(raw[off + i]) || isspace(raw[off + i])))
			return true;   /* ends here, or printed as an array of bytes */
	return memchr(raw + off + n, '\0', size - off - n) != NULL;
}

/* Every field inside the record: fixed fields, dynamic (__data_loc and
 * __rel_loc) arrays, and a NUL inside every string printed with %s; what
 * lies outside goes into why. */
static bool fields_ok(const struct tpev *ev, const uint8_t *raw, size_t size, char *why,
		      size_t len)
{
	for (size_t i = 0; i < ev->fmt.nr_fields; i++) {
		const struct fr_tpfield *f = &ev->fmt.fields[i];
		uint64_t off = f->offset, n = f->size, loc;

		if (off + n > size) {
			snprintf(why, len, "field %s (offset %u, size %u) outside its %zu-byte record",
				 f->name, f->offset, f->size, size);
			return false;
		}
		if (!f->dynamic && !f->array)
			continue;
		if (f->dynamic) {
			loc = read_num(raw + off, f->size);
			n = (loc >> 16) & 0xffff;
			off = f->relative ? (loc & 0xffff) + off + f->size : loc & 0xffff;
			if (off + n > size) {
				snprintf(why, len, "field %s (%s offset %llu, length %llu) outside its "
					 "%zu-byte record", f->name, f->relative ? "__rel_loc" : "__data_loc",
					 (unsigned long long)off, (unsigned long long)n, size);
				return false;
			}
		}
		if (is_string(f) && !string_ends(raw, size, off, n)) {
			snprintf(why, len, "string field %s has no end inside its record", f->name);
			return false;
		}
	}
	return true;
}

static bool usable(const struct tpev *ev, const void *raw, size_t size)
{
	char why[160];

	return size <= INT32_MAX && fields_ok(ev, raw, size, why, sizeof(why));
}

int fr_tpdecode__check(struct fr_tpdecode *d, const char *name, const void *raw, size_t size)
{
	struct tpev *ev = find(d, name);
	char why[160];

	if (!ev || !ev->tep)
		return -ENOENT;
	if (size <= INT32_MAX && fields_ok(ev, raw, size, why, sizeof(why)))
		return 0;
	if (size > INT32_MAX)
		snprintf(why, sizeof(why), "a %zu-byte record", size);
	if (!ev->bad++)
		snprintf(ev->first_bad, sizeof(ev->first_bad), "%s", why);
	return -EBADMSG;
}

int fr_tpdecode__each(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      fr_tpfield_cb cb, void *ctx)
{
	struct tpev *ev = find(d, name);
	int err = 0;

	if (!ev || !ev->tep)
		return -ENOENT;
	if (!usable(ev, raw, size))
		return -EBADMSG;   /* fields the format declares lie outside the record */
	for (struct tep_format_field *f = ev->tep->format.fields; f && !err; f = f->next) {
		unsigned long long v;

		if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) &&
		    !tep_read_number_field(f, raw, &v)) {
			long long sv = (long long)v;

			if (f->flags & TEP_FIELD_IS_SIGNED)   /* sign-extend from the field's size */
				sv = f->size == 1 ? (signed char)v : f->size == 2 ? (short)v
				     : f->size == 4 ? (int)v : (long long)v;
			err = cb(ctx, f->name, NULL, (f->flags & TEP_FIELD_IS_SIGNED) != 0, v, sv);
			continue;
		}
		trace_seq_reset(&d->seq);
		tep_print_field_content(&d->seq, (void *)raw, (int)size, f);
		trace_seq_terminate(&d->seq);
		err = cb(ctx, f->name, d->seq.buffer ? d->seq.buffer : "", false, 0, 0);
	}
	return err;
}

int fr_tpdecode__fields(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
			char *buf, size_t len)
{
	struct tpev *ev = find(d, name);

	if (!ev || !ev->tep)
		return -ENOENT;
	if (!usable(ev, raw, size)) {
		if (len)
			snprintf(buf, len, " (fields outside the record)");
		return -EBADMSG;
	}
	trace_seq_reset(&d->seq);
	tep_print_fields(&d->seq, (void *)raw, (int)size, ev->tep);
	trace_seq_terminate(&d->seq);
	if (len) {
		size_t n = d->seq.buffer ? d->seq.len : 0;

		if (n > len - 1)
			n = len - 1;
		memcpy(buf, d->seq.buffer, n);
		buf[n] = '\0';
	}
	return 0;
}

int fr_tpdecode__text(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      char *buf, size_t len)
{
	struct tpev *ev = find(d, name);
	int err;

	if (!ev || !ev->tep)
		return -ENOENT;
	if (ev->print && usable(ev, raw, size) &&
	    fr_tpprint__eval(ev->print, raw, size, buf, len) != -EBADMSG)
		return 0;   /* cut to len, or whole */
	err = fr_tpdecode__fields(d, name, raw, size, buf, len);
	if (len && buf[0] == ' ')
		memmove(buf, buf + 1, strlen(buf));
	return err;
}

unsigned long long fr_tpdecode__nr_bad(const struct fr_tpdecode *d)
{
	unsigned long long n = 0;

	for (size_t i = 0; d && i < d->nr; i++)
		n += d->evs[i].bad;
	return n;
}

bool fr_tpdecode__say(struct fr_tpdecode *d, const char *path)
{
	bool said = false;

	for (size_t i = 0; i < d->nr; i++) {
		const struct tpev *ev = &d->evs[i];

		if (ev->refused)
			fr_err(path, "event %s: format refused: %s (%s)", ev->name, ev->why,
			       ev->tep ? "its fields are shown raw" : "its samples have no fields");
		if (ev->bad)
			fr_err(path, "event %s: %llu samples damaged: %s%s (their fields are not "
			       "decoded)", ev->name, (unsigned long long)ev->bad, ev->first_bad,
			       ev->bad > 1 ? ", and others" : "");
		said |= ev->refused || ev->bad;
	}
	return said;
}
