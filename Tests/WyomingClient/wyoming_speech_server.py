#!/usr/bin/env python3
"""A Wyoming speech-to-text and text-to-speech server built from the reference implementation's
server classes (PyPI wyoming 1.10.2), for the tests of hotword's `wyoming` backends. Listens on
127.0.0.1 and a port the system chooses, prints "listening on tcp://127.0.0.1:PORT", serves
until it is stopped.

  transcribe + audio  → transcript "heard N samples at R Hz, W bytes, C channels, language L, model M"
  synthesize          → 22050 Hz 16-bit mono: a 440 Hz tone at half scale, 0.1 s per word, in 50 ms chunks

  --mode normal | error (an `error` event instead of the answer) | silent (no answer at all)
  --port N: listen on this port (a server that comes back where it was); 0, the default: any free one
"""
import argparse
import asyncio
import math
import struct
from functools import partial

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.server import AsyncEventHandler, AsyncTcpServer
from wyoming.tts import Synthesize

RATE = 22050


class Handler(AsyncEventHandler):
    def __init__(self, mode: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.mode = mode
        self.request = Transcribe()
        self.format = None
        self.samples = 0

    async def answer(self, events) -> None:
        if self.mode == "silent":
            return
        if self.mode == "error":
            await self.write_event(Error(text="model not loaded", code="test").event())
            return
        for event in events:
            await self.write_event(event)

    async def handle_event(self, event: Event) -> bool:
        if Transcribe.is_type(event.type):
            self.request, self.samples = Transcribe.from_event(event), 0
        elif AudioStart.is_type(event.type):
            self.format = AudioStart.from_event(event)
        elif AudioChunk.is_type(event.type):
            self.samples += AudioChunk.from_event(event).samples
        elif AudioStop.is_type(event.type):
            f = self.format
            text = (f"heard {self.samples} samples at {f.rate} Hz, {f.width} bytes, {f.channels} channels, "
                    f"language {self.request.language}, model {self.request.name}")
            await self.answer([Transcript(text=text).event()])
        elif Synthesize.is_type(event.type):
            request = Synthesize.from_event(event)
            frames = int(RATE * 0.1 * len(request.text.split()))
            audio = b"".join(struct.pack("<h", int(16383 * math.sin(2 * math.pi * 440 * i / RATE))) for i in range(frames))
            step = RATE // 20 * 2
            chunks = [AudioChunk(RATE, 2, 1, audio[i:i + step]).event() for i in range(0, len(audio), step)]
            await self.answer([AudioStart(RATE, 2, 1).event()] + chunks + [AudioStop().event()])
        return True


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["normal", "error", "silent"], default="normal")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = AsyncTcpServer("127.0.0.1", args.port)
    await server.start(partial(Handler, args.mode))
    port = server._server.sockets[0].getsockname()[1]
    print(f"listening on tcp://127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
