/* src/report/tpdecode.c: tracepoint field decoding through libtraceevent: one
 * tep_handle per file, events parsed from their recorded format text. The
 * text and the raw data come from a file: both are checked before libtraceevent
 * sees them (printable bounded text; every field inside its record).
 */
#include "config.h"
#include "src/report/tpdecode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#define TP_FORMAT_MAX (64u << 10)

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

/* What tracefs writes: printable ASCII lines, a few KiB: "name: ", "ID: ",
 * "format:" and its fields, "print fmt: ". */
static bool format_ok(const char *format, size_t len)
{
	if (!len || len > TP_FORMAT_MAX || strncmp(format, "name: ", 6) ||
	    !memmem(format, len, "\nformat:\n", 9) || !memmem(format, len, "\nprint fmt: ", 12))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)format[i];

		if ((c < 0x20 || c >= 0x7f) && c != '\n' && c != '\t')
			return false;
	}
	return true;
}

int fr_tpdecode__add(struct fr_tpdecode *d, const char *name, const char *format, size_t len)
{
	char sys[256], *copy;
	const char *ev;
	int err;

	if (split(name, sys, sizeof(sys), &ev) || !*ev || !format_ok(format, len))
		return -EINVAL;
	copy = strndup(format, len);
	if (!copy)
		return -ENOMEM;
	err = tep_parse_event(d->tep, copy, len, sys) ? -EINVAL : 0;
	free(copy);
	return err;
}

static uint64_t read_num(const uint8_t *p, int size)
{
	uint64_t v = 0;

	if (size == 1 || size == 2 || size == 4 || size == 8)
		memcpy(&v, p, (size_t)size);  /* little-endian host: the low bytes */
	return v;
}

/* Every field tep_print_fields reads lies inside the record: fixed fields,
 * dynamic (__data_loc) arrays, and a NUL inside every string it prints with %s. */
static bool fields_ok(const struct tep_event *event, const uint8_t *raw, size_t size)
{
	for (const struct tep_format_field *f = event->format.fields; f; f = f->next) {
		uint64_t off = (uint64_t)f->offset, len = (uint64_t)f->size;

		if (f->offset < 0 || f->size < 0 || off + len > size)
			return false;
		if (!(f->flags & TEP_FIELD_IS_ARRAY))
			continue;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			uint64_t loc = read_num(raw + off, f->size);

			len = (loc >> 16) & 0xffff;
			off = (f->flags & TEP_FIELD_IS_RELATIVE) ? (loc & 0xffff) + off + (uint64_t)f->size
								 : loc & 0xffff;
			if (off + len > size)
				return false;
		}
		if ((f->flags & TEP_FIELD_IS_STRING) && !memchr(raw + off, '\0', len))
			return false;
	}
	return true;
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
	if (size > INT32_MAX || !fields_ok(event, raw, size))
		return -EBADMSG;   /* fields the format declares lie outside the record */
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
	if (size > INT32_MAX || !fields_ok(event, raw, size)) {
		if (len)
			snprintf(buf, len, " (fields outside the record)");
		return -EBADMSG;
	}
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

/* Print args that read only where the format's fields are (checked by
 * fields_ok): no array indexing, no arrays or buffers of a length the record
 * gives, no helper functions. */
static bool args_safe(const struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next) {
		bool ok;

		if (depth > 32)
			return false;
		switch (a->type) {
		case TEP_PRINT_NULL:
		case TEP_PRINT_ATOM:
		case TEP_PRINT_FIELD:
		case TEP_PRINT_STRING:
		case TEP_PRINT_BSTRING:
			ok = true;
			break;
		case TEP_PRINT_FLAGS:
			ok = args_safe(a->flags.field, depth + 1);
			break;
		case TEP_PRINT_SYMBOL:
			ok = args_safe(a->symbol.field, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			ok = args_safe(a->typecast.item, depth + 1);
			break;
		case TEP_PRINT_OP:
			ok = a->op.op && strcmp(a->op.op, "[") && args_safe(a->op.left, depth + 1) &&
			     args_safe(a->op.right, depth + 1);
			break;
		default:
			ok = false;
		}
		if (!ok)
			return false;
	}
	return true;
}

int fr_tpdecode__info(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      char *buf, size_t len)
{
	struct tep_event *event = find_event(d, name);
	struct tep_format_field *f;
	struct tep_record rec;
	unsigned long long type;
	size_t n;

	if (!event)
		return -ENOENT;
	if (size > INT32_MAX || !fields_ok(event, raw, size))
		return -EBADMSG;
	/* libtraceevent prints the event the record's common_type names: this one */
	f = tep_find_common_field(event, "common_type");
	if ((event->flags & TEP_EVENT_FL_FAILED) || !args_safe(event->print_fmt.args, 0) || !f ||
	    f->offset < 0 || (size_t)f->offset + (size_t)f->size > size ||
	    tep_read_number_field(f, raw, &type) || type != (unsigned long long)event->id)
		return -ENOTSUP;
	memset(&rec, 0, sizeof(rec));
	rec.data = (void *)raw;
	rec.size = rec.record_size = (int)size;
	tep_print_event(d->tep, &d->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&d->seq);
	if (len) {
		n = d->seq.buffer ? d->seq.len : 0;
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, d->seq.buffer, n);
		buf[n] = '\0';
	}
	return 0;
}
