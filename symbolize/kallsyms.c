/* symbolize/kallsyms.c: kernel symbol capture and lookup (see kallsyms.h).
 * Placeholder until the symbolized report lands: loads nothing, notes nothing.
 */
#include "config.h"
#include "symbolize/kallsyms.h"

#include <errno.h>

int fr_kallsyms__load(const char *kallsyms, const char *modules, struct fr_kallsyms **out)
{
	*out = NULL;
	return -ENOSYS;
}

void fr_kallsyms__delete(struct fr_kallsyms *ks)
{
}

void fr_kallsyms__note(struct fr_kallsyms *ks, uint64_t addr)
{
}

int fr_kallsyms__serialize(struct fr_kallsyms *ks, void **data, size_t *len)
{
	return -ENOSYS;
}

int fr_kallsyms__parse(const void *data, size_t len, struct fr_kallsyms **inout)
{
	return -ENOSYS;
}

const char *fr_kallsyms__lookup(const struct fr_kallsyms *ks, uint64_t addr, uint64_t *off,
				const char **module)
{
	return NULL;
}
