/* SPDX-License-Identifier: MIT */
/*
 * device.c - device-clock phases: cycle stamps reduced to clk=dev spans.
 *
 * A device (an AICPU, a GPU) stamps raw counter cycles per thread and phase;
 * the host reads them back and turns each phase into one span on the device
 * clock. Device spans never touch CLOCK_MONOTONIC: their ts is an offset from
 * the earliest stamped phase start, so they compare with each other (the
 * union of concurrent phases is recoverable) but not with host spans.
 */
#include "internal.h"

int64_t stint_cycles_to_ns(uint64_t cycles, uint64_t freq_hz)
{
    if (freq_hz == 0)
        return 0;
    stint_i_u128 ns = (stint_i_u128)cycles * 1000000000u / freq_hz;
    return ns > (stint_i_u128)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

stint_status stint_device_phases(const stint_cycle_rec *recs, size_t nthreads, size_t nphases, uint64_t freq_hz,
                                 const char *const *names, int depth, size_t *emitted)
{
    if (emitted)
        *emitted = 0;
    if (freq_hz == 0 || ((!recs || !names) && nthreads && nphases) || depth < 0)
        return STINT_E_INVAL;
    if (nthreads && nphases > SIZE_MAX / nthreads)
        return STINT_E_INVAL;
    uint64_t origin = UINT64_MAX;
    /* pass 1: the origin is the earliest reduced start over every phase */
    for (size_t p = 0; p < nphases; p++) {
        for (size_t t = 0; t < nthreads; t++) {
            const stint_cycle_rec *r = &recs[t * nphases + p];
            if (r->start_cycle != STINT_CYCLE_UNSET && r->end_cycle != STINT_CYCLE_UNSET &&
                r->end_cycle > r->start_cycle && r->start_cycle < origin)
                origin = r->start_cycle;
        }
    }
    if (origin == UINT64_MAX)
        return STINT_OK; /* nothing stamped */
    size_t n = 0;
    for (size_t p = 0; p < nphases; p++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t t = 0; t < nthreads; t++) {
            const stint_cycle_rec *r = &recs[t * nphases + p];
            if (r->start_cycle == STINT_CYCLE_UNSET || r->end_cycle == STINT_CYCLE_UNSET ||
                r->end_cycle <= r->start_cycle)
                continue; /* incomplete: never invent an end */
            if (r->start_cycle < lo)
                lo = r->start_cycle;
            if (r->end_cycle > hi)
                hi = r->end_cycle;
        }
        if (lo == UINT64_MAX || !names[p])
            continue;
        int64_t ts = stint_cycles_to_ns(lo - origin, freq_hz);
        int64_t dur = stint_cycles_to_ns(hi - origin, freq_hz) - ts;
        stint_device_span(names[p], ts, dur, depth);
        n++;
    }
    if (emitted)
        *emitted = n;
    return STINT_OK;
}
