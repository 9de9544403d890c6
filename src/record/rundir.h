/* src/record/rundir.h: the run directory, shared by the recorder side
 * (control.c) and the client side (client.c): names of its files, the checks
 * that make it trusted, pid files. Private to src/record/.
 */
#ifndef FR_RUNDIR_H
#define FR_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

int fr_rundir_sock_addr(const char *run_dir, const char *name, const char *suffix,
		     struct sockaddr_un *sa);
int fr_rundir_mkdir_p(const char *dir);
int fr_rundir_open_checked(const char *dir, bool server, bool created, const char **why);
uint64_t fr_rundir_now_ms(void);
pid_t fr_rundir_read_pid(int dirfd, const char *name);

#endif
