#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

typedef void *(*CMHD_uri_logger)(void *cls, const char *uri, struct MHD_Connection *con);

/*
 * MHD_start_daemon is variadic. The server always passes the same option set, so one
 * wrapper builds the option array; the PEM strings and the priorities may be NULL for a
 * cleartext daemon.
 */
static inline struct MHD_Daemon *CMHD_start_daemon(
    unsigned int flags, const struct sockaddr_in *address,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    CMHD_uri_logger uri_logger, void *uri_logger_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    const char *key_pem, const char *cert_pem, const char *tls_priorities,
    size_t connection_memory_limit, unsigned int connection_timeout_seconds,
    unsigned int connection_limit, unsigned int per_ip_connection_limit) {
  struct MHD_OptionItem options[] = {
    { MHD_OPTION_SOCK_ADDR, 0, (void *)address },
    { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_logger, uri_logger_cls },
    { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls },
    { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_connection, notify_connection_cls },
    { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)connection_memory_limit, NULL },
    { MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)connection_timeout_seconds, NULL },
    { MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL },
    { MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)per_ip_connection_limit, NULL },
    { key_pem ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem },
    { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cert_pem },
    { MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)tls_priorities },
    { MHD_OPTION_END, 0, NULL }
  };
  return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic; the socket is what the header watchdog needs. */
static inline int CMHD_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

/* MHD_get_daemon_info is variadic; the port is all the server asks of it. */
static inline uint16_t CMHD_daemon_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? info->port : 0;
}

#endif
