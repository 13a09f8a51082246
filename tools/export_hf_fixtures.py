#!/usr/bin/env python3
"""Export Hugging Face model fixtures: small configs of real transformers architectures, random
weights, exported the ways users export them.

Needs torch >= 2.6 and transformers >= 5 (not Debian's torch 1.13: run it where a torch wheel and
transformers are installed), so the results are committed under ``test/fixtures/hf/``.

Two kinds of export per model:

* ``forward``: ``torch.export`` of the plain forward (``input_ids`` -> logits, or the last
  hidden state for encoders, ``use_cache=False``), without and with an ``attention_mask`` input
  (a padded batch). Files: ``model.pt2`` / ``model_decomposed.pt2`` (no mask) and ``masked.pt2`` /
  ``masked_decomposed.pt2`` (with a mask), ``input*.npy`` and ``output*.npy`` for each
  (``masked_input*.npy``, ``masked_output*.npy``).
* ``decoder``: transformers' own recipe for ahead-of-time runtimes,
  ``TorchExportableModuleForDecoderOnlyLM`` (a static KV cache held in buffers that the graph
  updates in place, inputs ``input_ids`` [1, S] and ``cache_position`` [S]), exported with a
  dynamic sequence length (``decoder.pt2``, ``decoder_decomposed.pt2``). ``trace_*.npy`` record a
  session on the eager recipe module: a prompt, the logits of its prefill, then greedy decode
  steps (token and logits each), so that a stateful run can be checked step by step.
  ``generate.npy`` holds Hugging Face ``generate``'s greedy tokens for the same prompt.

``manifest.json`` lists every export with its inputs, the ATen ops it calls and its graph
signature's mutated buffers, so that the ops to support can be read without torch. Source paths
are scrubbed to file names as in ``export_fixtures.py``.

Usage: ``python3 tools/export_hf_fixtures.py [OUT_DIR] [--only NAME ...]``

``--dynamic-batch`` exports instead, and only, the dynamic-batch fixtures of
``test/fixtures/dynamic`` (``DYNAMIC_BATCH``: BertModel and GPT2LMHeadModel with an
``attention_mask``, ``use_cache=False``, the batch a ``Dim("batch", min=1, max=8)``, the sequence
static), in that directory's layout (tools/export_dynamic_fixtures.py, test/dynamic_fixture_test.sh):
``<name>/model.pt2``, ``model_decomposed.pt2``, and ``min``/``mid``/``max`` holding
``input<i>.npy`` and ``output<i>.npy`` at batch 1, 4 and 8; their entries in the directory's
``manifest.json`` are replaced, the other models' kept. OUT_DIR defaults to test/fixtures/dynamic
then. These are the models that expand values of their own to the batch (BERT's token types, the
decoders' masks), which passes/row_split.h splits as uniform.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import traceback
from pathlib import Path

import numpy as np
import torch
from torch import nn

import export_fixtures as fx

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "test" / "fixtures" / "hf"
VOCAB = 96
PROMPT_LEN = 5
DECODE_STEPS = 4
GENERATE_TOKENS = 64
MAX_CACHE_LEN = 96
BATCH, SEQ = 2, 7  # the forward exports: a padded batch of two sequences


def small_configs():
    """name -> (model class, config, kind); kind 'lm' (causal LM) or 'encoder'."""
    import transformers as tf

    common = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=2, max_position_embeddings=128)
    return {
        "gpt2": (tf.GPT2LMHeadModel, tf.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=2,
                                                    n_positions=128, bos_token_id=0, eos_token_id=1), "lm"),
        "llama": (tf.LlamaForCausalLM, tf.LlamaConfig(**common, num_key_value_heads=1, bos_token_id=0,
                                                      eos_token_id=1, pad_token_id=2), "lm"),
        "qwen2": (tf.Qwen2ForCausalLM, tf.Qwen2Config(**common, num_key_value_heads=1, bos_token_id=0,
                                                      eos_token_id=1, pad_token_id=2), "lm"),
        "phi3": (tf.Phi3ForCausalLM, tf.Phi3Config(**common, num_key_value_heads=2, bos_token_id=0,
                                                   eos_token_id=1, pad_token_id=2), "lm"),
        "bert": (tf.BertModel, tf.BertConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                                             num_hidden_layers=2, num_attention_heads=2,
                                             max_position_embeddings=128), "encoder"),
        "t5_encoder": (tf.T5EncoderModel, tf.T5Config(vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64,
                                                      num_layers=2, num_heads=2), "encoder"),
    }


DECODER_MODELS = ("gpt2", "llama", "qwen2")


def build(name: str):
    cls, config, kind = small_configs()[name]
    torch.manual_seed(0)
    config._attn_implementation = "sdpa"
    model = cls(config).eval()
    # Random weights of a realistic scale: the default init leaves some biases and norms trivial.
    with torch.no_grad():
        gen = torch.Generator().manual_seed(1)
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.02)
    return model, kind


class ForwardOnly(nn.Module):
    """The plain forward with one tensor out: logits (causal LMs) or the last hidden state."""

    def __init__(self, model: nn.Module, kind: str, masked: bool) -> None:
        super().__init__()
        self.model, self.kind, self.masked = model, kind, masked

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None):
        kwargs = {"attention_mask": attention_mask} if self.masked else {}
        if self.kind == "lm":
            return self.model(input_ids=input_ids, use_cache=False, **kwargs).logits
        return self.model(input_ids=input_ids, **kwargs).last_hidden_state


def forward_inputs(masked: bool):
    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(3, VOCAB, (BATCH, SEQ), generator=gen)
    if not masked:
        return (ids,)
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, SEQ - 3:] = 0  # the second sequence is right-padded by three tokens
    return ids, mask


def describe(ep, names) -> dict:
    sig = ep.graph_signature
    return {
        "user_inputs": list(sig.user_inputs),
        "buffers_to_mutate": dict(sig.buffers_to_mutate),
        "targets": fx.call_targets(ep),
        "higher_order": sorted({str(n.target) for m in ep.graph_module.modules()
                                if isinstance(m, torch.fx.GraphModule)
                                for n in m.graph.nodes if n.op == "call_function"
                                and "higher_order" in str(n.target)}),
        "files": names,
    }


def save_pair(ep, model_dir: Path, stem: str, inputs, expected, kwargs_call: bool = False) -> dict:
    """Saves ``ep`` and its core-ATen form; checks both load back and reproduce ``expected``."""
    forms = {}
    try:
        decomposed = ep.run_decompositions()
    except Exception as error:  # torch 2.11 cannot decompose GPT-2's view of a transposed tensor
        forms["decomposed_error"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        print(f"  run_decompositions failed: {forms['decomposed_error']}")
        decomposed = None
    for form, program in (("plain", ep), ("decomposed", decomposed)):
        if program is None:
            continue
        path = model_dir / (f"{stem}.pt2" if form == "plain" else f"{stem}_decomposed.pt2")
        fx.scrub_exported_program(program)
        torch.export.save(program, str(path))
        fx.scrub_pt2_json_entries(path)
        if not kwargs_call:
            loaded = torch.export.load(str(path))
            with torch.no_grad():
                fx.assert_same_outputs(loaded.module()(*inputs), expected, path.name)
        forms[form] = describe(program, [path.name])
    return forms


def export_forward(name: str, model_dir: Path) -> dict:
    model, kind = build(name)
    entry = {"name": name, "kind": kind, "exports": {}}
    for masked in (False, True):
        stem = "masked" if masked else "model"
        wrapper = ForwardOnly(model, kind, masked).eval()
        inputs = forward_inputs(masked)
        with torch.no_grad():
            expected = [wrapper(*inputs).clone()]
            ep = torch.export.export(wrapper, inputs)
        prefix = "masked_" if masked else ""
        in_files = fx.save_arrays(inputs, model_dir, f"{prefix}input")
        out_files = fx.save_arrays(expected, model_dir, f"{prefix}output")
        forms = save_pair(ep, model_dir, stem, inputs, expected)
        entry["exports"][stem] = {
            "forms": forms,
            "inputs": [{"name": n, "shape": list(t.shape), "dtype": fx.DTYPE_NAMES[t.dtype], "file": f}
                       for n, t, f in zip(forms["plain"]["user_inputs"], inputs, in_files)],
            "outputs": [{"shape": list(t.shape), "dtype": "f32", "file": f}
                        for t, f in zip(expected, out_files)],
        }
    return entry


def recipe_module(model):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM as Recipe
    try:
        return Recipe(model, batch_size=1, max_cache_len=MAX_CACHE_LEN)
    except TypeError:  # older transformers name the batch argument max_batch_size
        return Recipe(model, max_batch_size=1, max_cache_len=MAX_CACHE_LEN)


def decode_trace(model) -> dict:
    """A session on a fresh eager recipe module: prefill a prompt, then greedy decode steps."""
    model.generation_config.cache_implementation = "static"
    # The recipe's export traces its inner module (which takes cache_position); call that one.
    module = recipe_module(model).model
    gen = torch.Generator().manual_seed(3)
    prompt = torch.randint(3, VOCAB, (1, PROMPT_LEN), generator=gen)
    trace = {"prompt": prompt.numpy()}
    with torch.no_grad():
        logits = module(input_ids=prompt, cache_position=torch.arange(PROMPT_LEN))
        trace["prefill_logits"] = logits.float().numpy()
        token = int(logits[0, -1].argmax())
        for step in range(DECODE_STEPS):
            position = PROMPT_LEN + step
            trace[f"step{step}_token"] = np.array([[token]], dtype=np.int64)
            trace[f"step{step}_position"] = np.array([position], dtype=np.int64)
            logits = module(input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position]))
            trace[f"step{step}_logits"] = logits.float().numpy()
            token = int(logits[0, -1].argmax())
        generated = model.generate(prompt, max_new_tokens=GENERATE_TOKENS, do_sample=False,
                                   min_new_tokens=GENERATE_TOKENS, pad_token_id=0)
    trace["generate"] = generated[0, PROMPT_LEN:].numpy()
    return trace


def export_decoder(name: str, model_dir: Path) -> dict:
    model, _ = build(name)
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    module = recipe_module(model)
    ids = torch.zeros(1, 4, dtype=torch.int64)
    seq = torch.export.Dim("seq_length", max=MAX_CACHE_LEN - 1)
    ep = module.export(input_ids=ids, cache_position=torch.arange(4),
                       dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
    forms = save_pair(ep, model_dir, "decoder", (), [], kwargs_call=True)
    trace = decode_trace(model)
    for key, array in trace.items():  # one .npy per array: the C++ tests read .npy only
        np.save(model_dir / f"trace_{key}.npy", array)
    np.save(model_dir / "generate.npy", trace["generate"])
    # The recipe's module must agree with itself after a load: prefill the prompt on a loaded copy.
    loaded = torch.export.load(str(model_dir / "decoder.pt2")).module()
    with torch.no_grad():
        got = loaded(input_ids=torch.from_numpy(trace["prompt"]), cache_position=torch.arange(PROMPT_LEN))
    torch.testing.assert_close(got.float(), torch.from_numpy(trace["prefill_logits"]), **fx.TOLERANCE)
    return {"forms": forms, "max_cache_len": MAX_CACHE_LEN, "prompt_len": PROMPT_LEN,
            "decode_steps": DECODE_STEPS, "generate_tokens": GENERATE_TOKENS,
            "files": ["decoder.pt2", "decoder_decomposed.pt2", "generate.npy"] +
                      [f"trace_{key}.npy" for key in trace]}


DYNAMIC_OUT = REPO_ROOT / "test" / "fixtures" / "dynamic"
# fixture name -> the small_configs() model it exports; the batch's range and the example batch
# (torch.export specializes a dim it sees at 0 or 1), the sequence length static.
DYNAMIC_BATCH = {"dyn_hf_bert": "bert", "dyn_hf_gpt2": "gpt2"}
DYNAMIC_BATCH_RANGE = (1, 8)
DYNAMIC_BATCH_EXAMPLE = 3


def dynamic_batch_inputs(batch: int, gen: torch.Generator):
    """input_ids and an int64 attention_mask [batch, SEQ]: row i right-padded by i % 3 tokens, so
    that the rows differ (each keeps at least SEQ - 2 tokens)."""
    ids = torch.randint(3, VOCAB, (batch, SEQ), generator=gen)
    mask = torch.ones(batch, SEQ, dtype=torch.int64)
    for i in range(batch):
        if i % 3:
            mask[i, SEQ - i % 3:] = 0
    return ids, mask


def export_dynamic_batch(name: str, out: Path) -> dict:
    """One fixture of test/fixtures/dynamic: the model at a dynamic batch, checked after a load at
    the three sizes against eager PyTorch; returns its manifest entry."""
    model, kind = build(DYNAMIC_BATCH[name])
    wrapper = ForwardOnly(model, kind, masked=True).eval()
    gen = torch.Generator().manual_seed(4)
    inputs = dynamic_batch_inputs(DYNAMIC_BATCH_EXAMPLE, gen)
    low, high = DYNAMIC_BATCH_RANGE
    batch = torch.export.Dim("batch", min=low, max=high)
    with torch.no_grad():
        expected = fx.as_tensor_list(wrapper(*inputs))
        ep = torch.export.export(wrapper, inputs, dynamic_shapes=({0: batch}, {0: batch}))
    model_dir = out / name
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    fx.save_exported_program(ep, model_dir / "model.pt2", inputs, expected)
    fx.save_exported_program(ep.run_decompositions(), model_dir / "model_decomposed.pt2", inputs,
                             expected)
    sizes = {"min": {"batch": low}, "mid": {"batch": (low + high) // 2}, "max": {"batch": high}}
    loaded = torch.export.load(str(model_dir / "model.pt2")).module()
    for label, size in sizes.items():
        ins = dynamic_batch_inputs(size["batch"], gen)
        with torch.no_grad():
            outs = fx.as_tensor_list(wrapper(*ins))
            fx.assert_same_outputs(loaded(*ins), outs, f"{name} at {label} {size}")
        (model_dir / label).mkdir()
        for prefix, tensors in (("input", ins), ("output", outs)):
            for i, t in enumerate(tensors):
                np.save(model_dir / label / f"{prefix}{i}.npy", t.detach().contiguous().numpy())
    return {
        "name": name,
        "dims": {"batch": {"min": low, "max": high}},
        "inputs": [{"name": n, "shape": ["batch", SEQ], "dtype": "i64"}
                   for n in ep.graph_signature.user_inputs],
        "sizes": sizes,
        "range_constraints": {str(k): str(v) for k, v in ep.range_constraints.items()},
        "targets": fx.call_targets(ep),
    }


def main_dynamic_batch(out: Path) -> int:
    """Exports DYNAMIC_BATCH into `out`, replacing their entries in its manifest.json."""
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"models": []}
    failures = []
    for name in DYNAMIC_BATCH:
        print(f"== {name} (dynamic batch)", flush=True)
        try:
            entry = export_dynamic_batch(name, out)
        except Exception:  # one model's failure leaves the other and the manifest's entries
            traceback.print_exc()
            failures.append(name)
            continue
        print(f"  ok {entry['range_constraints']}\n  targets: {entry['targets']}")
        models = [m for m in manifest["models"] if m["name"] != name]
        manifest["models"] = models + [entry]
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    leaks = [f"{p}: {hit}" for name in DYNAMIC_BATCH if (out / name).exists()
             for p in (out / name).rglob("*") if p.is_file()
             for hit in fx.find_absolute_paths(p.read_bytes())]
    for leak in leaks:
        print(f"ABSOLUTE PATH LEFT: {leak}", file=sys.stderr)
    if leaks:
        failures.append(f"{len(leaks)} absolute path(s) left")
    print(f"FAILED: {failures}" if failures else f"exported {len(DYNAMIC_BATCH)} dynamic-batch models",
          file=sys.stderr)
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=None)
    parser.add_argument("--only", nargs="+", metavar="NAME")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export only the dynamic-batch fixtures (default OUT_DIR test/fixtures/dynamic)")
    args = parser.parse_args(argv)
    import transformers
    print(f"torch {torch.__version__}, transformers {transformers.__version__}")
    if args.dynamic_batch:
        return main_dynamic_batch(args.out or DYNAMIC_OUT)
    args.out = args.out or DEFAULT_OUT
    args.out.mkdir(parents=True, exist_ok=True)
    models, failures = [], []
    for name in small_configs():
        if args.only and name not in args.only:
            continue
        model_dir = args.out / name
        shutil.rmtree(model_dir, ignore_errors=True)
        model_dir.mkdir(parents=True)
        entry = {"name": name}
        for what, fn in (("forward", export_forward), ("decoder", export_decoder)):
            if what == "decoder" and name not in DECODER_MODELS:
                continue
            print(f"== {name} {what}", flush=True)
            try:
                result = fn(name, model_dir)
                if what == "forward":
                    entry.update(result)
                else:
                    entry["decoder"] = result
                exports = result["exports"].values() if what == "forward" else [result]
                for form in (f for e in exports for f in e["forms"].values() if isinstance(f, dict)):
                    print(f"  targets: {form['targets']}\n  mutated: {form['buffers_to_mutate']}")
            except Exception:
                traceback.print_exc()
                failures.append(f"{name} {what}")
        models.append(entry)
    manifest = {"generator": "tools/export_hf_fixtures.py", "torch_version": torch.__version__.split("+")[0],
                "transformers_version": transformers.__version__, "models": models}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    leaks = fx.scan_for_paths(args.out)
    for leak in leaks:
        print(f"ABSOLUTE PATH LEFT: {leak}", file=sys.stderr)
    if leaks:
        failures.append(f"{len(leaks)} absolute path(s) left")
    print(f"FAILED: {failures}" if failures else f"exported {len(models)} models", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
