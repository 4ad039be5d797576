#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates Kineto-style PyTorch profiler traces (one file per rank) for
`stint gpu`'s tests and its throughput bench.

Each rank has a CPU thread with ProfilerStep#N spans holding nested cpu_op
spans, runtime calls (cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync,
cudaStreamSynchronize) with args.correlation and ac2g flows, and device
work on several devices and streams: compute kernels, NCCL kernels on their
own stream overlapping the compute, copies and sets, kernels nested or
overlapping on one stream, gpu_user_annotation spans on the stream lanes
(not device work), kernels whose correlation matches no call (graphs), kernels
without a correlation, and launches whose kernel is missing. Timestamps are
microseconds with three decimals (ns resolution), as Kineto writes them.

usage: gen_kineto.py OUT_PREFIX [--ranks R] [--devices D] [--steps K]
                     [--ops N] [--seed S] [--bytes B] [--no-rank-info]
                     [--cpu-threads T]
Writes OUT_PREFIX.rank<i>.json. With --bytes, rank 0's file grows (more
steps) until it holds about B bytes; the other options then shape it.
With --cpu-threads T (default 1), the steps take turns on T CPU threads
(tids 7, 8, ...); T = 1 writes the same file as before the option.
"""
import json
import random
import sys


def us(ns):
    """ns as Kineto's microsecond text with three decimals."""
    return "%d.%03d" % divmod(ns, 1000)


COMPUTE = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
           "volta_sgemm_128x64_nn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>",
           "void at::native::reduce_kernel<512, 1>", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn"]
COMM = ["ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclKernel_ReduceScatter_RING_LL_Sum_half"]
OPS = [("aten::linear", "aten::addmm"), ("aten::conv2d", "aten::cudnn_convolution"),
       ("aten::add", None), ("aten::batch_norm", "aten::native_batch_norm"), ("aten::copy_", None)]


class Writer:
    """Writes events one per line into a Kineto-shaped JSON object."""

    def __init__(self, path, rank, rank_info):
        self.f = open(path, "w")
        head = {"schemaVersion": 1, "deviceProperties": []}
        if rank_info:
            head["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 0}
        self.f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        self.first = True
        self.bytes = 0

    def ev(self, text):
        if not self.first:
            self.f.write(",\n")
        self.first = False
        self.f.write(text)
        self.bytes += len(text) + 2

    def close(self):
        self.f.write('\n], "traceName": "gen"}\n')
        self.f.close()


def x(cat, name, pid, tid, ts, dur, args=None):
    a = "" if args is None else ', "args": ' + json.dumps(args)
    return ('{"ph": "X", "cat": "%s", "name": %s, "pid": %s, "tid": %s, "ts": %s, "dur": %s%s}'
            % (cat, json.dumps(name), json.dumps(pid), json.dumps(tid), us(ts), us(dur), a))


def flow(ph, cid, pid, tid, ts):
    bp = ', "bp": "e"' if ph == "f" else ""
    return ('{"ph": "%s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"%s}'
            % (ph, cid, pid, tid, us(ts), bp))


def gen_rank(w, rank, opts, rnd):
    """One rank's events; stops after opts steps (or at opts bytes)."""
    cpu_pid, cpu_tid = 1000 + rank, 7
    devs = list(range(opts["devices"]))
    streams = [7, 20, 33]  # 20: NCCL, 33: copies
    w.ev('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "python"}}' % cpu_pid)
    w.ev('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "python"}}' % (cpu_pid, cpu_tid))
    nthreads = opts.get("cpu-threads", 1)
    for i in range(1, nthreads):
        w.ev('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "python worker %d"}}'
             % (cpu_pid, cpu_tid + i, i))
    tid0 = cpu_tid
    for d in devs:
        w.ev('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "GPU %d"}}' % (d, d))
        for s in streams:
            w.ev('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "stream %d "}}'
                 % (d, s, s))
    t = 1_700_000_000_000 + rank * 1_000_000 + rnd.randint(0, 999)
    corr = 1000 * (rank + 1)
    dev_free = {(d, s): t for d in devs for s in streams}
    k = 0
    while (opts["bytes"] and w.bytes < opts["bytes"]) or (not opts["bytes"] and k < opts["steps"]):
        k += 1
        cpu_tid = tid0 + (k - 1) % nthreads
        step0 = t
        body = []  # the step's events, written after the step span (its dur is known then)
        t += rnd.randint(5_000, 20_000)
        for _ in range(opts["ops"]):
            outer, inner = OPS[rnd.randrange(len(OPS))]
            o0 = t
            t += rnd.randint(500, 3_000)
            i0 = t
            nl = rnd.randint(1, 4)
            for _ in range(nl):
                corr += 1
                kind = rnd.random()
                d = devs[rnd.randrange(len(devs))]
                if kind < 0.12:
                    call, cat, name, s = "cudaMemcpyAsync", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 33
                elif kind < 0.18:
                    call, cat, name, s = "cudaMemsetAsync", "gpu_memset", "Memset (Device)", 33
                elif kind < 0.30:
                    call, cat, name, s = "cudaLaunchKernel", "kernel", COMM[rnd.randrange(len(COMM))], 20
                else:
                    call, cat, name, s = "cudaLaunchKernel", "kernel", COMPUTE[rnd.randrange(len(COMPUTE))], 7
                c0 = t
                cd = rnd.randint(2_000, 9_000)
                body.append(x("cuda_runtime", call, cpu_pid, cpu_tid, c0, cd, {"cbid": 211, "correlation": corr}))
                t += cd + rnd.randint(100, 900)
                r = rnd.random()
                if r < 0.03:  # a launch whose kernel is missing
                    continue
                body.append(flow("s", corr, cpu_pid, cpu_tid, c0))
                start = max(c0 + rnd.randint(3_000, 40_000), dev_free[(d, s)] - rnd.randint(0, 4_000))
                dur = rnd.randint(1_000, 120_000 if s == 20 else 60_000)
                dev_free[(d, s)] = start + dur
                args = {"device": d, "stream": s, "correlation": corr}
                if r < 0.06:  # a graph kernel: its correlation matches no call
                    args["correlation"] = 10**9 + corr
                elif r < 0.08:
                    del args["correlation"]
                body.append(x(cat, name, d, s, start, dur, args))
                body.append(flow("f", corr, d, s, start))
                if r > 0.97:  # a kernel nested inside the previous one on its stream
                    body.append(x("kernel", COMPUTE[0], d, s, start + dur // 4, dur // 3,
                                  {"device": d, "stream": s, "correlation": corr}))
            body.append(x("cuda_runtime", "cudaStreamSynchronize", cpu_pid, cpu_tid, t, 1_500,
                          {"cbid": 131, "correlation": corr + 500_000_000}))
            t += 1_500 + rnd.randint(100, 500)
            if inner:
                body.append(x("cpu_op", inner, cpu_pid, cpu_tid, i0, t - i0, {"External id": corr}))
            t += rnd.randint(200, 1_000)
            body.append(x("cpu_op", outer, cpu_pid, cpu_tid, o0, t - o0, {"External id": corr}))
        d = devs[0]
        a0 = max(step0, dev_free[(d, 7)] - 50_000)
        body.append(x("gpu_user_annotation", "ProfilerStep#%d" % k, d, 7, a0, 30_000, {"device": d}))
        t = max(t, max(dev_free.values())) + rnd.randint(1_000, 30_000) * (1 + rank)
        w.ev(x("user_annotation", "ProfilerStep#%d" % k, cpu_pid, cpu_tid, step0, t - step0, {"External id": k}))
        for e in body:
            w.ev(e)
        t += rnd.randint(1_000, 5_000)


def main(argv):
    opts = {"ranks": 1, "devices": 1, "steps": 4, "ops": 6, "seed": 1, "bytes": 0, "rank_info": True}
    prefix = argv[1]
    i = 2
    while i < len(argv):
        a = argv[i]
        if a == "--no-rank-info":
            opts["rank_info"] = False
            i += 1
            continue
        opts[a[2:]] = int(argv[i + 1])
        i += 2
    for r in range(opts["ranks"]):
        w = Writer("%s.rank%d.json" % (prefix, r), r, opts["rank_info"])
        gen_rank(w, r, dict(opts, bytes=opts["bytes"] if r == 0 else 0), random.Random(opts["seed"] * 7919 + r))
        w.close()


if __name__ == "__main__":
    main(sys.argv)
