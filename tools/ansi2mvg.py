#!/usr/bin/env python3
"""ansi2mvg.py - a terminal capture with SGR escapes (tmux capture-pane -e)
drawn as character cells in ImageMagick's vector format (MVG): 256 colours,
bold, dim, reverse, underline; block elements (bars) drawn as rectangles so
they join up.  tools/screenshots.sh renders it: convert mvg:screen.mvg x.png

usage: ansi2mvg.py COLS ROWS < capture.txt > screen.mvg
"""
import re
import sys

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 14
CW = 8.43   # DejaVu Sans Mono advance at 14 px (0.602 em)
CH = 17
FG = (0xd0, 0xd0, 0xd0)
BG = (0x1c, 0x1c, 0x1c)

BASIC = [(0x00, 0x00, 0x00), (0xcd, 0x31, 0x31), (0x0d, 0xbc, 0x79), (0xe5, 0xe5, 0x10),
         (0x24, 0x72, 0xc8), (0xbc, 0x3f, 0xbc), (0x11, 0xa8, 0xcd), (0xe5, 0xe5, 0xe5),
         (0x66, 0x66, 0x66), (0xf1, 0x4c, 0x4c), (0x23, 0xd1, 0x8b), (0xf5, 0xf5, 0x43),
         (0x3b, 0x8e, 0xea), (0xd6, 0x70, 0xd6), (0x29, 0xb8, 0xdb), (0xff, 0xff, 0xff)]


def palette(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.rev = self.ul = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.rev, self.ul)

    def apply(self, params):
        p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
        i = 0
        while i < len(p):
            c = p[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 4:
                self.ul = True
            elif c == 24:
                self.ul = False
            elif c == 7:
                self.rev = True
            elif c == 27:
                self.rev = False
            elif 30 <= c <= 37:
                self.fg = c - 30
            elif 90 <= c <= 97:
                self.fg = c - 90 + 8
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = c - 40
            elif 100 <= c <= 107:
                self.bg = c - 100 + 8
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 2 < len(p) and p[i + 1] == 5:
                if c == 38:
                    self.fg = p[i + 2]
                else:
                    self.bg = p[i + 2]
                i += 2
            elif c in (38, 48) and i + 4 < len(p) and p[i + 1] == 2:
                rgb = ("rgb",) + tuple(p[i + 2:i + 5])
                if c == 38:
                    self.fg = rgb
                else:
                    self.bg = rgb
                i += 4
            i += 1


def color(c, default, bold=False):
    if c is None:
        return default
    if isinstance(c, tuple):
        return c[1:]
    if bold and c < 8:
        c += 8
    return palette(c)


def hexc(rgb):
    return "#%02x%02x%02x" % rgb


def main():
    cols, rows = int(sys.argv[1]), int(sys.argv[2])
    text = sys.stdin.read()
    lines = text.split("\n")[:rows]
    cells = []  # per row: list of (char, style key)
    tok = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|(.)", re.S)
    st = Style()
    for line in lines:
        row = []
        for m in tok.finditer(line):
            if m.group(0).startswith("\x1b"):
                if m.group(0).endswith("m"):
                    st.apply(m.group(1))
                continue
            row.append((m.group(2), st.key()))
        cells.append(row[:cols])
    w, h = int(cols * CW + 16), rows * CH + 16
    out = ["viewbox 0 0 %d %d" % (w, h),
           "fill '%s' rectangle 0,0 %d,%d" % (hexc(BG), w, h),
           "font-size %d" % SIZE]
    font = None
    for y, row in enumerate(cells):
        for x, (ch, k) in enumerate(row):
            fg_c, bg_c, bold, dim, rev, ul = k
            fg = color(fg_c, FG, bold)
            bg = color(bg_c, BG)
            if rev:
                fg, bg = bg, fg
            if dim:
                fg = tuple((a + b) // 2 for a, b in zip(fg, BG))
            px, py = 8 + x * CW, 8 + y * CH
            if bg != BG:
                out.append("fill '%s' rectangle %.2f,%d %.2f,%d" % (hexc(bg), px, py, px + CW + 0.5, py + CH))
            o = ord(ch)
            if 0x2588 <= o <= 0x258f:  # full and left eighth blocks
                frac = (8 - (o - 0x2588)) / 8.0
                out.append("fill '%s' rectangle %.2f,%d %.2f,%d" % (hexc(fg), px, py + 2, px + CW * frac, py + CH - 2))
            elif 0x2581 <= o <= 0x2587:  # lower eighth blocks
                frac = (o - 0x2580) / 8.0
                out.append("fill '%s' rectangle %.2f,%.2f %.2f,%d" % (hexc(fg), px, py + CH * (1 - frac), px + CW, py + CH))
            elif ch != " ":
                want = FONT_BOLD if bold else FONT
                if want != font:
                    out.append("font '%s'" % want)
                    font = want
                t = ch.replace("\\", "\\\\").replace("'", "\\'")
                out.append("fill '%s' text %.2f,%d '%s'" % (hexc(fg), px, py + CH - 4, t))
            if ul:
                out.append("fill '%s' rectangle %.2f,%d %.2f,%d" % (hexc(fg), px, py + CH - 2, px + CW, py + CH - 1))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
