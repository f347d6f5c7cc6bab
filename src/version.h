/* version.h: what --version says: ntop-js's version, the libraries it runs with, and what it
 * does to a warm target's JIT on each Node version it knows (jitplan.h's table), so
 * that a package on a server says what it will do there. */
#ifndef NTOP_VERSION_H
#define NTOP_VERSION_H

#include "strbuf.h"

/* The whole block, ending in a newline. */
void version_text(struct strbuf *out);

#endif
