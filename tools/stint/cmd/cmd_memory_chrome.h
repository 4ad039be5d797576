/* SPDX-License-Identifier: MIT */
/*
 * cmd_memory_chrome.h - `stint memory` on a Chrome trace (Kineto [memory]
 * records): see cmd_memory_chrome.c.
 */
#ifndef STINT_CLI_CMD_MEMORY_CHROME_H
#define STINT_CLI_CMD_MEMORY_CHROME_H

#include "cmd/cmdopts.h"

/* Reads o->path as a Chrome trace and prints the memory report of its
 * Kineto [memory] records (per process and device; with timeline, every
 * record). Returns the exit code (base/exitcode.h). */
int stint_memory_chrome(const struct stint_cmd_opts *o, int timeline);

#endif
