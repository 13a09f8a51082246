"""The Python loader with the test LLM (test_llm.cu, model ABI 2) on a GPU: states, variants and
max_positions described, runs that pick the variant by shape and carry state, reset_state, and
generate (greedy against a host recomputation, seeded sampling, stop tokens, callback, errors)."""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIPPED: no torch")
    sys.exit(0)
if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(0)

import inferno

VOCAB, CACHE = 1000, 32


class Reference:
    """test_llm.cu on the host: a cache of id + 1 per position and a run counter from 5."""

    def __init__(self):
        self.cache, self.counter = [0] * CACHE, 5

    def run(self, ids, positions):
        for i, p in zip(ids, positions):
            self.cache[p] = i + 1
        targets = [(sum(self.cache[j] * (j + 1) for j in range(p + 1)) * 31 + 7 * p + self.counter) % VOCAB
                   for p in positions]
        self.counter += 1
        return targets


def greedy(prompt, n):
    """What generate makes: the prompt in runs of 8, 4 or 1 (padded with its last token), then steps."""
    model, start, length = Reference(), 0, len(prompt)
    while start < length:
        left, room, pick = length - start, CACHE - start, 1
        for s in (1, 4, 8):
            if s > room:
                break
            pick = s
            if s >= left:
                break
        tokens = min(left, pick)
        ids = [prompt[start + min(j, tokens - 1)] for j in range(pick)]
        target = model.run(ids, list(range(start, start + pick)))[tokens - 1]
        start += tokens
    out = [target]
    for step in range(1, n):
        out.append(model.run([out[-1]], [length + step - 1])[0])
    return out


model = inferno.load(os.path.join(os.environ["INFERNO_TEST_MODEL_DIR"], "test_model_llm.so"))
assert model.states == [("cache", torch.int64, (32,), 256), ("counter", torch.int64, (1,), 8)], model.states
assert model.max_positions == 32 and model.vocab_size == 1000, (model.max_positions, model.vocab_size)
assert model.dynamic_dims == [{"name": "seq_length", "min": 1, "max": 31, "compiled": [4, 1, 8], "split": False,
                               "uses": [("input_ids", 1), ("cache_position", 0)]}], model.dynamic_dims
assert [ins[0][2] for ins, _ in model.variants] == [(1, 4), (1, 1), (1, 8)], model.variants

# Runs: the variant is chosen by shape, the state carries over, reset_state restores it.
reference = Reference()
for p in range(3):
    logits = model(torch.tensor([[p + 2]], device="cuda"), torch.tensor([p], device="cuda"))
    assert logits.shape == (1, 1, VOCAB)
    assert logits.argmax(-1).item() == reference.run([p + 2], [p])[0]
# A length no variant was compiled for: refused in the terms of the export's dynamic dim.
try:
    model(torch.tensor([[1, 2, 3]], device="cuda"), torch.arange(3, device="cuda"))
    raise AssertionError("three tokens ran")
except inferno.InfernoError as e:
    assert e.status == "invalid_argument" and "seq_length = 3 (input 'input_ids' dim 1) is in the range" in str(e), e
model.reset_state()
logits = model(torch.tensor([[2, 3, 4, 5]], device="cuda"), torch.arange(4, device="cuda"))
assert logits.argmax(-1).tolist() == [Reference().run([2, 3, 4, 5], [0, 1, 2, 3])], logits.argmax(-1)

# Generation.
for prompt in ([7], [1, 2, 3], list(range(9)), torch.arange(13).view(1, 13)):
    ids = prompt.view(-1).tolist() if isinstance(prompt, torch.Tensor) else prompt
    n = 32 - len(ids)
    assert model.generate(prompt, max_new_tokens=n) == greedy(ids, n), ids
tokens, stats = model.generate([1, 2, 3], max_new_tokens=10, return_stats=True)
assert stats["new_tokens"] == 10 and stats["prompt_tokens"] == 3 and stats["time_to_first_token_ms"] > 0, stats
sampled = model.generate([1, 2, 3], max_new_tokens=20, temperature=3.0, top_k=20, top_p=0.9, seed=7)
assert sampled == model.generate([1, 2, 3], max_new_tokens=20, temperature=3.0, top_k=20, top_p=0.9, seed=7)
assert sampled != model.generate([1, 2, 3], max_new_tokens=20, temperature=3.0, top_k=20, top_p=0.9, seed=8)
assert all(0 <= t < VOCAB for t in sampled)
expected = greedy([1, 2, 3], 20)
assert model.generate([1, 2, 3], max_new_tokens=20, stop_tokens=[expected[3]]) == expected[:4]
seen = []
assert model.generate([1, 2, 3], max_new_tokens=20, callback=lambda i, t: seen.append(t) or i == 5) == expected[:6]
assert seen == expected[:6], seen


def boom(index, token):
    raise KeyError("from the callback")


try:
    model.generate([1, 2, 3], max_new_tokens=5, callback=boom)
    raise AssertionError("the callback's exception was lost")
except KeyError:
    pass
for bad, text in [(([1] * 20, 13), "max_positions 32"), (([], 4), "the prompt is empty"),
                  (([1, 1000], 4), "outside the vocabulary [0, 1000)")]:
    try:
        model.generate(bad[0], max_new_tokens=bad[1])
        raise AssertionError("no error for " + text)
    except inferno.InfernoError as e:
        assert e.status == "invalid_argument" and text in str(e), str(e)
assert model.generate([1, 2, 3], max_new_tokens=20) == expected
model.close()
print("python llm gpu: ok")
