"""Converts openWakeWord's speech embedding (Google's speech_embedding, Apache-2.0) from the
TensorFlow Lite files in the wyoming-openwakeword wheel to hotword's own tensor file (HWSE).

Run by scripts/speech-embedding/import.sh, which pins and checks every input. It reads the
network layer by layer, checks that it is the shape hotword's Swift inference implements
(convolutions valid in time and 'same' across mel bands, leaky ReLU clamped below, max pools),
and checks that melspectrogram.tflite computes exactly the log-mel features hotword's frontend
preset describes (a periodic Hann window of 400 samples, 32 Slaney mel bands from 60 to 3800 Hz):
nothing is taken on trust. Usage: convert.py MODELS_DIR OUT.hwse PROVENANCE_JSON
"""
import json, math, os, struct, sys, zlib

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator

OPS = {v: k for k, v in BuiltinOperator.__dict__.items() if not k.startswith("_")}
VALID, SAME = 1, 0  # tflite.Padding


def load(path):
    buf = open(path, "rb").read()
    model = tflite.Model.GetRootAsModel(buf, 0)
    return model, model.Subgraphs(0)


def tensor(model, graph, index):
    t = graph.Tensors(index)
    data = model.Buffers(t.Buffer()).DataAsNumpy()
    shape = [t.Shape(i) for i in range(t.ShapeLength())]
    if isinstance(data, int):  # no buffer: an activation, not a constant
        return None
    assert t.Type() == 0, f"tensor {t.Name()} is not float32"
    return np.frombuffer(data.tobytes(), dtype="<f4").reshape(shape)


def op_name(model, op):
    code = model.OperatorCodes(op.OpcodeIndex())
    return OPS[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]


def options(op, kind):
    o = op.BuiltinOptions()
    opts = kind()
    opts.Init(o.Bytes, o.Pos)
    return opts


def embedding_layers(model, graph):
    """[(layer dict, [weight arrays])] in order, with the activation folded into each convolution."""
    layers, pending_pad = [], False
    ops = [graph.Operators(i) for i in range(graph.OperatorsLength())]
    i = 0
    while i < len(ops):
        op, name = ops[i], op_name(model, ops[i])
        if name == "PAD":
            pads = np.frombuffer(model.Buffers(graph.Tensors(op.Inputs(1)).Buffer()).DataAsNumpy().tobytes(), dtype="<i4").reshape(4, 2)
            assert pads.tolist() == [[0, 0], [0, 0], [1, 1], [0, 0]], f"unexpected padding {pads.tolist()}"
            pending_pad = True
        elif name == "CONV_2D":
            o = options(op, tflite.Conv2DOptions)
            assert (o.StrideH(), o.StrideW(), o.DilationHFactor(), o.DilationWFactor(), o.FusedActivationFunction()) == (1, 1, 1, 1, 0)
            w, b = tensor(model, graph, op.Inputs(1)), tensor(model, graph, op.Inputs(2))
            out, kh, kw, inp = w.shape
            # Valid in time; across mel bands either 'same' or valid after an explicit one-band pad.
            if o.Padding() == SAME:
                assert kh == 1, "a 'same' convolution over time is not implemented"
            else:
                assert kw == 1 or (kw == 3 and pending_pad), "a valid convolution across mel bands is not implemented"
            pending_pad = False
            activation = "linear"
            if i + 2 < len(ops) and op_name(model, ops[i + 1]) == "LEAKY_RELU" and op_name(model, ops[i + 2]) == "MAXIMUM":
                slope = options(ops[i + 1], tflite.LeakyReluOptions).Alpha()
                floor = float(tensor(model, graph, ops[i + 2].Inputs(1)).reshape(-1)[0])
                activation = {"leakyReLU": {"slope": slope, "floor": floor}}
                i += 2
            layers.append(({"type": "conv2d", "inputs": int(inp), "outputs": int(out), "kernelTime": int(kh),
                            "kernelBands": int(kw), "activation": activation}, [w.reshape(-1), b.reshape(-1)]))
        elif name == "MAX_POOL_2D":
            o = options(op, tflite.Pool2DOptions)
            assert (o.StrideH(), o.StrideW()) == (o.FilterHeight(), o.FilterWidth()), "overlapping pools are not implemented"
            layers.append(({"type": "maxPool", "time": o.FilterHeight(), "bands": o.FilterWidth()}, []))
        else:
            raise SystemExit(f"operator {name} is not implemented by hotword's speech embedding")
        i += 1
    return layers


def slaney_filterbank(bands, low, high, fft_size, rate):
    """librosa.filters.mel(htk=False, norm='slaney'), as [bins][bands]."""
    def to_mel(f):
        return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-9) / 1000) / (np.log(6.4) / 27), 3 * f / 200)

    def to_hz(m):
        return np.where(m >= 15, 1000 * np.exp(np.log(6.4) / 27 * (m - 15)), 200 * m / 3)
    bins = np.linspace(0, rate / 2, fft_size // 2 + 1)
    edges = to_hz(np.linspace(to_mel(np.array(low)), to_mel(np.array(high)), bands + 2))
    w = np.zeros((bands, len(bins)))
    for i in range(bands):
        rise = (bins - edges[i]) / (edges[i + 1] - edges[i])
        fall = (edges[i + 2] - bins) / (edges[i + 2] - edges[i + 1])
        w[i] = np.maximum(0, np.minimum(rise, fall)) * 2 / (edges[i + 2] - edges[i])
    return w.T


def check_melspectrogram(model, graph):
    """The mel model must be a DFT of a periodic 400-sample Hann window centred in 512 samples
    every 160 samples, power, the filterbank above, 10·log10 of at least 1e-10, an 80 dB range."""
    consts = {graph.Tensors(i).Name().decode(): tensor(model, graph, i)
              for i in range(graph.TensorsLength()) if graph.Tensors(i).Type() == 0}
    consts = {k: v for k, v in consts.items() if v is not None}
    n = np.arange(512)
    window = np.zeros(512)
    window[56:456] = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)
    kernels = [v[:, 0, :, 0] for v in consts.values() if v.shape == (257, 1, 512, 1)]
    assert len(kernels) == 2
    cos = np.stack([window * np.cos(2 * np.pi * k * n / 512) for k in range(257)])
    sin = np.stack([window * np.sin(2 * np.pi * k * n / 512) for k in range(257)])
    assert min(np.abs(k - cos).max() for k in kernels) < 1e-6 and min(np.abs(np.abs(k) - np.abs(sin)).max() for k in kernels) < 1e-6
    mel = [v for v in consts.values() if v.shape == (257, 32)][0]
    assert np.abs(mel - slaney_filterbank(32, 60, 3800, 512, 16000)).max() < 1e-8
    scalars = sorted(float(v.reshape(-1)[0]) for v in consts.values() if v.size == 1)
    for expected in (1e-10, 10.0, 1 / math.log(10), 80.0):
        assert any(math.isclose(s, expected, rel_tol=1e-6) for s in scalars), f"constant {expected} not found"


def main():
    models_dir, out_path, provenance = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    check_melspectrogram(*load(f"{models_dir}/melspectrogram.tflite"))
    layers = embedding_layers(*load(f"{models_dir}/embedding_model.tflite"))
    weights, headers = [], []
    for header, tensors in layers:
        refs = {}
        for name, values in zip(("weights", "bias"), tensors):
            refs[name] = {"offset": sum(len(w) for w in weights), "count": len(values)}
            weights.append(values.astype("<f4"))
        if refs:
            header["tensors"] = refs
        headers.append(header)
    flat = np.concatenate(weights)
    header = {
        "provenance": provenance,
        "windowFrames": 76, "hopFrames": 8, "melBands": 32, "outputs": 96,
        # openWakeWord's features: 10·log10(power of int16-scaled audio) / 10 + 2, at most 8 below
        # the loudest value of each 8-frame chunk (its 80 dB range).
        "input": {"int16Scale": 32768.0, "offset": 2.0, "range": 8.0},
        "layers": headers, "weightCount": int(len(flat)),
    }
    body = json.dumps(header, indent=1, sort_keys=True).encode()
    data = b"HWSE" + struct.pack("<II", 1, len(body)) + body + b"\0" * ((4 - len(body) % 4) % 4) + flat.tobytes()
    data += struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)
    tmp = out_path + ".partial"  # never a half-written model under the real name
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out_path)
    print(f"{out_path}: {len(headers)} layers, {len(flat)} weights, {len(data)} bytes")


if __name__ == "__main__":
    main()
