// "Check a submission": validates a dropped file in the browser, as `icgbench validate` does,
// with the same messages. Nothing is uploaded or fetched. The facts (messages, limits, the
// schema, each cohort's held-out ids) come from the page's JSON block, written by
// icgbench.leaderboard.checker; the schema is checked by `icgValidateSubmission`, ajv's
// code compiled ahead of time (submission_schema.js). What this file adds is the scorer's
// wording: jsonschema's messages and their order, the scorer's hints, and the second layer.
(function () {
  "use strict";
  var facts = JSON.parse(document.getElementById("check-facts").textContent);
  var M = facts.messages, L = facts.limits, SCHEMA = facts.schema;

  function Invalid(stage, errors) { this.stage = stage; this.errors = errors; }

  // ---- Python's repr and str of JSON values, and str.format --------------------------
  // The parser records which numbers were written as floats (1.0 is a float in Python, an
  // int-valued number here) and the exact text of integers, by JSON Pointer.
  function Doc(value, floats, ints) { this.value = value; this.floats = floats; this.ints = ints; }

  var NONPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

  function hex(n, width) { var s = n.toString(16); while (s.length < width) s = "0" + s; return s; }

  function reprString(s) {
    var quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    var out = quote;
    for (var ch of s) {
      var c = ch.codePointAt(0);
      if (ch === quote || ch === "\\") out += "\\" + ch;
      else if (ch === "\t") out += "\\t";
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (c < 0x20 || c === 0x7f) out += "\\x" + hex(c, 2);
      else if (c < 0x7f || (ch !== " " && !NONPRINTABLE.test(ch)) || ch === " ") out += ch;
      else if (c < 0x100) out += "\\x" + hex(c, 2);
      else if (c < 0x10000) out += "\\u" + hex(c, 4);
      else out += "\\U" + hex(c, 8);
    }
    return out + quote;
  }

  function reprFloat(x) {
    if (x === Infinity) return "inf";
    if (x === -Infinity) return "-inf";
    if (x !== x) return "nan";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    var sign = x < 0 ? "-" : "", parts = Math.abs(x).toExponential().split("e");
    var digits = parts[0].replace(".", ""), exp = parseInt(parts[1], 10);
    if (exp < -4 || exp >= 16) {
      var mantissa = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
      var e = Math.abs(exp) < 10 ? "0" + Math.abs(exp) : String(Math.abs(exp));
      return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + e;
    }
    if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
    if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length) + ".0";
    return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }

  function pointerChild(pointer, key) {
    return pointer + "/" + String(key).replace(/~/g, "~0").replace(/\//g, "~1");
  }

  function repr(value, doc, pointer) {
    if (value === null) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (typeof value === "string") return reprString(value);
    if (typeof value === "number") {
      if (doc && pointer !== undefined) {
        if (doc.ints.has(pointer)) return doc.ints.get(pointer);
        if (doc.floats.has(pointer)) return reprFloat(value);
      }
      return Number.isInteger(value) ? String(value) : reprFloat(value);
    }
    if (Array.isArray(value)) {
      return "[" + value.map(function (v, i) {
        return repr(v, doc, pointer === undefined ? undefined : pointerChild(pointer, i));
      }).join(", ") + "]";
    }
    return "{" + Object.keys(value).map(function (k) {
      return reprString(k) + ": " + repr(value[k], doc,
        pointer === undefined ? undefined : pointerChild(pointer, k));
    }).join(", ") + "}";
  }

  function str(value) {
    if (value && typeof value === "object" && "text" in value) return value.text;
    return typeof value === "string" ? value : repr(value);
  }

  function format(name, values) {
    return M[name].replace(/\{\{|\}\}|\{(\w+)(!r)?\}/g, function (all, key, conversion) {
      if (all === "{{") return "{";
      if (all === "}}") return "}";
      return conversion ? repr(values[key]) : str(values[key]);
    });
  }

  function codePoints(s) { return Array.from(s); }

  function shorten(text, limit) {
    limit = limit === undefined ? L.max_message : limit;
    var chars = codePoints(text);
    if (chars.length <= limit) return text;
    var head = chars.slice(0, Math.floor(limit * 2 / 3)), tail = chars.slice(-Math.floor(limit / 4));
    return head.join("") + " ... [" + (chars.length - head.length - tail.length) +
      " characters omitted] ... " + tail.join("");
  }

  function shown(text, limit) {
    var chars = codePoints(text);
    limit = limit === undefined ? 200 : limit;
    if (chars.length <= limit) return text;
    return chars.slice(0, limit).join("") + "... (" + (chars.length - limit) + " more characters)";
  }

  function jsonPath(parts) {
    var out = "$";
    parts.forEach(function (part) {
      if (typeof part === "number") out += "[" + part + "]";
      else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += "." + part;
      else out += "[" + reprString(part) + "]";
    });
    return out;
  }

  // ---- Reading: size, gzip, UTF-8, strict JSON ---------------------------------------
  async function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    var reader = stream.getReader(), chunks = [], size = 0;
    try {
      for (;;) {
        var step = await reader.read();
        if (step.done) break;
        size += step.value.length;
        if (size > L.max_bytes) {
          reader.cancel();
          throw new Invalid("size", ["$: decompressed content is over the limit of " +
            L.max_bytes + " bytes"]);
        }
        chunks.push(step.value);
      }
    } catch (err) {
      if (err instanceof Invalid) throw err;
      var text = String(err && err.message || err);
      throw new Invalid("parse", [/junk/i.test(text)
        ? "$: bytes after the end of the gzip stream (a second member or trailing data); " +
          "write one gzip member and nothing else"
        : /truncat/i.test(text) ? "$: truncated gzip data" : "$: not valid gzip data (" + text + ")"]);
    }
    var out = new Uint8Array(size), at = 0;
    chunks.forEach(function (c) { out.set(c, at); at += c.length; });
    return out;
  }

  function utf8Problem(bytes) {
    for (var i = 0; i < bytes.length;) {
      var b = bytes[i], need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2
        : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
      if (need < 0) return [i, "invalid start byte"];
      for (var k = 1; k <= need; k++) {
        if (i + k >= bytes.length) return [i, "unexpected end of data"];
        var c = bytes[i + k], lo = 0x80, hi = 0xbf;
        if (k === 1) {
          if (b === 0xe0) lo = 0xa0; else if (b === 0xed) hi = 0x9f;
          else if (b === 0xf0) lo = 0x90; else if (b === 0xf4) hi = 0x8f;
        }
        if (c < lo || c > hi) return [i, "invalid continuation byte"];
      }
      i += need + 1;
    }
    return null;
  }

  function decode(bytes) {
    var bad = utf8Problem(bytes);
    if (bad) throw new Invalid("parse", ["$: not valid UTF-8 at byte offset " + bad[0] + " (" + bad[1] + ")"]);
    var text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) {
      throw new Invalid("parse", ["$: starts with a byte-order mark; write UTF-8 without BOM"]);
    }
    return text;
  }

  // A strict JSON parser: duplicate keys, NaN/Infinity and strings over the limit refused
  // as the scorer refuses them; float literals and integer texts recorded for repr.
  function parse(text) {
    var i = 0, floats = new Set(), ints = new Map(), depth = 0;
    function where() {
      var line = 1, col = 1;
      for (var k = 0; k < i && k < text.length; k++) {
        if (text[k] === "\n") { line++; col = 1; } else col++;
      }
      return " at line " + line + " column " + col;
    }
    function fail(what) { throw new Invalid("parse", ["$: not valid JSON: " + what + where()]); }
    function space() { while (i < text.length && " \t\n\r".indexOf(text[i]) >= 0) i++; }
    function value(pointer) {
      space();
      var c = text[i];
      if (c === "{") return object(pointer);
      if (c === "[") return array(pointer);
      if (c === '"') return string();
      if (c === "-" || (c >= "0" && c <= "9")) {
        if (text.startsWith("-Infinity", i)) constant("-Infinity");
        return number(pointer);
      }
      if (text.startsWith("true", i)) { i += 4; return true; }
      if (text.startsWith("false", i)) { i += 5; return false; }
      if (text.startsWith("null", i)) { i += 4; return null; }
      if (text.startsWith("NaN", i)) constant("NaN");
      if (text.startsWith("Infinity", i)) constant("Infinity");
      fail("Expecting value");
    }
    function constant(name) {
      throw new Invalid("parse", ["$: " + name + " is not valid JSON (use a finite number or null)"]);
    }
    function number(pointer) {
      var m = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i, i + 4096));
      if (!m) fail("Expecting value");
      var literal = m[0];
      if (literal.length === 4096) {  // a number longer than the window: read all of it
        m = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i));
        literal = m[0];
      }
      i += literal.length;
      var x = Number(literal);
      if (m[1] || m[2] || !isFinite(x)) floats.add(pointer);
      else ints.set(pointer, literal === "-0" ? "0" : literal);
      return x;
    }
    function string() {
      var start = i++, out = "";
      for (;;) {
        if (i >= text.length) { i = start; fail("Unterminated string starting at"); }
        var c = text[i];
        if (c === '"') { i++; return out; }
        if (c < " ") fail("Invalid control character");
        if (c === "\\") {
          var e = text[i + 1];
          var simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
          if (e in simple) { out += simple[e]; i += 2; continue; }
          if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          fail(e === "u" ? "Invalid \\uXXXX escape" : "Invalid \\escape");
        }
        var next = text.indexOf('"', i), stop = next < 0 ? text.length : next;
        var chunk = text.slice(i, stop), cut = chunk.search(/[\\\u0000-\u001f]/);
        if (cut >= 0) chunk = chunk.slice(0, cut);
        out += chunk;
        i += chunk.length;
      }
    }
    function enter() { if (++depth > 990) throw new Invalid("parse", ["$: JSON nested too deeply"]); }
    function object(pointer) {
      enter();
      i++;
      var pairs = [];
      space();
      if (text[i] === "}") { i++; depth--; return finish(pairs); }
      for (;;) {
        space();
        if (text[i] !== '"') fail("Expecting property name enclosed in double quotes");
        var key = string();
        space();
        if (text[i] !== ":") fail("Expecting ':' delimiter");
        i++;
        pairs.push([key, value(pointerChild(pointer, key))]);
        space();
        if (text[i] === "}") { i++; depth--; return finish(pairs); }
        if (text[i] !== ",") fail("Expecting ',' delimiter");
        i++;
      }
    }
    function finish(pairs) {
      var out = {}, seen = new Set();
      pairs.forEach(function (pair) {
        var key = pair[0], v = pair[1];
        if (seen.has(key)) {
          throw new Invalid("parse", ["$: duplicate object key " + reprString(shown(key))]);
        }
        var keyLength = codePoints(key).length;
        var long = keyLength > L.max_string ? key
          : typeof v === "string" && codePoints(v).length > L.max_string ? v : null;
        if (long !== null) {
          throw new Invalid("size", ["$: a string of " + codePoints(long).length +
            " characters (in the member " + reprString(shown(key, 60)) + ") is over the limit of " +
            L.max_string]);
        }
        seen.add(key);
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      });
      return out;
    }
    function array(pointer) {
      enter();
      i++;
      var out = [];
      space();
      if (text[i] === "]") { i++; depth--; return out; }
      for (;;) {
        out.push(value(pointerChild(pointer, out.length)));
        space();
        if (text[i] === "]") { i++; depth--; return out; }
        if (text[i] !== ",") fail("Expecting ',' delimiter");
        i++;
      }
    }
    var result = value("");
    space();
    if (i < text.length) fail("Extra data");
    return new Doc(result, floats, ints);
  }

  // ---- The schema layer: ajv's verdict in jsonschema's words and order ---------------
  function resolve(node) {
    while (node && typeof node === "object" && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
      var target = SCHEMA;
      node.$ref.slice(2).split("/").forEach(function (part) { target = target[part]; });
      node = target;
    }
    return node;
  }

  var SIMPLE_ITEM = ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "pattern", "minLength", "maxLength", "enum", "description"];
  var SIMPLE_ARRAY = ["type", "items", "minItems", "description"];
  var SAFE_PATTERN = /^[\^$()|\[\]\-{},+*?.A-Za-z0-9_ ]*$/;

  function reducible(sub) {
    if (Object.keys(sub).some(function (k) { return SIMPLE_ARRAY.indexOf(k) < 0; }) || sub.type !== "array") return null;
    var items = resolve(sub.items || {});
    if (!items || typeof items !== "object" || Object.keys(items).some(function (k) { return SIMPLE_ITEM.indexOf(k) < 0; })) return null;
    if ("enum" in items) {
      if ((items.type || "string") !== "string" || !items.enum.every(function (v) { return typeof v === "string"; })) return null;
      items = Object.assign({}, items, { type: "string" });
    }
    if (["number", "integer", "string"].indexOf(items.type) < 0) return null;
    if (items.pattern !== undefined && !SAFE_PATTERN.test(items.pattern)) return null;
    return items;
  }

  function firstFailures(values, ok) {
    var out = [];
    for (var i = 0; i < values.length && out.length < L.keep_failures; i++) if (!ok(values[i], i)) out.push(i);
    return out;
  }

  function pythonSearch(pattern, s) {
    var re = new RegExp(pattern, "u");
    if (re.test(s)) return true;
    // Python's re.search lets an unescaped final `$` match before one final newline
    return /(^|[^\\])\$$/.test(pattern) && s.endsWith("\n") && re.test(s.slice(0, -1));
  }

  function failing(doc, values, items, pointer) {
    if (items.type === "number" || items.type === "integer") {
      if (!values.every(function (v) { return typeof v === "number"; })) {
        return firstFailures(values, function (v) { return typeof v === "number"; });
      }
      var hasInt = false;
      for (var k = 0; k < values.length; k++) {
        if (!doc.floats.has(pointerChild(pointer, k))) { hasInt = true; break; }
      }
      if (hasInt && values.some(function (x) { return Math.abs(x) >= Math.pow(2, 53); })) return null;
      var bad = [];
      values.forEach(function (x, idx) {
        var b = false;
        if (items.type === "integer") b = b || !isFinite(x) || Math.floor(x) !== x;
        if ("minimum" in items) b = b || x < items.minimum;
        if ("maximum" in items) b = b || x > items.maximum;
        if ("exclusiveMinimum" in items) b = b || x <= items.exclusiveMinimum;
        if ("exclusiveMaximum" in items) b = b || x >= items.exclusiveMaximum;
        if (b) bad.push(idx);
      });
      return bad;
    }
    if (!values.every(function (v) { return typeof v === "string"; })) {
      return firstFailures(values, function (v) { return typeof v === "string"; });
    }
    if (values.some(function (s) { return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s); })) return null;
    var out = [];
    values.forEach(function (s, idx) {
      var n = codePoints(s).length, b = false;
      if ("minLength" in items) b = b || n < items.minLength;
      if ("maxLength" in items) b = b || n > items.maxLength;
      if ("enum" in items) b = b || items.enum.indexOf(s) < 0;
      if (items.pattern !== undefined) b = b || !pythonSearch(items.pattern, s);
      if (b) out.push(idx);
    });
    return out;
  }

  // The arrays the scorer shortens before handing the document to jsonschema (see
  // scorer/schema_check.py): pointer -> the indices it keeps.
  function reductions(doc) {
    var maps = new Map();
    function walk(node, sub, pointer) {
      sub = resolve(sub);
      if (!sub || typeof sub !== "object") return;
      if (node && typeof node === "object" && !Array.isArray(node) && ("properties" in sub || "additionalProperties" in sub)) {
        var props = sub.properties || {}, extra = sub.additionalProperties;
        Object.keys(node).forEach(function (key) {
          var child = Object.prototype.hasOwnProperty.call(props, key) ? props[key]
            : extra && typeof extra === "object" ? extra : null;
          if (child !== null) walk(node[key], child, pointerChild(pointer, key));
        });
        return;
      }
      if (Array.isArray(node)) {
        var items = reducible(sub);
        if (items === null || node.length < Math.max(L.reduce_from, sub.minItems || 0)) return;
        var bad = failing(doc, node, items, pointer);
        if (bad === null) return;
        var first = Math.max(1, sub.minItems || 1), keep = new Set();
        for (var k = 0; k < first; k++) keep.add(k);
        bad.slice(0, L.keep_failures).forEach(function (k) { keep.add(k); });
        maps.set(pointer, keep);
      }
    }
    walk(doc.value, SCHEMA, "");
    return maps;
  }

  function segments(doc, instancePath) {
    var node = doc.value, out = [];
    if (!instancePath) return out;
    instancePath.slice(1).split("/").forEach(function (raw) {
      var key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) { out.push(parseInt(key, 10)); node = node[parseInt(key, 10)]; }
      else { out.push(key); node = node == null ? undefined : node[key]; }
    });
    return out;
  }

  function pointerOf(parts) {
    return parts.reduce(function (p, part) { return pointerChild(p, part); }, "");
  }

  function kept(maps, parts) {
    for (var n = 0; n < parts.length; n++) {
      var keep = maps.get(pointerOf(parts.slice(0, n)));
      if (keep !== undefined && typeof parts[n] === "number" && !keep.has(parts[n])) return false;
    }
    return true;
  }

  function isType(doc, value, pointer, type) {
    switch (type) {
      case "object": return value !== null && typeof value === "object" && !Array.isArray(value);
      case "array": return Array.isArray(value);
      case "string": return typeof value === "string";
      case "boolean": return typeof value === "boolean";
      case "null": return value === null;
      case "number": return typeof value === "number";
      case "integer": return typeof value === "number" && (doc.floats.has(pointer)
        ? isFinite(value) && Math.floor(value) === value : true);
    }
    return false;
  }

  // Where a subschema sits inside another at the same instance level (if/then/else,
  // anyOf...), to order errors as jsonschema's walk of the schema's keywords does.
  var PARENTS = new Map();
  (function index(node) {
    if (!node || typeof node !== "object") return;
    Object.keys(node).forEach(function (key, at) {
      var child = node[key];
      if (["if", "then", "else", "not"].indexOf(key) >= 0 && child && typeof child === "object") {
        PARENTS.set(child, [node, at]);
      }
      if (["anyOf", "allOf", "oneOf"].indexOf(key) >= 0 && Array.isArray(child)) {
        child.forEach(function (c) { PARENTS.set(c, [node, at]); });
      }
      if (child && typeof child === "object") {
        if (Array.isArray(child)) child.forEach(index); else index(child);
      }
    });
  })(SCHEMA);

  function rank(parentSchema, keyword) {
    var out = [Object.keys(parentSchema).indexOf(keyword)], node = parentSchema;
    while (PARENTS.has(node)) {
      var up = PARENTS.get(node);
      out.unshift(up[1]);
      node = up[0];
    }
    return out;
  }

  function compareLists(a, b) {
    for (var k = 0; k < Math.min(a.length, b.length); k++) {
      if (a[k] < b[k]) return -1;
      if (a[k] > b[k]) return 1;
    }
    return a.length - b.length;
  }

  function hint(error) {
    var value = error.instance, expected = error.expected;
    if (!Array.isArray(value) || value.length === 0) return null;
    if (error.validator === "type" && expected === "object" && value[0] !== null &&
        typeof value[0] === "object" && !Array.isArray(value[0])) {
      return format("columnar", { count: value.length });
    }
    var scalar = error.validator === "enum" || error.validator === "const" ||
      (error.validator === "type" && ["string", "integer", "number", "boolean"].indexOf(expected) >= 0);
    if (scalar && value.length === 1) {
      return format("unbox", { value: shorten(repr(value, error.doc, error.pointer), 80) });
    }
    return null;
  }

  function jsonschemaMessage(e, doc) {
    var value = e.data, pointer = e.instancePath, r = function () { return repr(value, doc, pointer); };
    switch (e.keyword) {
      case "type":
        return r() + " is not of type " + String(e.params.type).split(",").map(reprString).join(", ");
      case "required": return reprString(e.params.missingProperty) + " is a required property";
      case "enum": return r() + " is not one of " + repr(e.schema);
      case "const": return repr(e.schema) + " was expected";
      case "minimum": return r() + " is less than the minimum of " + repr(e.schema);
      case "maximum": return r() + " is greater than the maximum of " + repr(e.schema);
      case "exclusiveMinimum": return r() + " is less than or equal to the minimum of " + repr(e.schema);
      case "exclusiveMaximum": return r() + " is greater than or equal to the maximum of " + repr(e.schema);
      case "minItems": return r() + (e.schema === 1 ? " should be non-empty" : " is too short");
      case "maxItems": return r() + (e.schema === 0 ? " is expected to be empty" : " is too long");
      case "minLength": return r() + (e.schema === 1 ? " should be non-empty" : " is too short");
      case "maxLength": return r() + (e.schema === 0 ? " is expected to be empty" : " is too long");
      case "minProperties": return r() + (e.schema === 1 ? " should be non-empty" : " does not have enough properties");
      case "pattern": return r() + " does not match " + reprString(e.schema);
      case "anyOf": return r() + " is not valid under any of the given schemas";
    }
    return r() + ": " + e.message;
  }

  function schemaErrors(doc) {
    var validate = window.icgValidateSubmission;
    if (validate(doc.value)) return [];
    var maps = reductions(doc), errors = [], extras = new Map();
    (validate.errors || []).forEach(function (e) {
      if (/\/(anyOf|oneOf)\/[0-9]+\//.test(e.schemaPath) || e.keyword === "if") return;
      if (e.keyword === "pattern" && pythonSearch(e.schema, e.data)) return;
      var parts = segments(doc, e.instancePath);
      if (!kept(maps, parts)) return;
      if (e.keyword === "additionalProperties") {  // jsonschema: one error for all of them
        var key = e.instancePath + " " + e.schemaPath;
        if (extras.has(key)) { extras.get(key).names.push(e.params.additionalProperty); return; }
        var merged = { parts: parts, e: e, names: [e.params.additionalProperty] };
        extras.set(key, merged);
        errors.push(merged);
        return;
      }
      errors.push({ parts: parts, e: e });
    });
    var described = errors.map(function (item, order) {
      var e = item.e, parts = item.parts, message;
      var error = { validator: e.keyword, instance: e.data, expected: e.keyword === "type" ? e.params.type : null,
        doc: doc, pointer: e.instancePath };
      if (item.names) {
        var names = item.names.slice().sort();
        message = shorten(M.unknown_keys + " (" + names.map(reprString).join(", ") + " " +
          (names.length === 1 ? "was" : "were") + " unexpected)");
      } else if (e.keyword === "anyOf" && parts.length === 0 && error.instance && typeof error.instance === "object" && !Array.isArray(error.instance)) {
        message = format("one_block", { blocks: e.schema.map(function (s) { return s.required[0]; }).join(", ") });
      } else {
        message = hint(error) || shorten(jsonschemaMessage(e, doc));
      }
      var parent = e.parentSchema || {};
      var matches = parent.type === undefined ? false : [].concat(parent.type).some(function (t) {
        return isType(doc, e.data, e.instancePath, t);
      });
      return { parts: parts, order: order, message: message,
        key: [-parts.length, parts, e.keyword !== "anyOf" && e.keyword !== "oneOf" ? 1 : 0, 0, matches ? 0 : 1],
        rank: rank(parent, e.keyword) };
    });
    described.sort(function (a, b) {
      var ka = a.key, kb = b.key;
      if (ka[0] !== kb[0]) return kb[0] - ka[0];
      var paths = compareLists(ka[1], kb[1]);
      if (paths !== 0) return -paths;
      for (var k = 2; k < 5; k++) if (ka[k] !== kb[k]) return kb[k] - ka[k];
      var ranks = compareLists(a.rank, b.rank);
      return ranks !== 0 ? ranks : a.order - b.order;
    });
    var lines = described.map(function (d) { return jsonPath(d.parts) + ": " + d.message; });
    if (lines.length > L.max_errors) {
      lines = lines.slice(0, L.max_errors).concat([format("more_errors", { count: lines.length - L.max_errors })]);
    }
    return lines;
  }

  // ---- The second layer: header and blocks against the public facts -----------------
  function loneSurrogate(s) {
    var at = 0;
    for (var ch of s) {
      var c = ch.codePointAt(0);
      if (c >= 0xd800 && c <= 0xdfff) return at;
      at++;
    }
    return -1;
  }

  function headerErrors(parsed, tier) {
    var doc = parsed.value, out = [], d = facts.tiers[tier];
    // the seed as Python reads it: an integer beyond 2**53 keeps every digit
    var seed = parsed.ints.has("/seed") ? { text: parsed.ints.get("/seed") } : doc.seed;
    Object.keys(doc.model).forEach(function (key) {
      var value = doc.model[key];
      if (typeof value === "string" && loneSurrogate(value) >= 0) {
        out.push(format("lone_surrogate", { path: jsonPath(["model", key]), at: loneSurrogate(value) }));
      }
    });
    if (doc.data_version !== d.version) {
      out.push(format("data_version", { given: doc.data_version, release: d.version }));
    }
    if (doc.tier !== tier) {
      out.push(format("tier", { given: doc.tier, tier: tier,
        hint: doc.tier === "unfrozen" ? M.unfrozen_hint : "" }));
    }
    var expected = facts.variant_hashes[doc.variant];
    if (doc.variant_hash !== expected) {
      out.push(format("variant_hash", { given: doc.variant_hash, variant: doc.variant, expected: expected }));
    }
    var seeds = Object.keys(d.cohorts[doc.variant] || {}).map(Number).sort(function (a, b) { return a - b; });
    var holders = facts.frozen_seeds.filter(function (pair) {
      return pair[1].indexOf(doc.seed) >= 0 && pair[0] !== tier;
    }).map(function (pair) { return pair[0]; });
    if (seeds.indexOf(doc.seed) < 0 && holders.length) {
      out.push(format("tier_of_seed", { tier: tier, variant: doc.variant, seed: seed, other: holders[0], seeds: seeds }));
    } else if (seeds.indexOf(doc.seed) < 0) {
      out.push(format("seed", { tier: tier, variant: doc.variant, seed: seed, seeds: seeds }));
    }
    return out;
  }

  function expand(runs) {
    var out = [];
    runs.forEach(function (run) {
      if (run[1] < 0) { out.push(run[0]); return; }
      for (var k = 0; k < run[2]; k++) out.push(run[0] + String(run[1] + k).padStart(run[3], "0"));
    });
    return out;
  }

  function arrays(block, path) {
    var out = [];
    Object.keys(block).forEach(function (key) {
      var value = block[key];
      if (Array.isArray(value)) out.push([path.concat([key]), value]);
      else if (value && typeof value === "object") out = out.concat(arrays(value, path.concat([key])));
    });
    return out;
  }

  function few(values) {
    var shownPart = values.slice(0, L.show).join(", ");
    return values.length > L.show ? format("few", { shown: shownPart, more: values.length - L.show }) : shownPart;
  }

  function idErrors(name, split, ids, expected) {
    if (ids.length === expected.length && ids.every(function (v, k) { return v === expected[k]; })) return [];
    var position = new Map();
    expected.forEach(function (id, k) { position.set(id, k); });
    var hits = new Array(expected.length).fill(0), unknown = [];
    ids.forEach(function (id) {
      if (position.has(id)) hits[position.get(id)]++; else unknown.push(id);
    });
    if (!unknown.length && ids.length === expected.length && hits.every(function (h) { return h <= 1; })) return [];
    var out = [], where = jsonPath([name, "subject_id"]), counts = new Map();
    ids.forEach(function (id) { counts.set(id, (counts.get(id) || 0) + 1); });
    var dupes = [];
    counts.forEach(function (n, id) { if (n > 1) dupes.push(id); });
    if (dupes.length) out.push(format("duplicate_ids", { path: where, ids: few(dupes) }));
    var missing = expected.filter(function (id, k) { return hits[k] === 0; });
    if (missing.length) out.push(format("missing_ids", { path: where, count: missing.length, split: split, ids: few(missing) }));
    if (unknown.length) out.push(format("unknown_ids", { path: where, count: unknown.length, split: split, ids: few(unknown) }));
    return out;
  }

  function blockErrors(name, block, cohort) {
    var out = [], list = arrays(block, []);
    var lengths = new Set(list.map(function (a) { return a[1].length; }));
    if (lengths.size > 1) {
      out.push(format("lengths", { block: jsonPath([name]), detail: list.map(function (a) {
        return format("length_of", { path: jsonPath([name].concat(a[0])), count: a[1].length });
      }).join(", ") }));
    }
    list.forEach(function (a) {
      var path = a[0], values = a[1];
      if (path[path.length - 1] === "subject_id" || typeof values[0] === "string") return;
      var bad = [];
      values.forEach(function (x, k) { if (!isFinite(x)) bad.push(k); });
      if (bad.length) out.push(format("not_finite", { path: jsonPath([name].concat(path, [bad[0]])), count: bad.length }));
    });
    var split = facts.block_splits[name];
    if (split && "subject_id" in block) {
      out = out.concat(idErrors(name, split, block.subject_id, expand(cohort[split])));
    }
    if ("source" in block && "target" in block && lengths.size === 1) {
      var source = block.source, target = block.target, loops = [];
      source.forEach(function (s, k) { if (s === target[k]) loops.push(k); });
      if (loops.length) {
        out.push(format("self_loop", { path: jsonPath([name, "source", loops[0]]), node: source[loops[0]], count: loops.length }));
      }
      var seen = new Map();
      for (var k = 0; k < source.length; k++) {
        var pair = JSON.stringify([source[k], target[k]]);
        if (seen.has(pair)) {
          out.push(format("repeated_edge", { path: jsonPath([name, "source", k]), source: source[k], target: target[k], first: seen.get(pair) }));
          break;
        }
        seen.set(pair, k);
      }
    }
    return out;
  }

  function incompleteTaskErrors(present) {
    var out = [];
    present.slice().sort().forEach(function (block) {
      var users = facts.tasks.filter(function (t) { return t[1].indexOf(block) >= 0; });
      var complete = users.some(function (t) { return t[1].every(function (b) { return present.indexOf(b) >= 0; }); });
      if (users.length && !complete) {
        var needs = new Set();
        users.forEach(function (t) { t[1].forEach(function (b) { if (present.indexOf(b) < 0) needs.add(b); }); });
        out.push(format("incomplete_task", { block: block, needs: Array.from(needs).sort().join(", "),
          users: users.map(function (t) { return t[0]; }).join(", ") }));
      }
    });
    return out;
  }

  // ---- One file, start to end ---------------------------------------------------------
  async function check(name, bytes) {
    try {
      if (bytes.length > L.max_bytes) {
        throw new Invalid("size", ["$: file is over the limit of " + L.max_bytes + " bytes"]);
      }
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await gunzip(bytes);
      var doc = parse(decode(bytes));
      var errors = schemaErrors(doc);
      if (errors.length) throw new Invalid("schema", errors);
      var value = doc.value;
      var tier = (facts.descriptor_tier || {})[value.tier] || value.tier;
      if (!(tier in facts.tiers)) {
        return { file: name, valid: false, stage: "usage", errors: ["this page holds no facts for the " +
          value.tier + " tier (a release without it was published): check the file with `icgbench validate`"] };
      }
      errors = headerErrors(doc, tier);
      if (errors.length) throw new Invalid("semantic", errors);
      var cohort = facts.tiers[tier].cohorts[value.variant][String(value.seed)];
      var present = facts.task_blocks.filter(function (b) { return b in value; });
      errors = incompleteTaskErrors(present);
      present.forEach(function (b) { errors = errors.concat(blockErrors(b, value[b], cohort)); });
      if (errors.length) throw new Invalid("semantic", errors.slice(0, L.max_errors));
      return { file: name, valid: true, stage: null, errors: [], variant: value.variant,
        seed: value.seed, tier: value.tier, blocks: present.slice().sort() };
    } catch (err) {
      if (err instanceof Invalid) return { file: name, valid: false, stage: err.stage, errors: err.errors };
      return { file: name, valid: false, stage: "error", errors: ["the page could not check this file: " + err] };
    }
  }

  // ---- The page ---------------------------------------------------------------------
  function show(verdict) {
    var box = document.getElementById("check-result");
    box.textContent = "";
    var head = document.createElement("p");
    if (verdict.valid) {
      head.textContent = "VALID " + verdict.file + ": " + verdict.variant + " seed " + verdict.seed +
        " (" + verdict.tier + " tier), blocks: " + verdict.blocks.join(", ");
    } else {
      head.textContent = "INVALID " + verdict.file + " (" + verdict.stage + "):";
    }
    head.className = verdict.valid ? "valid" : "invalid";
    box.appendChild(head);
    var list = document.createElement("ul");
    verdict.errors.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = line;
      list.appendChild(item);
    });
    box.appendChild(list);
    box.setAttribute("data-verdict", JSON.stringify(verdict));
  }

  async function take(file) {
    var box = document.getElementById("check-result");
    box.removeAttribute("data-verdict");
    box.textContent = "checking " + file.name + " ...";
    show(await check(file.name, new Uint8Array(await file.arrayBuffer())));
  }

  var input = document.getElementById("check-file"), zone = document.getElementById("check-zone");
  input.addEventListener("change", function () { if (input.files.length) take(input.files[0]); });
  zone.addEventListener("dragover", function (event) { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
  zone.addEventListener("drop", function (event) {
    event.preventDefault();
    zone.classList.remove("over");
    if (event.dataTransfer.files.length) take(event.dataTransfer.files[0]);
  });
  window.icgCheckSubmission = check;
  document.body.setAttribute("data-checker", "ready");
})();
