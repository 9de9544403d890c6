/* symbolize/demangle.h: mangled C++ and Rust names to readable ones
 * (libiberty's demangler). Library code: never prints.
 */
#ifndef FR_DEMANGLE_H
#define FR_DEMANGLE_H

/* The demangled name (malloc'd), or NULL when name is not a mangled C++ or
 * Rust name (or on allocation failure): then use name as it is. */
char *fr_demangle(const char *name);

#endif
