/* src/report/tpdecode.h: decoding tracepoint RAW data into "field=value" text with
 * libtraceevent, from the format text recorded in the file.
 */
#ifndef FR_TPDECODE_H
#define FR_TPDECODE_H

#include <stdbool.h>
#include <stddef.h>

struct fr_tpdecode;

int fr_tpdecode__new(struct fr_tpdecode **out);
void fr_tpdecode__delete(struct fr_tpdecode *d);
/* Parse one event's format text ("subsys:name"). -EINVAL when it does not
 * parse, is not printable ASCII text or is longer than 64 KiB. */
int fr_tpdecode__add(struct fr_tpdecode *d, const char *name, const char *format, size_t len);
/* Write " field=value ..." (the event's own fields, not common_*) into buf.
 * -ENOENT if the event was not added; the text is cut to len. -EBADMSG (and
 * " (fields outside the record)" in buf) when a field the format declares
 * lies outside raw: nothing is decoded. */
int fr_tpdecode__fields(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
			char *buf, size_t len);

/* The event's print fmt applied to raw into buf ("fd: 0x00000003, ..."), as
 * perf script prints a tracepoint; cut to len. -ENOENT if the event was not
 * added, -EBADMSG when a field lies outside raw, -ENOTSUP when the print fmt
 * did not parse or reads where the record says (array indexing, buffers of
 * a length from the record, helper functions): then print the fields. */
int fr_tpdecode__info(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      char *buf, size_t len);

/* Each of the event's own fields: a number (text NULL; sv the signed value
 * when is_signed) or text (arrays, strings). A non-zero return of cb stops
 * the walk and is returned; -ENOENT if the event was not added. */
typedef int (*fr_tpfield_cb)(void *ctx, const char *field, const char *text, bool is_signed,
			     unsigned long long v, long long sv);
int fr_tpdecode__each(struct fr_tpdecode *d, const char *name, const void *raw, size_t size,
		      fr_tpfield_cb cb, void *ctx);

#endif
