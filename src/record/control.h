/* src/record/control.h: how `flightrec snapshot` finds and talks to a running
 * recorder: a unix socket, a pid file and a lock file per recorder name in a
 * run directory that only its owner can enter.
 */
#ifndef FR_CONTROL_H
#define FR_CONTROL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fr_control;

/* Line protocol, one request per connection: the client sends
 * "snapshot\n" or "snapshot after=NS\n" (NS: plain decimal nanoseconds,
 * at most FR_CONTROL_MAX_AFTER_NS); the recorder answers "ok PATH\n" or
 * "error MSG\n" and closes. */
enum { FR_REQ_SNAPSHOT = 1 };
#define FR_CONTROL_MAX_AFTER_NS (3600ull * 1000000000ull)   /* 1 hour */
#define FR_CONTROL_MAX_REQ 256          /* a request line, newline included */
#define FR_CONTROL_MAX_CLIENTS 64       /* connections still sending a request */
#define FR_CONTROL_CLIENT_MS 2000       /* ... each closed after this long */

struct fr_control_req {
	int verb;
	uint64_t after_ns;
};

/* Parse one request line (len bytes, no newline). 0, or -EINVAL with *why a
 * short static reason. Pure: no I/O, any bytes accepted as input. */
int fr_control__parse_request(const char *line, size_t len, struct fr_control_req *req,
			      const char **why);
/* Parse one reply line (len bytes, no newline): "ok PATH" sets *ok = 1,
 * "error MSG" *ok = 0; *text and *text_len point at PATH or MSG inside line.
 * -EINVAL (with *why) for anything else, control characters included. */
int fr_control__parse_reply(const char *line, size_t len, int *ok, const char **text,
			    size_t *text_len, const char **why);

/* The run directory: opt, else $FLIGHTREC_RUN_DIR, else /run/flightrec for
 * root, else $XDG_RUNTIME_DIR/flightrec (when that directory is ours), else
 * /tmp/flightrec-UID. */
const char *fr_control__run_dir(const char *opt);

/* Names are [A-Za-z0-9_.-]{1,64}, not starting with a dot. */
int fr_control__valid_name(const char *name);

/* Why fr_control__listen failed, beyond its -errno. */
struct fr_control_fail {
	pid_t other;     /* -EEXIST: the live recorder holding the name, 0 if unknown */
	char file[128];  /* the path refused: "RUN_DIR/NAME.pid" (or RUN_DIR), "" if none */
	const char *why; /* with file: "is a symlink, not ours: refusing", ... */
};
/* Create run_dir (0700) unless it exists, then insist it is a directory (not
 * a symlink) owned by us with mode 0700 (-ENOTDIR, -ELOOP, -EPERM otherwise).
 * Lock run_dir/name.lock for the recorder's life, write name.pid, listen on
 * name.sock (0600). -EEXIST (and fail->other set) when a live recorder holds
 * the name. Nothing there is followed if it is a symlink: a symlink at
 * name.lock, name.pid or name.sock, or one of them not a regular file (a
 * socket) of ours, is refused (-ELOOP, -EPERM) and named in fail->file. */
int fr_control__listen(const char *run_dir, const char *name, struct fr_control **out,
		       struct fr_control_fail *fail);

/* The fds to poll: the listening socket first, then each client still
 * sending its request; at most FR_CONTROL_MAX_CLIENTS + 1. */
size_t fr_control__pollfds(const struct fr_control *c, struct pollfd *fds, size_t max);
/* Milliseconds until the next client deadline, -1 if none. */
int fr_control__timeout_ms(const struct fr_control *c);
/* After poll() on fds (as filled by fr_control__pollfds, revents set): read
 * what clients sent, accept new clients (only root and our own euid; the
 * rest are closed and counted), close clients past their deadline or over
 * the limit. For each complete request, cb gets the client fd, now owned by
 * the callback (answer it with fr_control__reply). Never blocks. */
typedef void (*fr_control_cb)(void *ctx, int client, const struct fr_control_req *req);
void fr_control__service(struct fr_control *c, const struct pollfd *fds, size_t n,
			 fr_control_cb cb, void *ctx);

/* Answer one client ("ok PATH"/"error MSG", a newline added) and close it. */
int fr_control__reply(int client, const char *line);
/* Close the socket; remove the socket, pid file and lock file. */
void fr_control__close(struct fr_control *c);

/* Client: check that run_dir and its socket belong to root or to us, connect,
 * check the recorder's uid (root or us), send req, wait up to timeout_ms for
 * the one-line reply (NUL-terminated, newline stripped). -ENOENT or
 * -ECONNREFUSED: no recorder with that name; -ETIMEDOUT; -EPERM (with *why):
 * the run dir, socket or peer is not trusted; -EBADMSG: malformed reply. */
/* Client: cb(waited_ms) about every second while a request waits for its
 * reply (progress on a terminal); NULL: none. */
void fr_control__on_wait(void (*cb)(uint64_t waited_ms));
int fr_control__request(const char *run_dir, const char *name, const char *req, char *reply,
			size_t len, int timeout_ms, const char **why);

/* The recorders running in run_dir: NAME.sock present and NAME.pid's
 * process alive. Fills names (each FR_CONTROL_NAME_MAX bytes) up to max and
 * returns how many there are (may exceed max), or -errno (-ENOENT: no run
 * directory). Untrusted directories are refused like fr_control__request. */
#define FR_CONTROL_NAME_MAX 65
int fr_control__list(const char *run_dir, char (*names)[FR_CONTROL_NAME_MAX], size_t max,
		     pid_t *pids, const char **why);

#endif
