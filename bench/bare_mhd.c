/*
 * bare_mhd: the HTTP ceiling for Loom on this machine.
 *
 * A minimal libmicrohttpd server, configured as Loom's HTTP layer is (internal polling
 * threads, a thread pool sized to the cores): it reads the whole request body and answers
 * every request with the same fixed 306-byte JSON body shaped like a LayoutResponse, doing
 * no other work. What wrk measures against it is what libmicrohttpd + the kernel's
 * loopback can do here, the upper bound for `loom serve`. (Loom's own answer to
 * bench/trees/cell.json is larger: 1,556 bytes.)
 *
 *   cc -O2 bench/bare_mhd.c $(pkg-config --cflags --libs libmicrohttpd) -o /tmp/bare_mhd
 *   /tmp/bare_mhd 18081            # listens on 127.0.0.1:18081 only; SIGINT/SIGTERM stop it
 *   /tmp/bare_mhd 18081 4          # optional second argument: thread-pool size
 */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

/* 306 bytes, shaped like a LayoutResponse. */
static const char BODY[] =
    "{\"size\":{\"width\":375,\"height\":390.5},\"layout\":{\"type\":\"inset\",\"id\":\"cell-7\","
    "\"frame\":{\"x\":0,\"y\":0,\"width\":375,\"height\":390.5},\"children\":[]},"
    "\"frames\":{\"cell-7\":{\"x\":0,\"y\":0,\"width\":375,\"height\":390.5},"
    "\"avatar-7\":{\"x\":16,\"y\":12,\"width\":40,\"height\":40},"
    "\"unread\":{\"x\":346.5,\"y\":12.5,\"width\":7.125,\"height\":8}}}";
_Static_assert(sizeof(BODY) - 1 == 306, "the body must be 306 bytes");

static struct MHD_Response *response;
static volatile sig_atomic_t stop_requested;
static int marker; /* address used as "request started" */

static MHD_RESULT handle(void *cls, struct MHD_Connection *conn, const char *url,
                         const char *method, const char *version, const char *upload_data,
                         size_t *upload_data_size, void **req_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*req_cls == NULL) { /* headers received; body (if any) follows */
        *req_cls = &marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { /* read (and discard) the body */
        *upload_data_size = 0;
        return MHD_YES;
    }
    return MHD_queue_response(conn, MHD_HTTP_OK, response);
}

static void on_signal(int sig) { (void)sig; stop_requested = 1; }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PORT [THREADS]\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    long threads = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (port <= 0 || port > 65535 || threads < 1) {
        fprintf(stderr, "bad port or thread count\n");
        return 2;
    }

    response = MHD_create_response_from_buffer(sizeof(BODY) - 1, (void *)BODY,
                                               MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */

    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
        (uint16_t)port, NULL, NULL, &handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1024,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
        MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "bare_mhd: cannot start on 127.0.0.1:%d\n", port);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "bare_mhd: 127.0.0.1:%d, %ld threads, libmicrohttpd %s\n", port, threads,
            MHD_get_version());
    while (!stop_requested)
        pause();
    MHD_stop_daemon(d);
    MHD_destroy_response(response);
    return 0;
}
