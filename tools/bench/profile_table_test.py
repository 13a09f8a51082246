"""Tests of the profile comparison's CPU parts: profile_table.py on the real output of
runtime/tools/profile_report.cpp, the judgments of tools/gpu/profile_check.py on it, the Kineto
trace reader, and bar_chart.py's PNG and SVG.

    python3 tools/bench/profile_table_test.py TABLE.txt TRACE.json

TABLE.txt and TRACE.json are written by test/runtime/profile_report_test.cpp from the synthetic
input of that file (which runs this script), so the expected values below are that input's.
"""
import os
import struct
import sys
import unittest
import xml.etree.ElementTree as ElementTree
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
import bar_chart  # noqa: E402
import profile_check  # noqa: E402
from profile_table import (ProfileParseError, gpu_activity, parse_profile_output, read_step_trace,  # noqa: E402
                           top_kernels)

SAMPLE = {}  # "table" and "trace": the paths given on the command line


class RealReportTest(unittest.TestCase):
    def setUp(self):
        if not SAMPLE:
            self.fail("run with TABLE.txt TRACE.json (test/runtime/profile_report_test.cpp does)")
        with open(SAMPLE["table"], "rb") as f:
            self.profile = parse_profile_output(f.read())
        self.steps = read_step_trace(SAMPLE["trace"])

    def test_rows_slowest_first_with_every_column(self):
        rows = self.profile["rows"]
        self.assertEqual([r["node"] for r in rows], ["%mm", "%add", "%sm", "%ln"])
        mm = rows[0]
        self.assertEqual((mm["kernel"], mm["op"], mm["location"]), ("cublasLt (no tensor cores)", "gemm", "model.py:3"))
        self.assertEqual((mm["us"], mm["share"], mm["tflops"], mm["gbps"]), (100.0, 0.5, 20.0, 40.0))
        self.assertAlmostEqual(mm["peak_fraction"], 0.2)
        self.assertEqual(mm["bound"], "compute")
        self.assertEqual((rows[1]["bound"], rows[1]["gbps"]), ("memory", 240.0))
        self.assertEqual(rows[2]["kernel"], "softmax<float> (\u00e9)")
        self.assertEqual((rows[3]["location"], rows[3]["bound"], rows[3]["us"]), ("", "latency", 2.0))

    def test_summary_and_hints(self):
        p = self.profile
        self.assertEqual((p["steps"], p["launches"], p["device"]), (4, 4, "Test GPU"))
        self.assertEqual((p["fma_tflops"], p["tensor_tflops"], p["copy_gbps"]), (100.0, 400.0, 1000.0))
        self.assertEqual((p["kernels_us"], p["end_to_end_us"], p["launch_overhead_us"]), (200.0, 230.0, 30.0))
        self.assertEqual(p["memory_mib"], 108.0)
        self.assertEqual(p["timing"], "events")
        self.assertTrue(any(h.startswith("%mm (gemm) at model.py:3 takes 50% in f32") for h in p["hints"]))

    def test_trace_steps(self):
        self.assertEqual([s["name"] for s in self.steps], ["%mm gemm", "%add add", "%ln layer_norm", "%sm softmax"])
        self.assertEqual((self.steps[0]["flops"], self.steps[0]["bytes"]), (2e9, 4e6))
        self.assertAlmostEqual(self.steps[0]["dur_us"], 100.0)

    def test_checks_judge_the_real_report(self):
        record = {"profile": self.profile, "trace": SAMPLE["trace"]}
        # The GEMM: intensity 500 FLOP/B above the FMA ridge (100 TFLOP/s over 1 TB/s = 100).
        result, detail = profile_check.check_gemm_class(self.profile, self.steps)
        self.assertEqual(result, "PASS", detail)
        # The 2 us layer norm is latency-bound: the check does not apply at this size.
        self.assertEqual(profile_check.check_layer_norm_class(self.profile, self.steps)[0], "N/A")
        self.assertEqual(profile_check.check_trace(record)[0], "PASS")
        record["infernoc"] = {"gpu_us_per_run": 190.0}  # steps 200 us: +5%
        self.assertEqual(profile_check.check_kernel_time(record)[0], "PASS")
        record["infernoc"] = {"gpu_us_per_run": 150.0}  # +33%
        self.assertEqual(profile_check.check_kernel_time(record)[0], "FAIL")
        # A GEMM far below the ridge is not judged; a memory-bound one above it fails.
        low = [dict(s, bytes=s["flops"]) if s["name"] == "%mm gemm" else s for s in self.steps]
        self.assertEqual(profile_check.check_gemm_class(self.profile, low)[0], "N/A")
        wrong = dict(self.profile, rows=[dict(r, bound="memory") for r in self.profile["rows"]])
        self.assertEqual(profile_check.check_gemm_class(wrong, self.steps)[0], "FAIL")
        self.assertEqual(profile_check.check_layer_norm_class(wrong, self.steps)[0], "PASS")

    def test_a_changed_format_is_an_error(self):
        with open(SAMPLE["table"], encoding="utf-8") as f:
            text = f.read()
        with self.assertRaises(ProfileParseError):
            parse_profile_output(text.replace("  share", "  part"))
        with self.assertRaises(ProfileParseError):
            parse_profile_output(text.replace("4 steps", "5 steps"))
        with self.assertRaises(ProfileParseError):
            parse_profile_output(text.replace("us  ", "ms  ", 1))

    def test_a_row_without_a_source_line(self):
        # A node with no source line (a cast the precision pass inserted) whose source column is
        # shorter than the column: the padding before its time starts inside the source column.
        with open(SAMPLE["table"], encoding="utf-8") as f:
            lines = f.read().splitlines()
        row = next(i for i, line in enumerate(lines) if "%ln (layer_norm)" in line)
        lines[row] = lines[row].replace("%ln (layer_norm)", "%ln (cast)".ljust(len("%ln (layer_norm)")))
        rows = parse_profile_output("\n".join(lines) + "\n")["rows"]
        self.assertEqual([(r["op"], r["location"], r["us"]) for r in rows if r["node"] == "%ln"],
                         [("cast", "", 2.0)])


class KinetoTraceTest(unittest.TestCase):
    def test_gpu_work_by_name(self):
        trace = {"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "gemm", "dur": 10.0},
            {"ph": "X", "cat": "kernel", "name": "gemm", "dur": 14.0},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD", "dur": 2.0},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 50.0},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "dur": 5.0},
            {"ph": "i", "cat": "kernel", "name": "marker"}]}
        by_name, total = gpu_activity(trace)
        self.assertEqual(total, 26.0)
        self.assertEqual(by_name["gemm"], [2, 24.0])
        self.assertEqual(top_kernels(by_name, 2, 1), [("gemm", 12.0, 1.0)])


def png_pixels(data):
    """(width, height, rows of RGB bytes) of an 8-bit RGB PNG with filter 0 rows, checking CRCs."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, {}
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 2)
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = 1 + 3 * width
    assert len(raw) == stride * height and b"IEND" in chunks
    return width, height, [raw[y * stride + 1:(y + 1) * stride] for y in range(height)]


class BarChartTest(unittest.TestCase):
    GROUPS = [("resnet50 f32", [1.0, 4.0, 2.0]), ("gpt2 fp16", [0.5, None, 1.0])]

    def test_png_has_the_bars(self):
        width, height, rows = png_pixels(bar_chart.draw_png(self.GROUPS, ["a", "b", "c"], 300, 200))
        self.assertEqual((width, height), (300, 200))
        colours = {bytes(row[x * 3:x * 3 + 3]) for row in rows for x in range(width)}
        for rgb in bar_chart.COLOURS[:3]:
            self.assertIn(bytes(rgb), colours)
        # The tallest bar (4.0, series 1) reaches the top margin; the 0.5 bar an eighth of it.
        bars, _ = bar_chart._layout(self.GROUPS, ["a", "b", "c"], 300, 200)
        heights = sorted(round(y1 - y0) for _, y0, _, y1, _ in bars)
        self.assertEqual(len(bars), 5)
        self.assertAlmostEqual(heights[0] / heights[-1], 0.125, places=1)

    def test_svg_parses_with_labels(self):
        svg = bar_chart.draw_svg(self.GROUPS, ["infernoc", "eager", "compile"], "title <&>", "ms")
        root = ElementTree.fromstring(svg)
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        self.assertIn("resnet50 f32", texts)
        self.assertIn("title <&>", texts)
        self.assertEqual(len(root.findall("{http://www.w3.org/2000/svg}rect")), 1 + 5 + 3)

    def test_encode_checks_the_size(self):
        with self.assertRaises(ValueError):
            bar_chart.encode_png(2, 2, bytearray(11))


if __name__ == "__main__":
    if len(sys.argv) >= 3:
        SAMPLE.update(table=sys.argv[1], trace=sys.argv[2])
        del sys.argv[1:3]
    unittest.main()
