#!/usr/bin/env python3
"""Load benchmark of `hotword serve` (not a test): N clients at once, each streaming a keyword
clip over and over in real time with the reference Wyoming client classes (PyPI wyoming 1.10.2,
scripts/python-deps.sh). For each N it prints the server's CPU per stream (share of one core),
the detections received out of the keywords streamed, and the detection latency: from the moment
the chunk holding the detection's timestamp was sent (a live microphone cannot send it earlier)
to the moment the detection arrived.

  scripts/wyoming-load.py [--hotword .build/release/hotword] [--clients 10,25,50,75,100]
                          [--seconds 20] [--chunk-ms 32] [--clip FLAC] [--model computer]

The client runs on the same machine and takes CPU too; on 2 cores that is part of the result.
"""
import argparse
import asyncio
import os
import random
import resource
import re
import subprocess
import sys
import tempfile
import time

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.ping import Ping
from wyoming.wake import Detect, Detection

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIP = os.path.join(ROOT, "..", "shared", "data", "keywords", "computer", "24678e0b-4c73-4157-8a1f-50cc8f7b4020.flac")


def client_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stream(port: int, audio: bytes, seconds: float, chunk_ms: int, model: str, results: dict) -> None:
    client = AsyncTcpClient("127.0.0.1", port)
    await client.connect()
    await asyncio.sleep(random.random())  # streams start spread over a second, as real ones would
    chunk_bytes = 16 * chunk_ms * 2
    sent_at = {}  # chunk index -> wall time it was sent
    latencies = []

    async def receive():
        while True:
            event = await client.read_event()
            if event is None:
                return
            if Detection.is_type(event.type):
                detection = Detection.from_event(event)
                index = -(-detection.timestamp // chunk_ms) - 1  # the chunk holding the timestamp
                if index in sent_at:
                    latencies.append(time.monotonic() - sent_at[index])
            elif event.type == "pong":
                return

    reader = asyncio.create_task(receive())
    await client.write_event(Detect(names=[model]).event())
    await client.write_event(AudioStart(rate=16000, width=2, channels=1, timestamp=0).event())
    started = time.monotonic()
    # Whole clips only, so every keyword streamed is complete: at least `seconds` of audio.
    clips = max(1, -(-int(seconds * 32000) // len(audio)))
    whole = audio * clips
    index = 0
    for offset in range(0, len(whole), chunk_bytes):
        # Real time: the chunk is sent once all of its audio "has been heard".
        await asyncio.sleep(max(0, started + (index + 1) * chunk_ms / 1000 - time.monotonic()))
        await client.write_event(AudioChunk(16000, 2, 1, whole[offset:offset + chunk_bytes], timestamp=index * chunk_ms).event())
        sent_at[index] = time.monotonic()
        index += 1
    await client.write_event(AudioStop(timestamp=index * chunk_ms).event())
    await client.write_event(Ping(text="end").event())
    await asyncio.wait_for(reader, timeout=30)
    await client.disconnect()
    results["latencies"] += latencies
    results["keywords"] += clips


async def run(port: int, clients: int, audio: bytes, args) -> dict:
    results = {"latencies": [], "keywords": 0}
    await asyncio.gather(*(stream(port, audio, args.seconds, args.chunk_ms, args.model, results) for _ in range(clients)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hotword", default=os.path.join(ROOT, ".build", "release", "hotword"))
    parser.add_argument("--clients", default="10,25,50,75,100")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--chunk-ms", type=int, default=32)
    parser.add_argument("--clip", default=CLIP)
    parser.add_argument("--model", default="computer")
    args = parser.parse_args()
    audio = subprocess.run(["sox", args.clip, "-t", "raw", "-r", "16000", "-c", "1", "-e", "signed", "-b", "16", "-"],
                           check=True, capture_output=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as config:
        # Above the default limit of 100 connections, which would refuse the rest.
        config.write("[wyoming]\nmax_connections = 10000\n")
        config.flush()
        server = subprocess.Popen([args.hotword, "serve", "--wyoming", "tcp://127.0.0.1:0", "--no-zeroconf", "--config", config.name,
                                   "--model", args.model], stderr=subprocess.PIPE, text=True)
        try:
            port = None
            while port is None:
                line = server.stderr.readline()
                if not line:
                    sys.exit("hotword serve ended before it listened")
                found = re.search(r"listening on tcp://127\.0\.0\.1:(\d+)", line)
                port = int(found.group(1)) if found else None
            # Keep draining the log so the server never blocks on a full pipe.
            subprocess.Popen(["cat"], stdin=server.stderr, stdout=subprocess.DEVNULL)
            print(f"load average before: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; {args.seconds:.0f} s per run, {args.chunk_ms} ms chunks")
            print("clients  CPU/stream(% of a core)  detections/keywords  latency p50  p95  max(ms)  all<=100ms  client CPU(% of a core)")
            for clients in [int(n) for n in args.clients.split(",")]:
                before, began, mine = cpu_seconds(server.pid), time.monotonic(), client_cpu_seconds()
                results = asyncio.run(run(port, clients, audio, args))
                elapsed = time.monotonic() - began
                cpu = (cpu_seconds(server.pid) - before) / elapsed
                client_cpu = (client_cpu_seconds() - mine) / elapsed
                latencies = sorted(1000 * x for x in results["latencies"])
                if not latencies:
                    print(f"{clients:7d}  {100 * cpu / clients:23.2f}  {0:10d}/{results['keywords']:<8d}  no detections")
                    continue
                p50, p95 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.95)]
                print(f"{clients:7d}  {100 * cpu / clients:23.2f}  {len(latencies):10d}/{results['keywords']:<8d}"
                      f"  {p50:11.1f}  {p95:4.1f}  {latencies[-1]:7.1f}  {'yes' if latencies[-1] <= 100 else 'no':>10s}  {100 * client_cpu:.0f}",
                      flush=True)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
