/*
 * input.c - a file named on the command line, opened to read without
 * waiting for a writer (cli.h: open_input()).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli.h"

FILE *open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags;
	FILE *f;

	if (fd < 0)
		return NULL;
	/* Open, it reads as any file: a FIFO that still has no writer at
	 * its end, at once (read() returns 0). */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	return f;
}
