#!/usr/bin/env python3
"""A stand-in for the cuzk daemon and cuzk-bench, for testing prooflab's external runner.

It writes the real formats (our own code; the formats are those of filecoin-project/curio:
extern/cuzk/cuzk-core/src/engine.rs `timeline_event` and the CUZK_TIMING lines of
extern/supraseal-c2/cuda/groth16_cuda.cu on stderr, tracing-subscriber lines on stdout,
extern/cuzk/cuzk-bench/src/main.rs batch lines and `=== Batch Summary ===`)
and takes the real knobs (cuzk.toml keys, CUZK_GPU_THREADS), but proves nothing: each stage
sleeps for a time given by the model below.

    cuzk_standin.py daemon --config cuzk.toml [--listen unix:///path.sock]
    cuzk_standin.py bench [--addr unix:///path.sock] batch --type porep --count N --concurrency J

`bench` talks to the daemon over a Unix socket; `bench --addr inline batch ...` runs the
engine in its own process instead (TIMELINE and CUZK_TIMING then go to its stderr).

Model (times in model milliseconds; STANDIN_TIME_SCALE real seconds per model second,
default 0.01, and every printed time is in model time so the formats keep their precision):
  * a proof has STANDIN_PARTITIONS partitions (default 10), each synthesized on its own
    thread (at most pipeline.max_parallel_synthesis at once; 0 = no limit) for SYNTH_MS;
  * gpus.gpu_workers_per_device workers (default 2) take synthesized partitions in (job,
    partition) order and hold one GPU mutex for GPU_MS each, then b_g2_msm runs outside
    the lock for B_G2_MS;
  * the groth16 pool size is gpus.gpu_threads when > 0 (the daemon exports it as
    CUZK_GPU_THREADS, as cuzk-daemon does), else $CUZK_GPU_THREADS, else 0 (all CPUs). A pool
    larger than SMALL_POOL threads (0 counts as large) makes the locked GPU phase
    LARGE_POOL_FACTOR times longer (the L3 interference of Phase 11's intervention 2), so
    with enough proofs in flight the throughput is GPU-bound at about
    partitions x GPU_MS x factor per proof.

Faults, from the environment: STANDIN_FAIL=1 (bench: two proofs, then exit 3),
STANDIN_HANG=1 (bench: one line, then a child and itself sleep forever), STANDIN_SILENT=1
(bench: exit 0, nothing importable), STANDIN_DAEMON_FAIL=1 (daemon: exit 1 before ready).
"""

from __future__ import annotations

import argparse
import os
import queue
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from datetime import datetime, timezone
from pathlib import Path

SYNTH_MS = 3000.0
GPU_MS = 1800.0
B_G2_MS = 450.0
SMALL_POOL = 64
LARGE_POOL_FACTOR = 1.25

SCALE = float(os.environ.get("STANDIN_TIME_SCALE", "0.01"))
PARTITIONS = int(os.environ.get("STANDIN_PARTITIONS", "10"))
EPOCH = time.monotonic()
_emit_lock = threading.Lock()


def model_ms(real_s: float) -> float:
    return real_s / SCALE * 1000.0


def now_ms() -> int:
    return int(model_ms(time.monotonic() - EPOCH))


def sleep_model(ms: float) -> None:
    time.sleep(ms / 1000.0 * SCALE)


def emit(line: str) -> None:
    with _emit_lock:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def info(message: str) -> None:
    """A tracing-subscriber line, on stdout as cuzk-daemon's default `fmt()` writes it."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with _emit_lock:
        sys.stdout.write(f"{stamp}  INFO cuzk_daemon: {message}\n")
        sys.stdout.flush()


def timeline(event: str, job: str, detail: str) -> None:
    emit(f"TIMELINE,{now_ms()},{event},{job},{detail}")


def timing(text: str) -> None:
    emit(f"CUZK_TIMING: {text}")


class Engine:
    """Synthesis threads feeding GPU workers that share one mutex."""

    def __init__(self, cfg: dict) -> None:
        gpus = cfg.get("gpus", {})
        pipeline = cfg.get("pipeline", {})
        configured = int(gpus.get("gpu_threads", 0))
        if configured > 0:
            os.environ["CUZK_GPU_THREADS"] = str(configured)
        self.pool = int(os.environ.get("CUZK_GPU_THREADS", "0") or 0)
        self.gpu_factor = LARGE_POOL_FACTOR if self.pool == 0 or self.pool > SMALL_POOL else 1.0
        limit = int(pipeline.get("max_parallel_synthesis", 0))
        self.synth_slots = threading.Semaphore(limit) if limit > 0 else None
        self.gpu_mutex = threading.Lock()
        self.queue: queue.PriorityQueue = queue.PriorityQueue()
        self.seq = 0
        self.seq_lock = threading.Lock()
        # Once per GPU, as supraseal-c2 does on first use (lines without durations).
        timing("set pool release threshold to MAX on gpu 0")
        timing("d_a_cache allocated 4096 MiB on gpu 0")
        for worker in range(int(gpus.get("gpu_workers_per_device", 2))):
            threading.Thread(target=self._gpu_worker, args=(worker,), daemon=True).start()

    def prove(self) -> tuple[int, int]:
        """One proof; returns (gpu_compute_ms, queue_wait_ms) in model time."""
        job = str(uuid.uuid4())
        with self.seq_lock:
            seq, self.seq = self.seq, self.seq + 1
        submitted = now_ms()
        state = {"left": PARTITIONS, "first_gpu": None, "last_gpu": 0, "first_synth": None}
        done = threading.Event()
        lock = threading.Lock()
        for p in range(PARTITIONS):
            threading.Thread(target=self._synthesize, args=(job, seq, p, state, lock, done), daemon=True).start()
        done.wait()
        return state["last_gpu"] - state["first_gpu"], state["first_synth"] - submitted

    def _synthesize(self, job, seq, p, state, lock, done) -> None:
        if self.synth_slots:
            self.synth_slots.acquire()
        with lock:
            if state["first_synth"] is None:
                state["first_synth"] = now_ms()
        timeline("SYNTH_START", job, f"partition={p}")
        t0 = time.monotonic()
        sleep_model(SYNTH_MS)
        timeline("SYNTH_END", job, f"partition={p},synth_ms={int(model_ms(time.monotonic() - t0))}")
        if self.synth_slots:
            self.synth_slots.release()
        timeline("GPU_QUEUE", job, f"partition={p}")
        self.queue.put((seq, p, job, state, lock, done))

    def _gpu_worker(self, worker: int) -> None:
        while True:
            _, p, job, state, lock, done = self.queue.get()
            timeline("GPU_PICKUP", job, f"worker={worker},partition={p}")
            timeline("GPU_START", job, f"worker={worker},partition={p}")
            entry = time.monotonic()
            timing(f"prep_msm_ms={int(GPU_MS * 0.05)}")
            before = time.monotonic()
            with self.gpu_mutex:
                locked = time.monotonic()
                timing(f"pre_lock_cpu_ms={int(model_ms(before - entry))} mutex_wait_ms={int(model_ms(locked - before))}")
                with lock:
                    if state["first_gpu"] is None:
                        state["first_gpu"] = now_ms()
                sleep_model(GPU_MS * self.gpu_factor)
                held = int(model_ms(time.monotonic() - locked))
                timing(f"gpu_tid=0 ntt_msm_h_ms={int(held * 0.55)}")
                timing(f"gpu_tid=0 batch_add_ms={int(held * 0.15)}")
                timing(f"gpu_tid=0 tail_msm_ms={int(held * 0.3)} gpu_total_ms={held}")
                timing(f"mutex_held_ms={held} total_start_fn_ms={int(model_ms(time.monotonic() - entry))}")
            threading.Thread(target=self._finalize, args=(worker, p, job, entry, state, lock, done), daemon=True).start()

    def _finalize(self, worker, p, job, entry, state, lock, done) -> None:
        t0 = time.monotonic()
        sleep_model(B_G2_MS * (192 / max(self.pool, 1)) ** 0.5 if self.pool else B_G2_MS)
        timing(f"b_g2_msm_ms={int(model_ms(time.monotonic() - t0))} num_circuits=1")
        timeline("GPU_END", job, f"worker={worker},partition={p},gpu_ms={int(model_ms(time.monotonic() - entry))}")
        timing("async_dealloc_ms=0")
        with lock:
            state["last_gpu"] = now_ms()
            state["left"] -= 1
            if state["left"] == 0:
                done.set()


def load_config(path: str) -> dict:
    p = Path(path)
    return tomllib.loads(p.read_text()) if p.exists() else {}


def socket_path(addr: str) -> str:
    if not addr.startswith("unix://"):
        sys.exit(f"cuzk_standin: address {addr!r} is not unix:///path (the stand-in listens on Unix sockets only)")
    return addr[len("unix://"):]


def daemon(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    if os.environ.get("STANDIN_DAEMON_FAIL") == "1":
        print("Error: failed to load config (STANDIN_DAEMON_FAIL)", file=sys.stderr)
        return 1
    listen = args.listen or cfg.get("daemon", {}).get("listen", "")
    path = socket_path(listen)
    engine = Engine(cfg)
    info(f"configuration loaded listen={listen}")

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            for line in self.rfile:
                if line.strip() != b"PROVE":
                    continue
                gpu_ms, queue_ms = engine.prove()
                self.wfile.write(f"DONE 1 {gpu_ms} {queue_ms}\n".encode())
                self.wfile.flush()

    if os.path.exists(path):
        os.unlink(path)
    server = socketserver.ThreadingUnixStreamServer(path, Handler)
    server.daemon_threads = True

    def stop(signum, frame):  # noqa: ARG001 - signal handler signature
        info("received SIGTERM, shutting down")
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    info(f"cuzk-daemon ready, serving on unix://{path}")
    server.serve_forever(poll_interval=0.05)
    server.server_close()
    os.unlink(path)
    return 0


def bench(args: argparse.Namespace) -> int:
    if os.environ.get("STANDIN_SILENT") == "1":
        print("nothing to see here")
        return 0
    engine = Engine(load_config(args.config)) if args.addr == "inline" else None
    path = None if engine else socket_path(args.addr)

    def prove_one() -> tuple[int, int, int]:
        if engine:
            gpu_ms, queue_ms = engine.prove()
            return 1, gpu_ms, queue_ms
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(path)
            s.sendall(b"PROVE\n")
            reply = s.makefile().readline().split()
        return int(reply[1]), int(reply[2]), int(reply[3])

    print("=== Batch Benchmark ===")
    print(f"proof type:  {args.type}")
    print(f"count:       {args.count}")
    print(f"concurrency: {args.concurrency}")
    print(flush=True)
    results: list[tuple[int, float, int]] = []
    slots = threading.Semaphore(args.concurrency)
    out_lock = threading.Lock()
    start = time.monotonic()

    def run(i: int) -> None:
        t0 = time.monotonic()
        status, gpu_ms, queue_ms = prove_one()
        wall = model_ms(time.monotonic() - t0) / 1000.0
        slots.release()
        with out_lock:
            label = "COMPLETED" if status == 1 else "FAILED"
            print(f"  [{i + 1}/{args.count}] {label} — {wall:.1f}s (prove={gpu_ms} ms, queue={queue_ms} ms)", flush=True)
            results.append((status, wall, gpu_ms))
            if os.environ.get("STANDIN_FAIL") == "1" and len(results) == 2:
                print("Error: proof RPC failed: transport error (STANDIN_FAIL)", file=sys.stderr, flush=True)
                os._exit(3)
            if os.environ.get("STANDIN_HANG") == "1":
                # A child that names the bench's arguments, so a test can see it is gone.
                subprocess.Popen(["sh", "-c", 'sleep 3600; : "$@"', "standin-hang-child", *sys.argv])
                while True:
                    time.sleep(3600)

    threads = []
    for i in range(args.count):
        slots.acquire()
        t = threading.Thread(target=run, args=(i,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    total = model_ms(time.monotonic() - start) / 1000.0
    done = [r for r in results if r[0] == 1]
    print()
    print("=== Batch Summary ===")
    print(f"total time:    {total:.1f}s")
    print(f"completed:     {len(done)}")
    print(f"failed:        {len(results) - len(done)}")
    if done:
        walls = [r[1] for r in done]
        proves = [r[2] / 1000.0 for r in done]
        print(f"wall time:     avg={sum(walls) / len(walls):.1f}s min={min(walls):.1f}s max={max(walls):.1f}s")
        print(f"prove time:    avg={sum(proves) / len(proves):.1f}s min={min(proves):.1f}s max={max(proves):.1f}s")
        print(f"throughput:    {len(done) / total * 60:.3f} proofs/min ({total / len(done):.1f}s/proof)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="cuzk_standin.py")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("daemon")
    d.add_argument("-c", "--config", default="/data/zk/cuzk.toml")
    d.add_argument("-l", "--listen")
    b = sub.add_parser("bench")
    b.add_argument("-a", "--addr", default="inline")
    b.add_argument("--config", default="", help="engine config when --addr inline")
    bsub = b.add_subparsers(dest="bench_command", required=True)
    batch = bsub.add_parser("batch")
    batch.add_argument("-t", "--type", required=True)
    batch.add_argument("--c1")
    batch.add_argument("-c", "--count", type=int, default=3)
    batch.add_argument("-j", "--concurrency", type=int, default=1)
    args = parser.parse_args()
    return daemon(args) if args.command == "daemon" else bench(args)


if __name__ == "__main__":
    sys.exit(main())
