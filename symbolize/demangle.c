/* symbolize/demangle.c: C++ (Itanium ABI) and Rust (legacy and v0) symbol
 * names to what people read, through libiberty's cplus_demangle (what perf
 * and binutils use); no demangler of our own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "symbolize/demangle.h"

char *fr_demangle(const char *name)
{
	/* "_Z..." is C++ or Rust legacy, "_R..." Rust v0; anything else is a C name */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* no parameter lists, as perf report shows names by default; the
	 * style is automatic: Rust first (which drops legacy hashes), then C++ */
	return cplus_demangle(name, DMGL_AUTO);
}
