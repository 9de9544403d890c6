/* bench/workloads/messaging.c: `perf bench sched messaging` (hackbench) in threads
 * over AF_UNIX sockets. Prints ns per message, one line per run.
 */

/*
 * G groups of F senders and F receivers; every sender sends L 100-byte messages
 * to every receiver of its group; ns per message = total time / (G*F*F*L).
 */
#include "config.h"

#include <getopt.h>
#include <pthread.h>
#include <sys/socket.h>

#include "bench/workloads/wl.h"

#define MSG_SIZE 100
#define MAX_FDS 64
#define MAX_GROUPS 64

static const char *prog = "messaging";

struct start_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
};

struct worker {
	struct start_gate *gate;
	int fds[MAX_FDS];  /* sender: write ends of its group's receivers; receiver: fds[0] */
	int nr_fds;
	long loops;
	long expect;       /* receiver: bytes to read */
};

static void gate_wait(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void *sender(void *arg)
{
	struct worker *w = arg;
	char msg[MSG_SIZE];

	memset(msg, 'm', sizeof(msg));
	gate_wait(w->gate);
	for (long i = 0; i < w->loops; i++)
		for (int j = 0; j < w->nr_fds; j++)
			if (write(w->fds[j], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
				wl_die(prog, "write");
	return NULL;
}

static void *receiver(void *arg)
{
	struct worker *w = arg;
	char buf[MSG_SIZE * 16];

	gate_wait(w->gate);
	while (w->expect > 0) {
		ssize_t n = read(w->fds[0], buf, sizeof(buf) < (size_t)w->expect ? sizeof(buf)
										   : (size_t)w->expect);

		if (n <= 0)
			wl_die(prog, "read");
		w->expect -= n;
	}
	return NULL;
}

static double one_run(int groups, int nfds, long loops)
{
	size_t nw = (size_t)groups * (size_t)nfds * 2;
	struct start_gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct worker *w = calloc(nw, sizeof(*w));
	pthread_t *th = calloc(nw, sizeof(*th));
	unsigned long long t0, t1;
	int sv[2];

	if (!w || !th)
		wl_die(prog, "calloc");
	for (int g = 0; g < groups; g++) {
		struct worker *snd = w + (size_t)g * (size_t)nfds * 2, *rcv = snd + nfds;

		for (int r = 0; r < nfds; r++) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				wl_die(prog, "socketpair");
			rcv[r].fds[0] = sv[0];
			rcv[r].nr_fds = 1;
			rcv[r].expect = (long)nfds * loops * MSG_SIZE;
			for (int s = 0; s < nfds; s++)
				snd[s].fds[r] = sv[1];
		}
		for (int s = 0; s < nfds; s++) {
			snd[s].nr_fds = nfds;
			snd[s].loops = loops;
		}
	}
	for (size_t i = 0; i < nw; i++) {
		w[i].gate = &gate;
		errno = pthread_create(&th[i], NULL, (i / (size_t)nfds) % 2 ? receiver : sender, &w[i]);
		if (errno)
			wl_die(prog, "pthread_create");
	}
	pthread_mutex_lock(&gate.lock);
	t0 = wl_now_ns();
	gate.open = 1;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	for (size_t i = 0; i < nw; i++)
		pthread_join(th[i], NULL);
	t1 = wl_now_ns();
	for (size_t i = 0; i < nw; i++)
		if ((i / (size_t)nfds) % 2) {
			close(w[i].fds[0]);
			close(w[i - (size_t)nfds].fds[i % (size_t)nfds]);
		}
	free(w);
	free(th);
	return (double)(t1 - t0) / ((double)groups * nfds * nfds * (double)loops);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { 100, 1 };
	int c, groups = 2, nfds = 10;

	while ((c = getopt(argc, argv, "n:r:g:f:h")) != -1) {
		switch (c) {
		case 'n': o.ops = wl_parse(prog, "-n", optarg, 1, 100000000); break;
		case 'r': o.runs = wl_parse(prog, "-r", optarg, 1, 100000); break;
		case 'g': groups = (int)wl_parse(prog, "-g", optarg, 1, MAX_GROUPS); break;
		case 'f': nfds = (int)wl_parse(prog, "-f", optarg, 1, MAX_FDS); break;
		default: wl_usage(prog, " [-g GROUPS] [-f FDS]  (-n: loops per sender and receiver)");
		}
	}
	if (optind != argc)
		wl_usage(prog, " [-g GROUPS] [-f FDS]  (-n: loops per sender and receiver)");
	for (long r = 0; r < o.runs; r++)
		wl_print(one_run(groups, nfds, o.ops));
	return 0;
}
