"""Reference log-mel features and embeddings, computed by TensorFlow Lite from openWakeWord's own
model files, for hotword's tests to compare its Swift inference with
(Tests/HotwordCoreTests/SpeechEmbeddingTests.swift). Usage: reference.py MODELS_DIR OUT.json

The input is a real recording from ../shared/data (a person saying "computer"), read as 16-bit
integers the way openWakeWord reads microphone audio, and fed in openWakeWord's chunks: 1760
samples (8 mel frames) every 1280.
"""
import json, sys

import numpy as np
import soundfile
import tflite_runtime.interpreter as tfl

EMBEDDINGS = 12  # enough to cover the word; the fixture stays small
CLIP = "keywords/computer/04685ec1-bfbf-4c53-a852-60274a74d80e.flac"


def run(model, inputs):
    model.resize_tensor_input(0, inputs.shape, strict=True)
    model.allocate_tensors()
    model.set_tensor(model.get_input_details()[0]["index"], inputs)
    model.invoke()
    return model.get_tensor(model.get_output_details()[0]["index"])


def main():
    models_dir, out_path = sys.argv[1], sys.argv[2]
    clip = sys.argv[3] if len(sys.argv) > 3 else CLIP
    audio, rate = soundfile.read(f"../shared/data/{clip}", dtype="int16")
    assert rate == 16000
    audio = audio.astype(np.float32)
    mel = tfl.Interpreter(model_path=f"{models_dir}/melspectrogram.tflite", num_threads=1)
    emb = tfl.Interpreter(model_path=f"{models_dir}/embedding_model.tflite", num_threads=1)
    chunks = (len(audio) - 480) // 1280
    mels = np.concatenate([run(mel, audio[None, i * 1280:i * 1280 + 1760])[0, 0] for i in range(chunks)]) / 10 + 2
    # As openWakeWord streams: after each chunk, once 76 frames exist, the last 76 (ending at a chunk's end).
    embeddings = [run(emb, mels[None, end - 76:end, :, None].astype(np.float32)).reshape(-1)
                  for end in range(80, min(len(mels), 80 + 8 * (EMBEDDINGS - 1)) + 1, 8)]
    mels = mels[:80 + 8 * (len(embeddings) - 1)]
    with open(out_path, "w") as f:
        json.dump({"clip": clip, "mels": np.round(mels, 4).tolist(),
                   "embeddings": [np.round(e, 4).tolist() for e in embeddings]}, f)
    print(f"{out_path}: {len(mels)} mel frames, {len(embeddings)} embeddings of {clip}")


if __name__ == "__main__":
    main()
