"""torch.nn.functional.conv2d on ResNet-18's convolutions, the shapes and the timing method of
conv_kernels_bench.cu (one call's share of a replayed CUDA graph of 20 calls), with bias,
in f32 without TF32 (full precision), f32 with PyTorch's default TF32 for cuDNN convolutions, and f16
channels-last. Prints microseconds per conv and the sum over the network's 20 convolutions.

    python3 tools/bench/conv_torch_bench.py
"""
import torch
import torch.nn.functional as F

LAYERS = [  # name, count in ResNet-18, C, H = W, O, kernel, stride, padding
    ("stem 7x7/2 3->64 @224", 1, 3, 224, 64, 7, 2, 3),
    ("3x3 64->64 @56", 4, 64, 56, 64, 3, 1, 1),
    ("3x3/2 64->128 @56", 1, 64, 56, 128, 3, 2, 1),
    ("3x3 128->128 @28", 3, 128, 28, 128, 3, 1, 1),
    ("1x1/2 64->128 @56", 1, 64, 56, 128, 1, 2, 0),
    ("3x3/2 128->256 @28", 1, 128, 28, 256, 3, 2, 1),
    ("3x3 256->256 @14", 3, 256, 14, 256, 3, 1, 1),
    ("1x1/2 128->256 @28", 1, 128, 28, 256, 1, 2, 0),
    ("3x3/2 256->512 @14", 1, 256, 14, 512, 3, 2, 1),
    ("3x3 512->512 @7", 3, 512, 7, 512, 3, 1, 1),
    ("1x1/2 256->512 @14", 1, 256, 14, 512, 1, 2, 0),
]


def time_us(fn):
    """Microseconds per call: 20 calls captured into a CUDA graph (after warm-up, so cuDNN's
    algorithm search is done), the graph replayed 5 times between two events."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(5):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(20):
            fn()
    graph.replay()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        graph.replay()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1000 / 100


def run(batch, c, hw, o, k, stride, pad, dtype, channels_last, tf32):
    torch.backends.cudnn.allow_tf32 = tf32
    x = torch.randn(batch, c, hw, hw, device="cuda", dtype=dtype)
    w = torch.randn(o, c, k, k, device="cuda", dtype=dtype)
    b = torch.randn(o, device="cuda", dtype=dtype)
    if channels_last:
        x, w = x.to(memory_format=torch.channels_last), w.to(memory_format=torch.channels_last)
    with torch.no_grad():
        return time_us(lambda: F.conv2d(x, w, b, stride, pad))


def main():
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    torch.backends.cudnn.benchmark = True
    for batch in (1, 8):
        print(f"\nbatch {batch}, microseconds per conv (bias, no activation)")
        print(f"{'layer':24} {'n':>3} | {'f32':>9} {'f32 tf32':>9} {'f16 nhwc':>9}")
        total = [0.0, 0.0, 0.0]
        for name, count, c, hw, o, k, stride, pad in LAYERS:
            us = [run(batch, c, hw, o, k, stride, pad, torch.float32, False, False),
                  run(batch, c, hw, o, k, stride, pad, torch.float32, False, True),
                  run(batch, c, hw, o, k, stride, pad, torch.float16, True, False)]
            total = [t + u * count for t, u in zip(total, us)]
            print(f"{name:24} {count:3d} | " + " ".join(f"{u:9.1f}" for u in us))
        print(f"{'resnet18 convs':24} {20:3d} | " + " ".join(f"{u:9.1f}" for u in total))


if __name__ == "__main__":
    main()
