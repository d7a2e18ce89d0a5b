// @ts-check
// UTF-8 validity of raw bytes: where the first invalid sequence starts (for the error that
// names the line and byte), and whole lines decoded with the bad ones marked as Python's
// surrogateescape marks them, for "skip malformed lines" (py/evalsieve/decoding.py).

/**
 * Index of the first byte that starts an invalid UTF-8 sequence (a truncated sequence at the
 * very end counts as invalid only when `final`), or -1.
 * @param {Uint8Array} bytes @param {boolean} [final] @returns {number}
 */
export function firstInvalidUtf8(bytes, final = true) {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) { i++; continue; }
    let need;
    let min;
    if (b >= 0xc2 && b <= 0xdf) { need = 1; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return final ? i : -1;
      const c = bytes[i + k];
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whole lines of UTF-8 bytes as text, each line that is not UTF-8 decoded as Python's
 * surrogateescape decodes it (py/evalsieve/decoding.py): every byte that starts no valid
 * sequence, 0xXY, becomes the lone surrogate U+DCXY. Python skips the record and names its
 * first such byte; one surrogate per byte keeps every later record's byte offset (the text
 * encoded back with surrogateescape is the file's bytes). Exported for tests.
 * @param {Uint8Array} bytes @returns {string}
 */
export function decodeMarkingInvalid(bytes) {
  try { return STRICT.decode(bytes); } catch { /* line by line below */ }
  let out = '';
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl + 1;
    const line = bytes.subarray(start, end);
    for (let at = 0; at < line.length;) {
      const bad = firstInvalidUtf8(line.subarray(at), true);
      if (bad === -1) { out += STRICT.decode(line.subarray(at)); break; }
      out += STRICT.decode(line.subarray(at, at + bad)) + String.fromCharCode(0xdc00 + line[at + bad]);
      at += bad + 1;
    }
    start = end;
  }
  return out;
}
