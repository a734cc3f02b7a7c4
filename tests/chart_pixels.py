#!/usr/bin/env python3
"""The charts as Chromium draws them (run by tests/report_browser.sh).

Every <svg> of report.html, each in a page of its own as the report embeds
it (inline, in an HTML body), and summary.svg opened as a file, are
screenshotted by headless Chromium; then every bar of every chart (a
<rect> with a fill and room for a pixel) must show its own colour at its
centre in the screenshot. An SVG without a height (or a viewBox that
does not fit it) is drawn 150 px tall or scaled, and the rows below are
missing: that fails here, row by row.

Usage: chart_pixels.py CHROMIUM WORKDIR FILE...   (FILE: report.html or *.svg)
Prints one "ok: ..." or "FAIL: ..." line per chart; exits 1 on a failure.
"""
import os
import re
import struct
import subprocess
import sys
import zlib

RECT = re.compile(r'<rect\b([^>]*)/?>')
ATTR = re.compile(r'([a-zA-Z-]+)="([^"]*)"')


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError('PNG kind %d/%d/%d not read here' % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def bars(svg):
    """The bars of an SVG's text: (x, y, width, height, (r, g, b)) of each
    rect with a #rrggbb fill at least 3 px each way."""
    out = []
    for m in RECT.finditer(svg):
        a = dict(ATTR.findall(m.group(1)))
        fill = a.get('fill', '')
        try:
            x, y = float(a.get('x', 0)), float(a.get('y', 0))
            w, h = float(a['width']), float(a['height'])
        except (KeyError, ValueError):
            continue  # "100%" backgrounds and the like
        if re.fullmatch(r'#[0-9a-fA-F]{6}', fill) and w >= 3 and h >= 3:
            out.append((x, y, w, h, tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))))
    return out


def shoot(chrome, url, png, width, height, work):
    cmd = [chrome, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
           '--disable-extensions', '--hide-scrollbars', '--user-data-dir=' + work + '/profile',
           '--force-device-scale-factor=1', '--window-size=%d,%d' % (width, height),
           '--screenshot=' + png, url]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return os.path.exists(png)


def check(chrome, name, page, svg, work, k):
    """Screenshot `page` (a file holding `svg` at the top left) and check
    every bar of `svg`. Returns the number of failures."""
    rects = bars(svg)
    if not rects:
        print('ok: %s: no bar to draw' % name)
        return 0
    width = int(max(x + w for x, _, w, _, _ in rects)) + 200
    height = int(max(y + h for _, y, _, h, _ in rects)) + 200
    png = os.path.join(work, 'chart-%d.png' % k)
    if not shoot(chrome, 'file://' + page, png, max(width, 500), max(height, 300), work):
        print('FAIL: %s: Chromium made no screenshot' % name)
        return 1
    pw, ph, px = png_pixels(png)
    missing = []
    for x, y, w, h, rgb in rects:
        cx, cy = int(x + w / 2), int(y + h / 2)
        got = px[cy][cx] if cx < pw and cy < ph else None
        if got is None or max(abs(g - r) for g, r in zip(got, rgb)) > 12:
            missing.append('bar at y=%g (#%02x%02x%02x, drawn %s)' % (y, *rgb, got))
    if missing:
        print('FAIL: %s: %d of %d bars not drawn: %s' % (name, len(missing), len(rects),
                                                           '; '.join(missing[:4])))
        return 1
    print('ok: %s: all %d bars drawn, the lowest at y=%g' % (
        name, len(rects), max(y for _, y, _, _, _ in rects)))
    return 0


def main():
    chrome, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    fails, k = 0, 0
    for f in files:
        text = open(f, encoding='utf-8').read()
        if f.endswith('.svg'):
            fails += check(chrome, os.path.basename(f), os.path.abspath(f), text, work, k)
            k += 1
            continue
        for i, m in enumerate(re.finditer(r'<svg\b.*?</svg>', text, re.S)):
            label = re.search(r'aria-label="([^"]*)"', m.group(0))
            page = os.path.join(work, 'chart-%d.html' % k)
            with open(page, 'w', encoding='utf-8') as out:
                out.write('<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                          '<body style="margin:0">' + m.group(0) + '</body></html>')
            fails += check(chrome, '%s chart %d (%s)' % (os.path.basename(f), i + 1,
                                                        label.group(1) if label else '?'),
                           page, m.group(0), work, k)
            k += 1
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
