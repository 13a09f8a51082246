"""Tests of llm_report.py (bench_llm.py's parsing, mode choice, summary and tables), with no GPU.

    python3 tools/bench/llm_report_test.py

The `inferno-run --generate` output it parses is rendered from the printf formats of
runtime/tools/generate_cmd.cpp, so a change of what inferno-run prints fails here.
"""
import io
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import llm_report  # noqa: E402
from llm_report import ReportError  # noqa: E402

GENERATE_SOURCE = os.path.join(HERE, "..", "..", "runtime", "tools", "generate_cmd.cpp")

# Arguments for each printf of print_result, by the start of its format; chosen exact at the
# printed precision.
ARGUMENTS = {
    "tokens (": (3,),
    " %lld": (11,),
    "prompt:": (128, 1, 4.25),
    "time to first token:": (5.125,),
    "decode:": (63, 1.3125, 1.2844, 1.4),
    "bandwidth floor:": (2200000000, 2989.0, 0.7361),
    "; reached": (57.3,),
}


def c_formats():
    """The first string literal of every std::printf in generate_cmd.cpp, in order."""
    with open(GENERATE_SOURCE) as f:
        source = f.read()
    literals = re.findall(r'std::printf\(\s*"((?:[^"\\]|\\.)*)"', source)
    return [bytes(s, "ascii").decode("unicode_escape") for s in literals]


def render(c_format, arguments):
    python_format = re.sub(r"%(ll|z)([duf])", r"%\2", c_format.replace("%llu", "%d").replace("%zu", "%d"))
    return python_format % arguments


def generate_output(skip=()):
    """What inferno-run --generate prints for ARGUMENTS (three tokens), without formats in `skip`."""
    out = []
    used = set()
    for c_format in c_formats():
        key = next((k for k in ARGUMENTS if c_format.startswith(k)), None)
        if key in skip:
            continue
        if key is None:
            count = len(re.findall(r"%(?!%)", c_format.replace("%%", "")))
            out.append(render(c_format, (0,) * count) if count else c_format)
            continue
        used.add(key)
        out.append(render(c_format, ARGUMENTS[key]) * (3 if key == " %lld" else 1))
    missing = set(ARGUMENTS) - used - set(skip)
    if missing:
        raise AssertionError(f"generate_cmd.cpp no longer prints {sorted(missing)}: update the parser and this test")
    return "".join(out)


class GenerateOutputTest(unittest.TestCase):
    def test_reads_every_figure_inferno_run_prints(self):
        figures = llm_report.parse_generate_output(generate_output())
        self.assertEqual(figures, {"per_token_ms": 1.2844, "ttft_ms": 5.125, "prefill_ms": 4.25,
                                   "prompt_tokens": 128, "prefill_runs": 1, "floor_ms": 0.7361})

    def test_output_without_a_decode_line_is_an_error(self):
        with self.assertRaisesRegex(ReportError, "decode median"):
            llm_report.parse_generate_output(generate_output(skip=("decode:",)))

    def test_output_without_the_prompt_line_is_an_error(self):
        with self.assertRaisesRegex(ReportError, "prompt"):
            llm_report.parse_generate_output(generate_output(skip=("prompt:",)))


class CompileModesTest(unittest.TestCase):
    def test_default_none_and_max_autotune(self):
        self.assertEqual(llm_report.compile_modes(["default", "reduce-overhead"], False), ["default", "reduce-overhead"])
        self.assertEqual(llm_report.compile_modes(["none"], False), [])
        self.assertEqual(llm_report.compile_modes(["none"], True), ["max-autotune"])
        self.assertEqual(llm_report.compile_modes(["reduce-overhead", "reduce-overhead"], True),
                         ["reduce-overhead", "max-autotune"])

    def test_unknown_slow_and_mixed_none_are_errors(self):
        with self.assertRaisesRegex(ReportError, "unknown mode 'fast'"):
            llm_report.compile_modes(["fast"], False)
        with self.assertRaisesRegex(ReportError, "--max-autotune"):
            llm_report.compile_modes(["max-autotune"], False)
        with self.assertRaisesRegex(ReportError, "alone"):
            llm_report.compile_modes(["none", "default"], False)


class SummaryTest(unittest.TestCase):
    def row(self):
        return {"model": "m", "infernoc ms/token": 0.5, "floor ms/token": 0.25, "infernoc prefill ms": 2.0,
                "HF eager ms/token": 20.0, "HF eager prefill ms": 8.0,
                "HF compile default ms/token": 4.0, "HF compile default prefill ms": 5.0,
                "HF compile reduce-overhead ms/token": "error: RuntimeError: cudagraphs | failed"}

    def test_per_token_time(self):
        self.assertEqual(llm_report.per_token_ms(10.0, 73.0, 64), 1.0)
        with self.assertRaises(ReportError):
            llm_report.per_token_ms(10.0, 11.0, 1)

    def test_best_pytorch_skips_errors_and_missing_modes(self):
        row = self.row()
        llm_report.add_summary(row, llm_report.pytorch_labels(["default", "reduce-overhead"]))
        self.assertEqual((row["best PyTorch"], row["best PyTorch ms/token"]), ("HF compile default", 4.0))
        self.assertEqual(row["best PyTorch / infernoc"], 8.0)
        self.assertEqual((row["best PyTorch prefill"], row["best PyTorch prefill ms"]), ("HF compile default", 5.0))
        self.assertEqual(row["best PyTorch prefill / infernoc"], 2.5)
        self.assertEqual(row["floor / infernoc"], 0.5)

    def test_eager_is_best_when_it_is_fastest(self):
        row = self.row()
        row["HF eager prefill ms"] = 1.0
        llm_report.add_summary(row, llm_report.pytorch_labels(["default", "reduce-overhead"]))
        self.assertEqual(row["best PyTorch prefill"], "HF eager")

    def test_no_pytorch_figure_gives_no_best(self):
        row = {"model": "m", "infernoc ms/token": "error: CalledProcessError: exit 2", "HF eager ms/token": "error: x"}
        llm_report.add_summary(row, llm_report.pytorch_labels([]))
        self.assertNotIn("best PyTorch", row)
        self.assertNotIn("floor / infernoc", row)


class TableTest(unittest.TestCase):
    def test_error_cells_are_one_escaped_line(self):
        cell = llm_report.error_cell(RuntimeError("a | b\nsecond line"))
        self.assertEqual(cell, "error: RuntimeError: a | b")
        self.assertEqual(llm_report.format_cell(cell), "error: RuntimeError: a \\| b")
        self.assertEqual(llm_report.format_cell(1.23456), "1.235")
        self.assertEqual(llm_report.format_cell(None), "-")
        self.assertLessEqual(len(llm_report.error_cell(ValueError("x" * 500))), 160)

    def test_report_has_the_legend_and_both_tables(self):
        rows = [{"model": "gpt2-small", "infernoc ms/token": 0.33, "HF compile default ms/token": 3.0,
                 "infernoc prefill ms": 1.5},
                {"model": "tinyllama", "error": llm_report.error_cell(OSError("no space"))}]
        text = llm_report.report("H100", 128, 64, ["default"], rows, ncu=False)
        self.assertIn("(t(64 new) - t(1 new)) / 63", text)
        self.assertIn('modes: "default"', text)
        decode, prompt = text.split("\nDecode:\n")[1].split("\nPrompt:\n")
        decode_lines = [line for line in decode.splitlines() if line.startswith("|")]
        self.assertEqual(decode_lines[0].split(" | ")[-1], "error |")  # the error column, only when needed
        self.assertEqual(len(decode_lines), 4)
        columns = [c.strip() for c in decode_lines[0].strip("|").split("|")]
        gpt2 = [c.strip() for c in decode_lines[2].strip("|").split("|")]
        self.assertEqual(dict(zip(columns, gpt2))["HF compile default ms/token"], "3.000")
        self.assertEqual(dict(zip(columns, gpt2))["HF eager ms/token"], "-")
        self.assertIn("| tinyllama |", decode_lines[3])
        self.assertTrue(decode_lines[3].endswith("error: OSError: no space |"))
        prompt_header = [line for line in prompt.splitlines() if line.startswith("|")][0]
        self.assertIn("infernoc prefill ms | HF eager prefill ms | HF compile default prefill ms", prompt_header)
        self.assertTrue(llm_report.has_errors(rows))
        self.assertFalse(llm_report.has_errors(rows[:1]))

    def test_ncu_columns_only_with_ncu(self):
        labels = llm_report.pytorch_labels([])
        self.assertNotIn("profile steps us", llm_report.decode_keys(labels, ncu=False))
        self.assertIn("profile steps us", llm_report.decode_keys(labels, ncu=True))

    def test_phase_prints_its_seconds_even_when_it_fails(self):
        stream = io.StringIO()
        with self.assertRaises(KeyError):
            with llm_report.phase("gpt2-small: export", stream):
                raise KeyError("x")
        lines = stream.getvalue().splitlines()
        self.assertEqual(lines[0], "bench_llm: gpt2-small: export ...")
        self.assertRegex(lines[1], r"^bench_llm: gpt2-small: export: [0-9.]+ s$")


if __name__ == "__main__":
    unittest.main()
