// One gzip member with nothing after it, inflated up to a limit, with the Python scorer's
// verdicts and zlib's own words (icgbench.io.untrusted.gunzip): the header and the trailer
// are read here, the deflate data by pako (a port of zlib, so its reasons are zlib's).
// Part of the icgbench R package (MIT); pako is vendored beside it (pako_inflate.min.js).
var icgGunzipMember = (function () {
  "use strict";
  var TRAILING = " byte(s) after the end of the gzip stream (a second member or trailing data);" +
    " write one gzip member and nothing else";

  function Problem(stage, message) { this.stage = stage; this.message = message; }

  function crcTable() {
    var table = new Int32Array(256);
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
    return table;
  }
  var TABLE = crcTable();

  function crc32(chunks) {
    var c = -1;
    chunks.forEach(function (bytes) {
      for (var i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    });
    return (c ^ -1) >>> 0;
  }

  function word(bytes, at) {
    return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
  }

  // Where the deflate data start: the header as zlib reads it (RFC 1952), or a Problem.
  function bodyStart(bytes) {
    var truncated = new Problem("parse", "truncated gzip data");
    if (bytes.length < 10) throw truncated;
    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new Problem("parse", "not valid gzip data (incorrect header check)");
    if (bytes[2] !== 8) throw new Problem("parse", "not valid gzip data (unknown compression method)");
    var flags = bytes[3], at = 10;
    if (flags & 0xe0) throw new Problem("parse", "not valid gzip data (unknown header flags set)");
    if (flags & 4) {  // FEXTRA
      if (at + 2 > bytes.length) throw truncated;
      at += 2 + (bytes[at] | (bytes[at + 1] << 8));
    }
    [8, 16].forEach(function (flag) {  // FNAME, FCOMMENT: zero-terminated
      if (flags & flag) {
        while (at < bytes.length && bytes[at] !== 0) at++;
        at++;
      }
    });
    if (flags & 2) at += 2;  // FHCRC
    if (at > bytes.length) throw truncated;
    return at;
  }

  // {bytes} or {stage, message}: the member's content, at most maxBytes of it.
  return function (bytes, maxBytes) {
    try {
      var start = bodyStart(bytes), chunks = [], size = 0;
      var inflator = new pako.Inflate({ raw: true, chunkSize: 65536 });
      inflator.onData = function (chunk) {
        size += chunk.length;
        if (size > maxBytes) {
          throw new Problem("size", "decompressed content is over the limit of " + maxBytes + " bytes");
        }
        chunks.push(chunk);
      };
      inflator.push(bytes.subarray(start), false);
      if (inflator.err) throw new Problem("parse", "not valid gzip data (" + inflator.msg + ")");
      if (!inflator.ended) throw new Problem("parse", "truncated gzip data");
      var end = bytes.length - inflator.strm.avail_in;
      if (bytes.length - end < 8) throw new Problem("parse", "truncated gzip data");
      if (word(bytes, end) !== crc32(chunks)) throw new Problem("parse", "not valid gzip data (incorrect data check)");
      if (word(bytes, end + 4) !== size >>> 0) throw new Problem("parse", "not valid gzip data (incorrect length check)");
      if (bytes.length > end + 8) throw new Problem("parse", (bytes.length - end - 8) + TRAILING);
      var out = new Uint8Array(size), at = 0;
      chunks.forEach(function (c) { out.set(c, at); at += c.length; });
      return { bytes: out };
    } catch (problem) {
      if (problem instanceof Problem) return { stage: problem.stage, message: problem.message };
      throw problem;
    }
  };
})();
