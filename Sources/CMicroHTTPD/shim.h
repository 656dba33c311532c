/*
 * CMicroHTTPD: the C side of LoomHTTP.
 *
 * libmicrohttpd's MHD_start_daemon, MHD_get_connection_info and its logger
 * callback are variadic, and zlib's deflateInit2 / inflateInit2 are macros:
 * none of them can be called from Swift directly, so this header wraps them
 * in small fixed-argument static inline functions.
 */
#ifndef LOOM_CMICROHTTPD_SHIM_H
#define LOOM_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <zlib.h>

/* ---- logging ----------------------------------------------------------- */

/* A Swift function receiving one formatted libmicrohttpd log message. */
typedef void (*loom_log_fn)(void *ctx, const char *message);

/* Where libmicrohttpd's messages go; must outlive the daemon. */
struct loom_log_sink {
    loom_log_fn fn;
    void *ctx;
};

static void loom_mhd_log_trampoline(void *cls, const char *fmt, va_list ap)
{
    struct loom_log_sink *sink = (struct loom_log_sink *)cls;
    char buffer[1024];
    int n;
    if (sink == NULL || sink->fn == NULL || fmt == NULL)
        return;
    n = vsnprintf(buffer, sizeof buffer, fmt, ap);
    if (n < 0)
        return;
    /* drop the trailing newline libmicrohttpd puts on most messages */
    {
        size_t len = (size_t)n < sizeof buffer ? (size_t)n : sizeof buffer - 1;
        while (len > 0 && (buffer[len - 1] == '\n' || buffer[len - 1] == '\r'))
            buffer[--len] = '\0';
    }
    sink->fn(sink->ctx, buffer);
}

/* ---- daemon ------------------------------------------------------------ */

/*
 * Starts a daemon on an already bound and listening socket.
 * thread_pool_size <= 1 means a single internal polling thread.
 * Returns NULL on failure (the reason goes to the log sink).
 */
static inline struct MHD_Daemon *
loom_mhd_start(unsigned int flags,
               int listen_fd,
               MHD_AccessHandlerCallback access_handler, void *access_cls,
               MHD_RequestCompletedCallback completed, void *completed_cls,
               struct loom_log_sink *log_sink,
               unsigned int connection_limit,
               unsigned int connection_timeout_seconds,
               unsigned int thread_pool_size)
{
    return MHD_start_daemon(
        flags, 0 /* port: ignored, listen socket given */,
        NULL, NULL, /* accept policy: accept everyone */
        access_handler, access_cls,
        /* the logger first, so that no message goes to stderr */
        MHD_OPTION_EXTERNAL_LOGGER, loom_mhd_log_trampoline, (void *)log_sink,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size > 1 ? thread_pool_size : 0u,
        MHD_OPTION_END);
}

static inline int loom_mhd_has_epoll(void)
{
    return MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES;
}

/* The client's address of a connection, or NULL. */
static inline const struct sockaddr *
loom_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* ---- request values in one buffer ------------------------------------- */

/*
 * Copies every value of one kind (headers, query arguments) of a connection into one
 * buffer, in libmicrohttpd's order, each as a record
 *     uint32 key length, uint32 value length (native byte order), key bytes, value bytes
 * (lengths as strlen: up to the first NUL; a missing value is empty). Records that do not
 * fit are skipped, but counted: returns the bytes all records need (0: none).
 */
struct loom_value_sink {
    uint8_t *buffer;
    size_t capacity;
    size_t needed;
};

static enum MHD_Result loom_collect_value(void *cls, enum MHD_ValueKind kind,
                                          const char *key, const char *value)
{
    struct loom_value_sink *sink = (struct loom_value_sink *)cls;
    uint32_t klen, vlen;
    size_t size;
    (void)kind;
    if (key == NULL)
        return MHD_YES;
    klen = (uint32_t)strlen(key);
    vlen = value == NULL ? 0u : (uint32_t)strlen(value);
    size = 8 + (size_t)klen + (size_t)vlen;
    if (sink->needed + size <= sink->capacity) {
        uint8_t *p = sink->buffer + sink->needed;
        memcpy(p, &klen, 4);
        memcpy(p + 4, &vlen, 4);
        memcpy(p + 8, key, klen);
        if (vlen > 0)
            memcpy(p + 8 + klen, value, vlen);
    }
    sink->needed += size;
    return MHD_YES;
}

static inline size_t loom_mhd_collect_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                             uint8_t *buffer, size_t capacity)
{
    struct loom_value_sink sink = { buffer, capacity, 0 };
    MHD_get_connection_values(connection, kind, loom_collect_value, &sink);
    return sink.needed;
}

/* Number of values of one kind (headers, query arguments). */
static inline int loom_mhd_count_values(struct MHD_Connection *connection, enum MHD_ValueKind kind)
{
    return MHD_get_connection_values(connection, kind, NULL, NULL);
}

/* ---- zlib -------------------------------------------------------------- */

/* deflateInit2 with a gzip wrapper (windowBits 15 + 16). */
static inline int loom_deflate_init_gzip(z_stream *stream, int level)
{
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/* inflateInit2 accepting a gzip wrapper only. */
static inline int loom_inflate_init_gzip(z_stream *stream)
{
    return inflateInit2(stream, 15 + 16);
}

#endif /* LOOM_CMICROHTTPD_SHIM_H */
