// The calls behind include/CICU.h. ICU's functions carry its version in their names
// (ubrk_open_72): the headers map the plain names to them.
#include "CICU.h"
#include <unicode/ubrk.h>

void *loom_line_breaker_new(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    UBreakIterator *it = ubrk_open(UBRK_LINE, locale, NULL, 0, &status);
    if (U_FAILURE(status)) {
        if (it) ubrk_close(it);
        return NULL;
    }
    return it;
}

int loom_line_breaker_set_text(void *breaker, const uint16_t *text, int32_t length) {
    UErrorCode status = U_ZERO_ERROR;
    ubrk_setText((UBreakIterator *)breaker, (const UChar *)text, length, &status);
    if (U_FAILURE(status)) return 0;
    ubrk_first((UBreakIterator *)breaker);
    return 1;
}

int32_t loom_line_breaker_next(void *breaker) {
    int32_t p = ubrk_next((UBreakIterator *)breaker);
    return p == UBRK_DONE ? -1 : p;
}

void loom_line_breaker_close(void *breaker) { ubrk_close((UBreakIterator *)breaker); }
