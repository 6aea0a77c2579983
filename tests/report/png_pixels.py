"""Reads an 8-bit RGB or RGBA PNG (non-interlaced, as Chromium's screenshots are) into a numpy
array with only zlib and struct, for the report's browser test."""
import struct
import zlib

import numpy as np


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """Returns an array of shape (height, width, channels), dtype uint8."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: depth {depth}, color type {color}, interlace {interlace}")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).astype(np.int32)
        if kind == 0:
            cur = row
        elif kind == 1:  # Sub: a running sum per channel
            cur = np.cumsum(row.reshape(width, bpp), axis=0).reshape(stride) % 256
        elif kind == 2:  # Up
            cur = (row + prev) % 256
        elif kind in (3, 4):  # Average, Paeth: left to right
            r, p = row.tolist(), prev.tolist()
            c = [0] * stride
            for i in range(stride):
                left = c[i - bpp] if i >= bpp else 0
                if kind == 3:
                    c[i] = (r[i] + (left + p[i]) // 2) & 255
                else:
                    upleft = p[i - bpp] if i >= bpp else 0
                    c[i] = (r[i] + _paeth(left, p[i], upleft)) & 255
            cur = np.array(c, dtype=np.int32)
        else:
            raise ValueError(f"{path}: bad filter type {kind} in row {y}")
        out[y] = cur
        prev = cur
    return out.reshape(height, width, bpp)
