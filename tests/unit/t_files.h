/* t_files.h - files the unit tests write: a temporary file with given
 * bytes, and a graph opened from HLO text as every command opens a file. */
#ifndef HS_T_FILES_H
#define HS_T_FILES_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "loader/graph.h"

/* Writes n bytes to a new file under /tmp; its name in path (64 bytes).
 * 0, or -1 when it cannot be written (then nothing is left). */
static inline int t_temp_file(char *path, const void *data, size_t n)
{
	snprintf(path, 64, "/tmp/hloscope-test.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	int ok = write(fd, data, n) == (ssize_t)n;
	if (close(fd) != 0 || !ok) {
		unlink(path);
		return -1;
	}
	return 0;
}

/* The graph of an HLO text, read from a temporary file (graph_open); NULL
 * with the reason printed as a comment line. */
static inline hs_graph *t_graph_of_text(const char *text, size_t n)
{
	char path[64];
	hs_error err = {0};
	if (t_temp_file(path, text, n) != 0) {
		printf("# a temporary file could not be written\n");
		return NULL;
	}
	hs_graph *g = graph_open(path, &err);
	if (!g)
		printf("# open: %s\n", err.msg);
	unlink(path);
	return g;
}

#endif
