/* bench/bpf/empty.c: loads bench/bpf/empty.bpf.o's programs (libbpf),
 * attaches them, prints "attached" and holds them until SIGINT or SIGTERM.
 * Usage: empty OBJECT
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_link *links[8];
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: empty OBJECT\n");
		return 64;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "empty: %s: not loaded\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (n == 8 || !(links[n] = bpf_program__attach(p))) {
			fprintf(stderr, "empty: %s: not attached\n", bpf_program__name(p));
			return 1;
		}
		n++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached %d\n", n);
	fflush(stdout);
	while (!done)
		pause();
	for (int i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return 0;
}
