/* tests/helpers/forker.c: N children forked one after another, each exiting
 * at once, each waited for: N exited processes for the recorder's model to
 * collect. Usage: forker N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 0;

	if (argc != 2 || *end || n < 1 || n > 1000000) {
		fprintf(stderr, "usage: forker N (1..1000000)\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid) {
			perror("forker: waitpid");
			return 1;
		}
	}
	printf("%ld\n", n);
	return 0;
}
