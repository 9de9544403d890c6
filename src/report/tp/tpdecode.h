/* src/report/tp/tpdecode.h: decoding tracepoint RAW data into "field=value"
 * text with libtraceevent, from the format text recorded in the file: only what
 * tpformat.h's grammar accepts reaches libtraceevent, only records whose every
 * field lies inside them are printed; both are counted per event.
 */
#ifndef FR_TPDECODE_H
#define FR_TPDECODE_H

#include <stdbool.h>
#include <stddef.h>

struct fr_tpdecode;

int fr_tpdecode__new(struct fr_tpdecode **out);
void fr_tpdecode__delete(struct fr_tpdecode *d);
/* Parse one event's format text (event "subsys:name"). 0: accepted;
 * -EBADMSG: refused in part (a field line or the print fmt: the accepted
 * fields are decoded, raw); -EINVAL: unusable (no field is decoded);
 * -EEXIST: the name was added before; -ENOMEM. Refusals are kept for
 * fr_tpdecode__say. */
int fr_tpdecode__add(struct fr_tpdecode *d, const char *name, const char *format, size_t len);
/* Is every field of the event inside raw (size bytes)? 0; -EBADMSG, counted
 * for fr_tpdecode__say (call it once per record); -ENOENT: no usable format. */
int fr_tpdecode__check(struct fr_tpdecode *d, const char *name, const void *raw, size_t size);
/* Write " field=value ..." (the event's own fields, not common_*) into buf.
 * -ENOENT if the event has no usable format; the text is cut to len.
 * -EBADMSG (and " (fields outside the record)" in buf) when a field the
 * format declares lies outside raw: nothing is decoded. */
int fr_tpdecode__fields(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
			char *buf, size_t len);
/* The text perf script prints for the record: its print fmt evaluated
 * (tpprint.h) where the grammar takes it and every value it reads lies in
 * raw, else the fields as fr_tpdecode__fields writes them, without the
 * leading space. Returns as fr_tpdecode__fields. */
int fr_tpdecode__text(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      char *buf, size_t len);

/* Each of the event's own fields: a number (text NULL; sv the signed value
 * when is_signed) or text (arrays, strings). A non-zero return of cb stops
 * the walk and is returned; -ENOENT if the event has no usable format,
 * -EBADMSG as fr_tpdecode__fields. */
typedef int (*fr_tpfield_cb)(void *ctx, const char *field, const char *text, bool is_signed,
			     unsigned long long v, long long sv);
int fr_tpdecode__each(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      fr_tpfield_cb cb, void *ctx);

/* Records found damaged by fr_tpdecode__check so far, all events. */
unsigned long long fr_tpdecode__nr_bad(const struct fr_tpdecode *d);
/* One line on stderr (fr_err, naming path) for each refused format and for
 * each event with damaged records; true when anything was said (exit 1). */
bool fr_tpdecode__say(struct fr_tpdecode *d, const char *path);

#endif
