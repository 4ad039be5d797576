/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - output files that are written whole or not at all (CLI
 * internal): `report -o`, `convert -o`, `convert --split-every`,
 * `timing --trace-out`.
 *
 * A file output is written to a temporary file in the target's own folder
 * (so the rename cannot cross file systems) and renamed over the target only
 * when every byte was written and the file closed without error. Until then
 * the old file, if any, is untouched; on failure the temporary file is
 * removed, also when the process ends early (exit, or SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE: a handler unlinks the pending temporaries and re-raises).
 * A target that is a symbolic link is resolved: the file it points to is
 * replaced, the link stays. The new file gets the old file's permission
 * bits, or 0666 less the umask when it is new. "-" is stdout, and a target
 * that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
 * written in place: a rename would replace the device node. Every message names the path and the errno text.
 */
#ifndef STINT_CLI_OUTFILE_H
#define STINT_CLI_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct stint_outfile {
    FILE *f;      /* where to write: the temporary file, or stdout */
    char *target; /* the file the temporary replaces (NULL for stdout) */
    char *tmp;    /* the temporary file's path (NULL for stdout) */
    int slot;     /* its place in the pending list (the signal handler's), -1 none */
};

/* Opens an output for path ("-": stdout). Returns 0, or an errno value
 * after printing "stint CMD: cannot write PATH: REASON" (o is then empty and
 * needs nothing more). */
int stint_outfile_open(struct stint_outfile *o, const char *cmd, const char *path);
/* Ends the output: flushes and closes the temporary and renames it over the
 * target. On a write, close or rename error the temporary is removed, the
 * target is untouched, a message names the path and errno, and the result is
 * STINT_EXIT_IO; else STINT_EXIT_OK. stdout is flushed, not closed. */
int stint_outfile_commit(struct stint_outfile *o, const char *cmd);
/* Gives the output up: the temporary is closed and removed, the target
 * untouched (stdout: nothing). */
void stint_outfile_abort(struct stint_outfile *o);

/* 1 when path (the output) names the same file as input (stat: same device
 * and inode, so a symbolic link or a hard link to the input is the input),
 * else 0; "-" and paths that do not exist yet are never the same. */
int stint_outfile_same(const char *path, const char *input);
/* The check every command with a file output makes before it reads: when
 * path is one of the n inputs, prints "stint CMD: the output PATH is the
 * input INPUT (...)" and returns STINT_EXIT_USAGE; else 0. */
int stint_outfile_refuse_input(const char *cmd, const char *path, const char *const *inputs, size_t n);

#endif
