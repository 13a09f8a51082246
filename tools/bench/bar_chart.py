"""A grouped bar chart of latencies as a PNG: with matplotlib when it can be imported, else drawn
here (filled rectangles, written with zlib and struct) beside an SVG of the same chart that
carries the labels a font-less PNG cannot. Groups are models, bars within a group are the
runtimes compared, each in its own colour in the same order everywhere.
"""
import struct
import zlib

# One colour per series (RGB), in series order; the SVG and matplotlib use the same ones.
COLOURS = ((0xc0, 0x39, 0x2b), (0x24, 0x71, 0xa3), (0x27, 0xae, 0x60), (0x8e, 0x44, 0xad), (0x7f, 0x8c, 0x8d))


def _hex(rgb):
    return "#%02x%02x%02x" % rgb


def _png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(width, height, pixels):
    """An 8-bit RGB PNG of `pixels` (a bytearray of height rows of width RGB triples)."""
    if len(pixels) != width * height * 3:
        raise ValueError(f"{len(pixels)} bytes for a {width}x{height} RGB image")
    raw = b"".join(b"\x00" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", zlib.compress(raw, 9)) +
            _png_chunk(b"IEND", b""))


class _Canvas:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def fill(self, x0, y0, x1, y1, rgb):
        x0, x1 = max(0, int(x0)), min(self.width, int(x1))
        y0, y1 = max(0, int(y0)), min(self.height, int(y1))
        row = bytes(rgb) * max(0, x1 - x0)
        for y in range(y0, y1):
            at = (y * self.width + x0) * 3
            self.pixels[at:at + len(row)] = row


def _layout(groups, series, width, height):
    """(x0, y0, x1, y1, series index) of every bar with a value, on a linear axis from 0 to the
    largest value; missing values (None) leave a gap."""
    top = max((v for _, values in groups for v in values if v is not None), default=0) or 1.0
    left, right, bottom, top_margin = 60, width - 20, height - 60, 30
    slot = (right - left) / max(1, len(groups))
    bar = slot * 0.8 / max(1, len(series))
    bars = []
    for g, (_, values) in enumerate(groups):
        for s, value in enumerate(values):
            if value is None:
                continue
            x0 = left + g * slot + slot * 0.1 + s * bar
            y0 = bottom - (bottom - top_margin) * value / top
            bars.append((x0, y0, x0 + bar - 1, bottom, s))
    return bars, (left, right, bottom, top_margin, top)


def draw_png(groups, series, width=900, height=420):
    """The chart as PNG bytes, without text: axes, bars, and a legend of colour squares in series
    order (the SVG and the report name them)."""
    canvas = _Canvas(width, height)
    bars, (left, right, bottom, top_margin, _) = _layout(groups, series, width, height)
    canvas.fill(left - 1, top_margin, left, bottom + 1, (0, 0, 0))
    canvas.fill(left - 1, bottom, right, bottom + 1, (0, 0, 0))
    for x0, y0, x1, y1, s in bars:
        canvas.fill(x0, y0, x1, y1, COLOURS[s % len(COLOURS)])
    for s in range(len(series)):
        canvas.fill(left + s * 30, 8, left + s * 30 + 16, 20, COLOURS[s % len(COLOURS)])
    return encode_png(width, height, canvas.pixels)


def _xml(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def draw_svg(groups, series, title, unit, width=900, height=420):
    """The same chart as SVG text, with the group names, the legend and each bar's value."""
    bars, (left, right, bottom, top_margin, top) = _layout(groups, series, width, height)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="14" text-anchor="middle">{_xml(title)}</text>',
           f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{top_margin}" x2="{left}" y2="{bottom}" stroke="black"/>',
           f'<text x="{left - 4}" y="{top_margin + 4}" text-anchor="end">{top:.3g}</text>',
           f'<text x="{left - 4}" y="{bottom}" text-anchor="end">0 {_xml(unit)}</text>']
    values = [v for _, vs in groups for v in vs if v is not None]
    for (x0, y0, x1, y1, s), value in zip(bars, values):
        out.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
                   f'fill="{_hex(COLOURS[s % len(COLOURS)])}"><title>{_xml(series[s])}: {value:.3g} '
                   f'{_xml(unit)}</title></rect>')
    slot = (right - left) / max(1, len(groups))
    for g, (name, _) in enumerate(groups):
        out.append(f'<text x="{left + (g + 0.5) * slot:.1f}" y="{bottom + 16}" text-anchor="middle">'
                   f'{_xml(name)}</text>')
    for s, name in enumerate(series):
        out.append(f'<rect x="{left + s * 150}" y="{height - 30}" width="12" height="12" '
                   f'fill="{_hex(COLOURS[s % len(COLOURS)])}"/><text x="{left + s * 150 + 16}" '
                   f'y="{height - 20}">{_xml(name)}</text>')
    return "\n".join(out + ["</svg>\n"])


def write_chart(png_path, svg_path, groups, series, title, unit):
    """Writes the PNG (matplotlib's when it imports, else draw_png's) and the SVG; returns which
    drew the PNG ("matplotlib" or "built-in"). groups: [(name, [value or None per series])]."""
    with open(svg_path, "w", encoding="utf-8") as f:
        f.write(draw_svg(groups, series, title, unit))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        with open(png_path, "wb") as f:
            f.write(draw_png(groups, series))
        return "built-in"
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(1, len(series))
    for s, name in enumerate(series):
        xs = [g + s * width for g, (_, vs) in enumerate(groups) if vs[s] is not None]
        ys = [vs[s] for _, vs in groups if vs[s] is not None]
        ax.bar(xs, ys, width, label=name, color=_hex(COLOURS[s % len(COLOURS)]))
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels([name for name, _ in groups], rotation=20, ha="right")
    ax.set_ylabel(unit)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return "matplotlib"
