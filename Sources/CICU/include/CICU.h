// C shim for LoomText: ICU's line break iterator (Debian libicu-dev), for the dictionary
// breaks of Thai, Lao, Khmer and Myanmar that a browser takes from ICU. Only LoomText
// imports this module. No ICU type appears here: the toolchain's Foundation carries an ICU
// of its own whose types would clash with the system's in Swift; shim.c holds the calls.
#ifndef LOOM_CICU_H
#define LOOM_CICU_H

#include <stdint.h>

/// A line break iterator for `locale` over no text yet, or NULL (ICU's data missing).
void *loom_line_breaker_new(const char *locale);

/// Points `breaker` at `length` UTF-16 units (kept by the caller while it reads them, or
/// NULL and 0 to let go of them); 0 on an ICU error.
int loom_line_breaker_set_text(void *breaker, const uint16_t *text, int32_t length);

/// The boundary after the current one (the first call after set_text: after the start);
/// -1 at the end.
int32_t loom_line_breaker_next(void *breaker);

void loom_line_breaker_close(void *breaker);

#endif
