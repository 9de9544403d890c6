/* src/tpdecode.c: tracepoint field decoding through libtraceevent: one
 * tep_handle per file, events parsed from their recorded format text.
 */
#include "config.h"
#include "src/report/tpdecode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

struct fr_tpdecode {
	struct tep_handle *tep;
	char last_name[272];        /* the last event looked up */
	struct tep_event *last;
	struct trace_seq seq;       /* reused for every record */
	bool seq_init;
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
	tep_set_long_size(d->tep, (int)sizeof(long));
	tep_set_page_size(d->tep, (int)sysconf(_SC_PAGESIZE));
	*out = d;
	return 0;
}

void fr_tpdecode__delete(struct fr_tpdecode *d)
{
	if (!d)
		return;
	if (d->seq_init)
		trace_seq_destroy(&d->seq);
	tep_free(d->tep);
	free(d);
}

static int split(const char *name, char *sys, size_t len, const char **ev)
{
	const char *colon = strchr(name, ':');

	if (!colon || (size_t)(colon - name) >= len)
		return -EINVAL;
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	*ev = colon + 1;
	return 0;
}

int fr_tpdecode__add(struct fr_tpdecode *d, const char *name, const char *format, size_t len)
{
	char sys[256];
	const char *ev;

	if (split(name, sys, sizeof(sys), &ev))
		return -EINVAL;
	return tep_parse_event(d->tep, format, len, sys) ? -EINVAL : 0;
}

static struct tep_event *find_event(struct fr_tpdecode *d, const char *name)
{
	struct tep_event *event = d->last && !strcmp(name, d->last_name) ? d->last : NULL;
	char sys[256];
	const char *ev;

	if (!event) {
		if (split(name, sys, sizeof(sys), &ev))
			return NULL;
		event = tep_find_event_by_name(d->tep, sys, ev);
		if (!event)
			return NULL;
		if (strlen(name) < sizeof(d->last_name)) {
			strcpy(d->last_name, name);
			d->last = event;
		}
	}
	if (!d->seq_init) {
		trace_seq_init(&d->seq);
		d->seq_init = true;
	}
	trace_seq_reset(&d->seq);
	return event;
}

int fr_tpdecode__each(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      fr_tpfield_cb cb, void *ctx)
{
	struct tep_event *event = find_event(d, name);
	int err = 0;

	if (!event)
		return -ENOENT;
	for (struct tep_format_field *f = event->format.fields; f && !err; f = f->next) {
		unsigned long long v;

		if (f->offset < 0 || (size_t)f->offset + (size_t)f->size > size)
			continue;
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
		tep_print_field(&d->seq, (void *)raw, f);
		trace_seq_terminate(&d->seq);
		err = cb(ctx, f->name, d->seq.buffer ? d->seq.buffer : "", false, 0, 0);
	}
	return err;
}

int fr_tpdecode__fields(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
			char *buf, size_t len)
{
	struct tep_event *event = find_event(d, name);

	if (!event)
		return -ENOENT;
	tep_print_fields(&d->seq, (void *)raw, (int)size, event);
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
