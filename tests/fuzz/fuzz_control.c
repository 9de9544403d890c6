/* tests/fuzz/fuzz_control.c: libFuzzer entry for the control socket's line
 * parsers (fr_control__parse_request, fr_control__parse_reply): any bytes,
 * NULs and huge numbers included, must parse or be refused without a crash.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/record/control.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_control_req req;
	const char *why = NULL, *text = NULL;
	const char *line = (const char *)data;
	size_t text_len = 0;
	int ok = -1, err;

	err = fr_control__parse_request(line, size, &req, &why);
	if (err) {
		assert(err == -EINVAL && why && *why);
		assert(!strchr(why, '\n'));     /* it goes into a reply line */
	} else {
		assert(req.verb == FR_REQ_SNAPSHOT);
		assert(req.after_ns <= FR_CONTROL_MAX_AFTER_NS);
		assert(!memchr(line, '\0', size) && !memchr(line, '\n', size));
	}
	why = NULL;
	err = fr_control__parse_reply(line, size, &ok, &text, &text_len, &why);
	if (err) {
		assert(err == -EINVAL && why && *why);
	} else {
		assert(ok == 0 || ok == 1);
		assert(text >= line && text + text_len == line + size && text_len > 0);
		assert(!memchr(text, '\0', text_len));
	}
	return 0;
}
