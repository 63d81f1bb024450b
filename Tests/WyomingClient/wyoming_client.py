#!/usr/bin/env python3
"""A Wyoming client built from the reference implementation (PyPI `wyoming`, pinned below), for
the tests of `hotword serve` and scripts/wyoming-load.sh. Prints every event it receives as a
JSON line: {"type", "data", "at"} ("at": seconds since the first audio was sent).

  wyoming_client.py URI describe
  wyoming_client.py URI detect WAV [--names N…] [--start-ms T] [--chunk-ms 20] [--rate R]
                    [--width W] [--channels C] [--pace 1.0] [--stop-after-ms N]
  wyoming_client.py URI ping [--nest N]
      a ping whose data nests N objects deep; prints what comes back until pong or the end.
  wyoming_client.py URI raw TEXT [--keep-open]
      TEXT with Python escapes, e.g. '{"type": 1}\\n'; then half-closes unless --keep-open.
URI: tcp://HOST:PORT or unix:///PATH (raw: tcp only).
"""
import argparse
import asyncio
import json
import sys
import time
import wave
from importlib.metadata import version

from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.client import AsyncClient, AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.wake import Detect, Detection, NotDetected

PINNED = "1.10.2"


def show(event, started=None):
    at = None if started is None else round(time.monotonic() - started, 4)
    print(json.dumps({"type": event.type, "data": event.data, "at": at}), flush=True)


async def describe(client: AsyncClient) -> None:
    await client.write_event(Describe().event())
    event = await client.read_event()
    assert event is not None and Info.is_type(event.type), event
    # Parsed with the reference's own classes, so a field it needs that is missing fails here.
    info = Info.from_event(event)
    assert info.wake and info.wake[0].models, info
    show(event)


async def detect(client: AsyncClient, args) -> None:
    with wave.open(args.wav, "rb") as wav:
        rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
        audio = wav.readframes(wav.getnframes())
    converter = AudioChunkConverter(rate=args.rate or rate, width=args.width or width, channels=args.channels or channels)
    started = time.monotonic()

    async def receive():
        while True:
            event = await client.read_event()
            if event is None:
                print(json.dumps({"type": "closed"}), flush=True)
                return
            show(event, started)
            if Detection.is_type(event.type):
                Detection.from_event(event)  # must parse with the reference's class
            if Pong.is_type(event.type):
                return

    reader = asyncio.create_task(receive())
    if args.names:
        await client.write_event(Detect(names=args.names).event())
    frames_per_chunk = rate * args.chunk_ms // 1000
    bytes_per_chunk = frames_per_chunk * width * channels
    await client.write_event(AudioStart(rate=converter.rate, width=converter.width, channels=converter.channels,
                                        timestamp=args.start_ms).event())
    sent_ms = 0
    for offset in range(0, len(audio), bytes_per_chunk):
        if args.stop_after_ms is not None and sent_ms >= args.stop_after_ms:
            # A client that goes away mid-stream: no audio-stop, the socket just closes.
            reader.cancel()
            await client.disconnect()
            print(json.dumps({"type": "disconnected", "after_ms": sent_ms}), flush=True)
            return
        chunk = AudioChunk(rate, width, channels, audio[offset:offset + bytes_per_chunk], timestamp=args.start_ms + sent_ms)
        await client.write_event(converter.convert(chunk).event())
        sent_ms += chunk.milliseconds
        if args.pace:
            # Real time (pace 1) or faster: wait until this chunk's time has come.
            delay = started + sent_ms / 1000 / args.pace - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
    await client.write_event(AudioStop(timestamp=args.start_ms + sent_ms).event())
    # The server answers in order: its pong comes after everything audio-stop caused.
    await client.write_event(Ping(text="end").event())
    await asyncio.wait_for(reader, timeout=30)


async def ping(client: AsyncClient, nest: int) -> None:
    data = {"text": "end"}
    for _ in range(nest):
        data = {"nested": data}
    await client.write_event(Event(type=Ping().event().type, data=data))
    while True:
        event = await asyncio.wait_for(client.read_event(), timeout=10)
        if event is None:
            print(json.dumps({"type": "closed"}), flush=True)
            return
        show(event)
        if Pong.is_type(event.type):
            return


async def raw(host: str, port: int, text: str, keep_open: bool) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(text.encode("utf-8").decode("unicode_escape").encode("latin-1"))
    await writer.drain()
    if not keep_open:
        writer.write_eof()
    while True:
        try:
            event = await asyncio.wait_for(async_read_event(reader), timeout=10)
        except asyncio.TimeoutError:
            print(json.dumps({"type": "still-open"}), flush=True)
            break
        if event is None:
            print(json.dumps({"type": "closed"}), flush=True)
            break
        show(event)
    writer.close()


async def main() -> None:
    if version("wyoming") != PINNED:
        sys.exit(f"wyoming {version('wyoming')} is installed; these tests pin {PINNED} (pip install wyoming=={PINNED})")
    parser = argparse.ArgumentParser()
    parser.add_argument("uri")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("describe")
    detecting = commands.add_parser("detect")
    detecting.add_argument("wav")
    detecting.add_argument("--names", nargs="*")
    detecting.add_argument("--start-ms", type=int, default=0)
    detecting.add_argument("--chunk-ms", type=int, default=20)
    detecting.add_argument("--rate", type=int)
    detecting.add_argument("--width", type=int)
    detecting.add_argument("--channels", type=int)
    detecting.add_argument("--pace", type=float, default=0)
    detecting.add_argument("--stop-after-ms", type=int)
    pinging = commands.add_parser("ping")
    pinging.add_argument("--nest", type=int, default=0)
    raw_parser = commands.add_parser("raw")
    raw_parser.add_argument("text")
    raw_parser.add_argument("--keep-open", action="store_true")
    args = parser.parse_args()

    if args.uri.startswith("unix://"):
        client = AsyncClient.from_uri(args.uri)
    else:
        host, port = args.uri.removeprefix("tcp://").rsplit(":", 1)
        if args.command == "raw":
            await raw(host, int(port), args.text, args.keep_open)
            return
        client = AsyncTcpClient(host, int(port))
    await client.connect()
    try:
        if args.command == "describe":
            await describe(client)
        elif args.command == "ping":
            await ping(client, args.nest)
        else:
            await detect(client, args)
    finally:
        await client.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
