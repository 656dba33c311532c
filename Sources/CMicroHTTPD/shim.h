/*
 * CMicroHTTPD: the C side of LoomHTTP.
 *
 * libmicrohttpd's MHD_start_daemon, MHD_get_connection_info and its logger
 * callback are variadic, and zlib's deflateInit2 / inflateInit2 are macros:
 * none of them can be called from Swift directly, so this header wraps them
 * in small fixed-argument static inline functions. Also here: one pass over a
 * request's headers for what every request needs (framing headers, Origin,
 * Accept-Encoding), and the poll(2)/eventfd helpers of the connection watch.
 */
#ifndef LOOM_CMICROHTTPD_SHIM_H
#define LOOM_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <strings.h>
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>
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
               MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
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
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size > 1 ? thread_pool_size : 0u,
        MHD_OPTION_END);
}

/* The client's address of a connection, or NULL. */
static inline const struct sockaddr *
loom_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* The socket of a connection, or -1. */
static inline int loom_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/* What the connection-notification callback stored for the connection, or NULL. */
static inline void *loom_mhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* ---- the framing headers of a request, in one pass --------------------- */

/*
 * What the first access-handler call needs to know about the request's headers:
 * how often each framing header came (RFC 9112 wants exactly one Content-Length or
 * Transfer-Encoding, one Host) and the first values of the headers read on every
 * request. Values point into libmicrohttpd's memory (valid for the request).
 */
struct loom_request_head {
    const char *content_length;
    const char *transfer_encoding;
    const char *origin;
    const char *accept_encoding;
    unsigned content_length_count;
    unsigned transfer_encoding_count;
    unsigned host_count;
    /* Header names that are empty or hold whitespace ("Content-Length : 5"): libmicrohttpd
       keeps them with the space, so a proxy and we could disagree on what they say. */
    unsigned malformed_name_count;
};

static enum MHD_Result loom_scan_header(void *cls, enum MHD_ValueKind kind,
                                        const char *key, const char *value)
{
    struct loom_request_head *head = (struct loom_request_head *)cls;
    size_t n;
    (void)kind;
    if (key == NULL)
        return MHD_YES;
    n = 0;
    while (key[n] != '\0') {
        if (key[n] == ' ' || key[n] == '\t') {
            head->malformed_name_count++;
            return MHD_YES;
        }
        n++;
    }
    switch (n) {
    case 0:
        head->malformed_name_count++;
        break;
    case 4:
        if (strcasecmp(key, "host") == 0)
            head->host_count++;
        break;
    case 6:
        if (head->origin == NULL && strcasecmp(key, "origin") == 0)
            head->origin = value == NULL ? "" : value;
        break;
    case 14:
        if (strcasecmp(key, "content-length") == 0) {
            if (head->content_length_count++ == 0)
                head->content_length = value == NULL ? "" : value;
        }
        break;
    case 15:
        if (head->accept_encoding == NULL && strcasecmp(key, "accept-encoding") == 0)
            head->accept_encoding = value == NULL ? "" : value;
        break;
    case 17:
        if (strcasecmp(key, "transfer-encoding") == 0) {
            if (head->transfer_encoding_count++ == 0)
                head->transfer_encoding = value == NULL ? "" : value;
        }
        break;
    default:
        break;
    }
    return MHD_YES;
}

static inline struct loom_request_head loom_mhd_scan_head(struct MHD_Connection *connection)
{
    struct loom_request_head head;
    memset(&head, 0, sizeof head);
    MHD_get_connection_values(connection, MHD_HEADER_KIND, loom_scan_header, &head);
    return head;
}

/* ---- watching sockets -------------------------------------------------- */

#ifndef POLLRDHUP
#define POLLRDHUP 0x2000
#endif

/* A counter file descriptor to wake a poll() (eventfd), or -1. */
static inline int loom_wake_create(void)
{
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

static inline void loom_wake_signal(int fd)
{
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    (void)n;
}

static inline void loom_wake_drain(int fd)
{
    uint64_t value;
    ssize_t n = read(fd, &value, sizeof value);
    (void)n;
}

/*
 * poll(2) over fds[0..count): fds[0] is the wake descriptor (readable when signalled),
 * the others are watched for the peer closing or resetting the connection only (not for
 * data). Returns what poll returns; revents as poll sets them.
 */
static inline int loom_poll_hangups(struct pollfd *fds, unsigned count, int timeout_ms)
{
    unsigned i;
    if (count == 0)
        return 0;
    fds[0].events = POLLIN;
    fds[0].revents = 0;
    for (i = 1; i < count; i++) {
        fds[i].events = POLLRDHUP;
        fds[i].revents = 0;
    }
    return poll(fds, (nfds_t)count, timeout_ms);
}

static inline int loom_poll_is_hangup(short revents)
{
    return (revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

static inline int loom_poll_is_readable(short revents)
{
    return (revents & POLLIN) != 0;
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
