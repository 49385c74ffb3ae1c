// "Check a submission": the page's side of the checker (checker_core.js): a dropped file is
// read and gunzipped in the browser, checked, and the verdict shown. Nothing is uploaded.
(function () {
  "use strict";
  var facts = JSON.parse(document.getElementById("check-facts").textContent);
  var L = facts.limits;
  var checker = icgChecker(facts, window.icgValidateSubmission);

  function Invalid(stage, errors) { this.stage = stage; this.errors = errors; }

  // The bytes of `bytes` inflated, or {failed: the reader's error}.
  async function inflate(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    var reader = stream.getReader(), chunks = [], size = 0;
    try {
      for (;;) {
        var step = await reader.read();
        if (step.done) break;
        size += step.value.length;
        if (size > L.max_bytes) {
          reader.cancel();
          throw new Invalid("size", ["/: decompressed content is over the limit of " +
            L.max_bytes + " bytes"]);
        }
        chunks.push(step.value);
      }
    } catch (err) {
      if (err instanceof Invalid) throw err;
      return { failed: String(err && err.message || err) };
    }
    var out = new Uint8Array(size), at = 0;
    chunks.forEach(function (c) { out.set(c, at); at += c.length; });
    return { out: out };
  }

  // The most trailing bytes counted exactly.
  var COUNTED_TAIL = 64;

  async function gunzip(bytes) {
    var first = await inflate(bytes);
    if (first.out) return first.out;
    if (/truncat|unexpected end/i.test(first.failed)) {
      throw new Invalid("parse", ["/: truncated gzip data"]);
    }
    // The browser's reader says only that bytes follow the member, not where it ended. A cut
    // of j tail bytes still has junk for j below the count, inflates cleanly at the count and
    // is truncated above it, so the count (as the scorer gives it) is found by bisection:
    // at most 7 inflations for 64 bytes, not one per byte. Corrupt data is not searched.
    if (/junk/i.test(first.failed)) {
      var lo = 1, hi = Math.min(COUNTED_TAIL, bytes.length - 1);
      while (lo <= hi) {
        var k = (lo + hi) >> 1, cut = await inflate(bytes.subarray(0, bytes.length - k));
        if (cut.out) {
          throw new Invalid("parse", ["/: " + k + " byte(s) after the end of the gzip stream " +
            "(a second member or trailing data); write one gzip member and nothing else"]);
        }
        if (/junk/i.test(cut.failed)) lo = k + 1; else hi = k - 1;
      }
    }
    // "The compressed data was not valid: <zlib's reason>.": the reason, as Python gives it
    var reason = first.failed.replace(/^.*: /, "").replace(/\.$/, "");
    throw new Invalid("parse", ["/: not valid gzip data (" + reason + ")"]);
  }

  async function check(name, bytes) {
    if (bytes.length > L.max_bytes) {
      return { file: name, valid: false, stage: "size", count: 1,
        errors: ["/: file is over the limit of " + L.max_bytes + " bytes"] };
    }
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try { bytes = await gunzip(bytes); } catch (err) {
        if (err instanceof Invalid) return { file: name, valid: false, stage: err.stage, count: 1, errors: err.errors };
        throw err;
      }
    }
    return checker.checkBytes(name, bytes);
  }

  // ---- The page ---------------------------------------------------------------------
  // Untrusted text as the CLI prints it (icgbench.io.untrusted.printable): every character
  // of the facts' unprintable ranges (Cc, Cf, Co, Cs, Zl, Zp, the tag block) as its escape,
  // so a zero-width space, a bidirectional control or a tag cannot hide on the page.
  var NAMED = { 9: "\\t", 10: "\\n", 13: "\\r" };
  function hex(code, width) { return code.toString(16).padStart(width, "0"); }
  function hidden(code) {
    return facts.unprintable.some(function (r) { return code >= r[0] && code <= r[1]; });
  }
  function printable(text) {
    return Array.from(String(text), function (ch) {
      var code = ch.codePointAt(0);
      if (!hidden(code)) return ch;
      return NAMED[code] || (code <= 0xFF ? "\\x" + hex(code, 2) : code <= 0xFFFF ?
        "\\u" + hex(code, 4) : "\\U" + hex(code, 8));
    }).join("");
  }

  // One file's verdict as a section of the result box; a valid file of another tier
  // than the board's is said to be one the board refuses.
  function section(verdict, boardTier) {
    var part = document.createElement("div"), head = document.createElement("p");
    if (verdict.valid) {
      head.textContent = "VALID " + printable(verdict.file) + ": " + verdict.variant + " seed " + verdict.seed +
        " (" + verdict.tier + " tier), blocks: " + verdict.blocks.join(", ");
    } else {
      head.textContent = "INVALID " + printable(verdict.file) + " (" + verdict.stage + "): " + verdict.count +
        " problem" + (verdict.count === 1 ? "" : "s");
    }
    head.className = verdict.valid ? "valid" : "invalid";
    part.appendChild(head);
    if (verdict.valid && boardTier && verdict.tier !== boardTier) {
      var note = document.createElement("p");
      note.className = "tier-note";
      note.textContent = "This board takes " + boardTier + "-tier submissions: it would refuse this " +
        verdict.tier + "-tier file (check it against the " + verdict.tier + " release with icgbench validate).";
      part.appendChild(note);
    }
    var list = document.createElement("ul");
    verdict.errors.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = printable(line);
      list.appendChild(item);
    });
    part.appendChild(list);
    return part;
  }

  function show(verdicts) {
    var box = document.getElementById("check-result"), tier = box.getAttribute("data-board-tier");
    box.textContent = "";
    verdicts.forEach(function (v) { box.appendChild(section(v, tier)); });
    if (verdicts.length > 1) {
      var summary = document.createElement("p"), good = verdicts.filter(function (v) { return v.valid; });
      summary.className = "summary";
      summary.textContent = good.length + " of " + verdicts.length + " files valid";
      box.appendChild(summary);
    }
    box.setAttribute("data-verdicts", JSON.stringify(verdicts));
    box.setAttribute("data-verdict", JSON.stringify(verdicts[0]));
  }

  async function take(files) {
    var box = document.getElementById("check-result"), verdicts = [];
    box.removeAttribute("data-verdict");
    box.removeAttribute("data-verdicts");
    for (var k = 0; k < files.length; k++) {
      box.textContent = "checking " + files[k].name + " (" + (k + 1) + " of " + files.length + ") ...";
      verdicts.push(await check(files[k].name, new Uint8Array(await files[k].arrayBuffer())));
    }
    show(verdicts);
  }

  var input = document.getElementById("check-file"), zone = document.getElementById("check-zone");
  input.addEventListener("change", function () { if (input.files.length) take(Array.from(input.files)); });
  zone.addEventListener("dragover", function (event) { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
  zone.addEventListener("drop", function (event) {
    event.preventDefault();
    zone.classList.remove("over");
    if (event.dataTransfer.files.length) take(Array.from(event.dataTransfer.files));
  });
  window.icgCheckSubmission = check;
  document.body.setAttribute("data-checker", "ready");
})();
