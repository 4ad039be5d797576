/* SPDX-License-Identifier: MIT */
/*
 * version.h - the libstint version this header set belongs to, at compile time.
 *
 * Contract: STINT_VERSION_MAJOR, STINT_VERSION_MINOR and STINT_VERSION_PATCH
 * are the three parts of the release, equal to CMake's project(VERSION) (the
 * build refuses to configure when they differ). STINT_VERSION is one integer
 * that orders releases: MAJOR * 10000 + MINOR * 100 + PATCH (MINOR and PATCH
 * stay below 100), so code can test `#if STINT_VERSION >= 200`-style
 * conditions for a feature new in 0.2.0. STINT_VERSION_AT_LEAST(ma, mi, pa)
 * says the same with the parts. These describe the headers compiled against;
 * stint_version() returns the version of the library loaded at run time.
 * Included by <stint/stint.h>; usable alone, from C and C++ and in #if.
 */
#ifndef STINT_VERSION_H
#define STINT_VERSION_H

#define STINT_VERSION_MAJOR 0
#define STINT_VERSION_MINOR 1
#define STINT_VERSION_PATCH 0

#define STINT_VERSION \
    (STINT_VERSION_MAJOR * 10000 + STINT_VERSION_MINOR * 100 + STINT_VERSION_PATCH)

#define STINT_VERSION_AT_LEAST(major, minor, patch) \
    (STINT_VERSION >= ((major) * 10000 + (minor) * 100 + (patch)))

#endif /* STINT_VERSION_H */
