// mimalloc (Debian libmimalloc-dev): linked into `loom` so that it, not glibc, answers
// malloc and free for the whole process (Swift's runtime, libmicrohttpd, Pango).
#include <mimalloc.h>
