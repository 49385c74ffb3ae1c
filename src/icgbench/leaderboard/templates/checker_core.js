// The submission checker of `icgbench validate`, in JavaScript: the same checks and the same
// messages, for the leaderboard page (in the browser) and the R package (in V8). It reads
// one JSON document of facts (icgbench.leaderboard.checker: the message templates, limits,
// the schema, each tier's version, seeds and held-out ids) and ajv's compiled validator
// (submission_schema.js). Nothing here reads a file or the network: the caller hands in the
// file's bytes, gunzipped.
var icgChecker = function (facts, validate) {
  "use strict";
  var M = facts.messages, L = facts.limits;

  function Invalid(stage, errors, count) {
    this.stage = stage; this.errors = errors; this.count = count === undefined ? errors.length : count;
  }

  // ---- Values as JSON, numbers as JavaScript writes them (scorer/messages.py) ---------
  // The parser records each integer's text (Python reads integers exactly) and each
  // object's keys in the order written, by JSON Pointer.
  function Doc(value, ints, keys) { this.value = value; this.ints = ints; this.keys = keys; }

  function pointerChild(pointer, key) {
    return pointer + "/" + String(key).replace(/~/g, "~0").replace(/\//g, "~1");
  }

  function pointerOf(parts) {
    return parts.reduce(function (p, part) { return pointerChild(p, part); }, "");
  }

  function shownPointer(parts) { return pointerOf(parts) || "/"; }

  function jsonString(s) { return JSON.stringify(s); }

  function keysOf(value, doc, pointer) {
    return doc && doc.keys.has(pointer) ? doc.keys.get(pointer) : Object.keys(value);
  }

  function jsonText(value, doc, pointer) {
    if (value === null) return "null";
    if (value === true) return "true";
    if (value === false) return "false";
    if (typeof value === "string") return jsonString(value);
    if (typeof value === "number") {
      if (doc && doc.ints.has(pointer)) return doc.ints.get(pointer);
      return isFinite(value) ? String(value) : value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
    }
    if (Array.isArray(value)) {
      return "[" + value.map(function (v, i) {
        return jsonText(v, doc, pointer === undefined ? undefined : pointerChild(pointer, i));
      }).join(",") + "]";
    }
    return "{" + keysOf(value, doc, pointer).map(function (k) {
      return jsonString(k) + ":" + jsonText(value[k], doc,
        pointer === undefined ? undefined : pointerChild(pointer, k));
    }).join(",") + "}";
  }

  function codePoints(s) { return Array.from(s); }

  function shown(value, doc, pointer) {
    var chars = codePoints(jsonText(value, doc, pointer));
    if (chars.length <= L.shown_value) return chars.join("");
    return chars.slice(0, L.shown_value).join("") + "... (" + chars.length + " characters)";
  }

  function format(name, values) {
    return M[name].replace(/\{\{|\}\}|\{(\w+)\}/g, function (all, key) {
      if (all === "{{") return "{";
      if (all === "}}") return "}";
      return String(values[key]);
    });
  }

  function line(parts, text) { return shownPointer(parts) + ": " + text; }

  function listed(lines, count) {
    if (count <= L.max_errors) return lines.slice(0, L.max_errors);
    return lines.slice(0, L.max_errors).concat([format("more_errors",
      { more: count - L.max_errors, count: count })]);
  }

  function shortKey(text, limit) {
    var chars = codePoints(text);
    if (chars.length <= limit) return text;
    return chars.slice(0, limit).join("") + "... (" + (chars.length - limit) + " more characters)";
  }

  function pyRepr(s) {  // Python's repr of a str, for the one reader message that quotes a key
    var quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    return quote + s.replace(/\\/g, "\\\\").replace(new RegExp(quote, "g"), "\\" + quote)
      .replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t") + quote;
  }

  // ---- Reading: UTF-8, strict JSON --------------------------------------------------
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

  function utf8Decode(bytes) {  // bytes already known to be valid UTF-8
    var out = [], chunk = [];
    for (var i = 0; i < bytes.length;) {
      var b = bytes[i], c;
      if (b < 0x80) { c = b; i += 1; }
      else if (b < 0xe0) { c = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f); i += 2; }
      else if (b < 0xf0) { c = ((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f); i += 3; }
      else { c = ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f); i += 4; }
      if (c > 0xffff) { c -= 0x10000; chunk.push(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff)); }
      else chunk.push(c);
      if (chunk.length >= 8192) { out.push(String.fromCharCode.apply(null, chunk)); chunk = []; }
    }
    out.push(String.fromCharCode.apply(null, chunk));
    return out.join("");
  }

  function decode(bytes) {
    var bad = utf8Problem(bytes);
    if (bad) throw new Invalid("parse", ["/: not valid UTF-8 at byte offset " + bad[0] + " (" + bad[1] + ")"]);
    var text = utf8Decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) {
      throw new Invalid("parse", ["/: starts with a byte-order mark; write UTF-8 without BOM"]);
    }
    return text;
  }

  // A strict JSON parser: duplicate keys, NaN/Infinity and strings over the limit refused
  // as the scorer refuses them; float literals and integer texts recorded for repr.
  function parse(text) {
    var i = 0, ints = new Map(), keys = new Map(), depth = 0;
    function where() {
      var line = 1, col = 1;
      for (var k = 0; k < i && k < text.length; k++) {
        if (text[k] === "\n") { line++; col = 1; } else col++;
      }
      return " at line " + line + " column " + col;
    }
    function fail(what) { throw new Invalid("parse", ["/: not valid JSON: " + what + where()]); }
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
      throw new Invalid("parse", ["/: " + format("constant", { name: name })]);
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
      if (!(m[1] || m[2] || !isFinite(x))) ints.set(pointer, literal === "-0" ? "0" : literal);
      return x;
    }
    function string() {
      var start = i++, out = "";
      for (;;) {
        if (i >= text.length) { i = start; fail("Unterminated string starting"); }
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
    function enter() { if (++depth > 990) throw new Invalid("parse", ["/: JSON nested too deeply"]); }
    function object(pointer) {
      enter();
      i++;
      var pairs = [];
      space();
      if (text[i] === "}") { i++; depth--; return finish(pairs, pointer); }
      for (;;) {
        space();
        if (text[i] !== '"') fail("Expecting property name enclosed in double quotes");
        var key = string();
        space();
        if (text[i] !== ":") fail("Expecting ':' delimiter");
        i++;
        pairs.push([key, value(pointerChild(pointer, key))]);
        space();
        if (text[i] === "}") { i++; depth--; return finish(pairs, pointer); }
        if (text[i] !== ",") fail("Expecting ',' delimiter");
        i++;
      }
    }
    function finish(pairs, pointer) {
      var out = {}, seen = new Set();
      keys.set(pointer, pairs.map(function (pair) { return pair[0]; }));
      pairs.forEach(function (pair) {
        var key = pair[0], v = pair[1];
        if (seen.has(key)) {
          throw new Invalid("parse", ["/: duplicate object key " + pyRepr(shortKey(key, 200))]);
        }
        var keyLength = codePoints(key).length;
        var long = keyLength > L.max_string ? key
          : typeof v === "string" && codePoints(v).length > L.max_string ? v : null;
        if (long !== null) {
          throw new Invalid("size", ["/: a string of " + codePoints(long).length +
            " characters (in the member " + pyRepr(shortKey(key, 60)) + ") is over the limit of " +
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
    return new Doc(result, ints, keys);
  }

  // ---- The schema layer: ajv's verdict in the scorer's words, in document order -------
  // Where the path lies in the document: each key's index among its object's keys as
  // written, each array index (scorer/schema_check._document_position).
  function position(doc, parts) {
    var out = [], node = doc.value, pointer = "";
    parts.forEach(function (part) {
      if (node !== null && typeof node === "object" && !Array.isArray(node)) {
        var keys = keysOf(node, doc, pointer), at = keys.indexOf(part);
        out.push(at < 0 ? keys.length : at);
      } else {
        out.push(part);
      }
      node = node == null ? undefined : node[part];
      pointer = pointerChild(pointer, part);
    });
    return out;
  }

  function compareLists(a, b) {
    for (var k = 0; k < Math.min(a.length, b.length); k++) {
      if (a[k] < b[k]) return -1;
      if (a[k] > b[k]) return 1;
    }
    return a.length - b.length;
  }

  function hint(e, doc) {
    var value = e.data, expected = e.keyword === "type" ? e.params.type : null;
    if (!Array.isArray(value) || value.length === 0) return null;
    if (e.keyword === "type" && expected === "object" && value[0] !== null &&
        typeof value[0] === "object" && !Array.isArray(value[0])) {
      return format("columnar", { count: value.length });
    }
    var scalar = e.keyword === "enum" || e.keyword === "const" ||
      (e.keyword === "type" && ["string", "integer", "number", "boolean"].indexOf(expected) >= 0);
    if (scalar && value.length === 1) return format("unbox", { value: shown(value, doc, e.instancePath) });
    return null;
  }

  function describe(e, doc, parts) {
    var value = e.data, at = e.instancePath;
    var h = hint(e, doc);
    if (h !== null) return h;
    if (e.keyword === "anyOf" && parts.length === 0 && value && typeof value === "object" && !Array.isArray(value)) {
      return format("one_block", { blocks: e.schema.map(function (s) { return s.required[0]; }).join(", ") });
    }
    switch (e.keyword) {
      case "type": return format("type", { value: shown(value, doc, at), expected: String(e.params.type).split(",").join(" or ") });
      case "required": return format("required", { name: shown(e.params.missingProperty) });
      case "enum": return format("enum", { value: shown(value, doc, at), allowed: jsonText(e.schema) });
      case "const": return format("const", { value: shown(value, doc, at), expected: shown(e.schema) });
      case "minimum": case "maximum": case "exclusiveMinimum": case "exclusiveMaximum":
        return format(e.keyword, { value: shown(value, doc, at), limit: String(e.schema) });
      case "minItems": return format("minItems", { count: value.length, limit: e.schema });
      case "minProperties": return format("minProperties", { count: Object.keys(value).length, limit: e.schema });
      case "minLength": case "maxLength":
        return format(e.keyword, { count: codePoints(value).length, limit: e.schema });
      case "pattern": return format("pattern", { value: shown(value, doc, at), rule: patternWords(e.schema) });
    }
    return format("keyword", { value: shown(value, doc, at), keyword: e.keyword });
  }

  function patternWords(pattern) {  // scorer/schema_check.pattern_words
    var words = facts.pattern_words || {};
    return Object.prototype.hasOwnProperty.call(words, pattern) ? words[pattern]
      : "text matching the pattern " + jsonString(pattern);
  }

  function pythonSearch(pattern, s) {
    var re = new RegExp(pattern, "u");
    if (re.test(s)) return true;
    // Python's re.search lets an unescaped final `$` match before one final newline
    return /(^|[^\\])\$$/.test(pattern) && s.endsWith("\n") && re.test(s.slice(0, -1));
  }

  // The bound errors JSON Schema gives an infinity (or NaN: none) where ajv gave a type error.
  function boundsOfInfinity(e) {
    var x = e.data, p = e.parentSchema || {}, out = [];
    var broken = {
      minimum: function (m) { return x < m; }, maximum: function (m) { return x > m; },
      exclusiveMinimum: function (m) { return x <= m; }, exclusiveMaximum: function (m) { return x >= m; }
    };
    Object.keys(broken).forEach(function (k) {
      if (typeof p[k] === "number" && broken[k](p[k])) {
        out.push({ keyword: k, schema: p[k], data: x, instancePath: e.instancePath,
          schemaPath: e.schemaPath.replace(/\/type$/, "/" + k), params: { limit: p[k] } });
      }
    });
    return out;
  }

  // ---- Long simple arrays checked in one loop before ajv (scorer/schema_check.py) ----
  // ajv with allErrors builds one object per failing element: 2.5 million wrong-typed
  // probabilities would take gigabytes. Each long array of simple items is checked here;
  // ajv sees its first elements and its first failing ones, and the count is the loop's.
  var REDUCE_FROM = 16;
  var SIMPLE_ITEM = ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "pattern", "minLength", "maxLength", "enum", "description"];
  var SIMPLE_ARRAY = ["type", "items", "minItems", "description"];
  var SAFE_PATTERN = /^[\^$()|\[\]\-{},+*?.A-Za-z0-9_ ]*$/;

  function resolve(sub) {
    while (sub && typeof sub === "object" && typeof sub.$ref === "string" && sub.$ref.indexOf("#/") === 0) {
      sub = sub.$ref.slice(2).split("/").reduce(function (n, part) { return n[part]; }, facts.schema);
    }
    return sub;
  }

  function only(obj, allowed) {
    return Object.keys(obj).every(function (k) { return allowed.indexOf(k) >= 0; });
  }

  function reducible(sub) {
    if (!only(sub, SIMPLE_ARRAY) || sub.type !== "array") return null;
    var items = resolve(sub.items || {});
    if (!items || typeof items !== "object" || Array.isArray(items) || !only(items, SIMPLE_ITEM)) return null;
    if ("enum" in items) {
      if ((items.type || "string") !== "string" || !items.enum.every(function (v) { return typeof v === "string"; })) return null;
      items = Object.assign({}, items, { type: "string" });
    }
    if (["number", "integer", "string"].indexOf(items.type) < 0) return null;
    if (items.pattern !== undefined && !SAFE_PATTERN.test(items.pattern)) return null;
    return items;
  }

  // {bad: failing indices, count: errors (one per failing keyword of the schema as written)},
  // or null when the loop cannot decide as jsonschema would (large integers, lone surrogates).
  function failing(values, items, original, doc, pointer) {
    var checks = {}, n = values.length, i, v;
    function check(keyword, fails) { if (keyword in items) checks[keyword] = fails; }
    if (items.type === "number" || items.type === "integer") {
      for (i = 0; i < n; i++) {
        v = values[i];
        if (typeof v === "number" && doc.ints.has(pointerChild(pointer, i)) && Math.abs(v) >= 9007199254740992) return null;
      }
      var isInt = items.type === "integer";
      checks.type = function (x) { return typeof x !== "number" || (isInt && (!isFinite(x) || Math.floor(x) !== x)); };
      check("minimum", function (x) { return typeof x === "number" && x < items.minimum; });
      check("maximum", function (x) { return typeof x === "number" && x > items.maximum; });
      check("exclusiveMinimum", function (x) { return typeof x === "number" && x <= items.exclusiveMinimum; });
      check("exclusiveMaximum", function (x) { return typeof x === "number" && x >= items.exclusiveMaximum; });
    } else {
      for (i = 0; i < n; i++) if (typeof values[i] === "string" && loneSurrogate(values[i]) >= 0) return null;
      checks.type = function (x) { return typeof x !== "string"; };
      check("minLength", function (x) { return typeof x === "string" && codePoints(x).length < items.minLength; });
      check("maxLength", function (x) { return typeof x === "string" && codePoints(x).length > items.maxLength; });
      check("enum", function (x) { return typeof x !== "string" || items.enum.indexOf(x) < 0; });
      check("pattern", function (x) { return typeof x === "string" && !pythonSearch(items.pattern, x); });
    }
    var keywords = Object.keys(checks).filter(function (k) { return k in original; });
    var all = Object.keys(checks), bad = [], count = 0;
    for (i = 0; i < n; i++) {
      v = values[i];
      var failed = false;
      for (var k = 0; k < all.length; k++) {
        if (checks[all[k]](v)) {
          failed = true;
          if (keywords.indexOf(all[k]) >= 0) count++;
        }
      }
      if (failed) bad.push(i);
    }
    return { bad: bad, count: count };
  }

  // The document with long simple arrays shortened, and per shortened array's pointer the
  // original index of each element kept and the errors of the whole array.
  function reduceDocument(doc, keepFailures) {
    var maps = new Map();
    function walk(node, sub, pointer) {
      sub = resolve(sub);
      if (!sub || typeof sub !== "object") return node;
      if (node !== null && typeof node === "object" && !Array.isArray(node) &&
          ("properties" in sub || "additionalProperties" in sub)) {
        var props = sub.properties || {}, extra = sub.additionalProperties, out = {};
        Object.keys(node).forEach(function (key) {
          var child = Object.prototype.hasOwnProperty.call(props, key) ? props[key]
            : extra !== null && typeof extra === "object" ? extra : null;
          out[key] = child !== null ? walk(node[key], child, pointerChild(pointer, key)) : node[key];
        });
        return out;
      }
      if (Array.isArray(node)) {
        var items = reducible(sub);
        if (items !== null && node.length >= Math.max(REDUCE_FROM, sub.minItems || 0)) {
          var found = failing(node, items, resolve(sub.items || {}), doc, pointer);
          if (found !== null) {
            var keep = [], first = Math.max(1, sub.minItems || 1), j;
            for (j = 0; j < Math.min(first, node.length); j++) keep.push(j);
            found.bad.slice(0, keepFailures).forEach(function (b) { if (b >= first) keep.push(b); });
            keep.sort(function (a, b) { return a - b; });
            maps.set(pointer, { kept: keep, errors: found.count });
            return keep.map(function (k) { return node[k]; });
          }
        }
      }
      return node;
    }
    return { value: walk(doc.value, facts.schema, ""), maps: maps };
  }

  // An ajv error on the shortened document, its path mapped back to the original one.
  function originalParts(reduced, maps, instancePath) {
    var node = reduced, out = [], pointer = "";
    if (!instancePath) return out;
    instancePath.slice(1).split("/").forEach(function (raw) {
      var key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) {
        var at = parseInt(key, 10), shortened = maps.get(pointer);
        node = node[at];
        key = shortened ? shortened.kept[at] : at;
      } else {
        node = node == null ? undefined : node[key];
      }
      out.push(key);
      pointer = pointerChild(pointer, key);
    });
    return out;
  }

  function schemaErrors(doc) {
    var reduced = reduceDocument(doc, Math.max(L.max_errors, 1));
    if (validate(reduced.value)) return { lines: [], count: 0 };
    var found = [], extras = new Map();
    (validate.errors || []).forEach(function (raw) {
      var parts = originalParts(reduced.value, reduced.maps, raw.instancePath);
      var e = Object.assign({}, raw, { instancePath: pointerOf(parts) });
      if (/\/(anyOf|oneOf)\/[0-9]+\//.test(e.schemaPath) || e.keyword === "if") return;
      if (e.keyword === "pattern" && pythonSearch(e.schema, e.data)) return;
      // ajv's "number" excludes infinities, JSON Schema's does not (1e999 is a number: the
      // second layer finds it not finite, as the scorer does), and ajv then skips the
      // number's bounds, which JSON Schema applies to an infinity as to any number
      if (e.keyword === "type" && typeof e.data === "number" && !isFinite(e.data) &&
          String(e.params.type).split(",").indexOf("number") >= 0) {
        boundsOfInfinity(e).forEach(function (b) { found.push({ parts: parts, e: b }); });
        return;
      }
      if (e.keyword === "additionalProperties") {  // one error per object, its keys listed
        var key = e.instancePath + " " + e.schemaPath;
        if (extras.has(key)) { extras.get(key).names.push(e.params.additionalProperty); return; }
        var merged = { parts: parts, e: e, names: [e.params.additionalProperty] };
        extras.set(key, merged);
        found.push(merged);
        return;
      }
      found.push({ parts: parts, e: e });
    });
    var rows = found.map(function (item, order) {
      var e = item.e, text;
      if (item.names) {
        var written = keysOf(e.data, doc, e.instancePath);
        var names = item.names.slice().sort(function (a, b) { return written.indexOf(a) - written.indexOf(b); });
        text = format("additionalProperties", { names: names.map(function (n) { return shown(n); }).join(", ") });
      } else {
        text = describe(e, doc, item.parts);
      }
      var rank = facts.keyword_order.indexOf(e.keyword);
      return { at: position(doc, item.parts), rank: rank < 0 ? facts.keyword_order.length : rank,
        order: order, line: line(item.parts, text) };
    });
    rows.sort(function (a, b) {
      return compareLists(a.at, b.at) || (a.rank - b.rank) || (a.order - b.order);
    });
    var count = rows.length;
    reduced.maps.forEach(function (shortened, pointer) {  // errors of elements left out
      var inside = found.filter(function (item) {
        return pointerOf(item.parts).indexOf(pointer + "/") === 0;
      }).length;
      count += shortened.errors - inside;
    });
    return { lines: listed(rows.map(function (r) { return r.line; }), count), count: count };
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

  function headerErrors(parsed, tier, d) {
    var doc = parsed.value, out = [];
    // the seed as Python reads it: an integer beyond 2**53 keeps every digit
    var seed = parsed.ints.has("/seed") ? parsed.ints.get("/seed") : String(doc.seed);
    keysOf(doc.model, parsed, "/model").forEach(function (key) {
      var value = doc.model[key];
      if (typeof value === "string" && loneSurrogate(value) >= 0) {
        out.push(line(["model", key], format("lone_surrogate", { at: loneSurrogate(value) })));
      }
    });
    // an earlier minor release whose cohorts' public tables this one keeps is graded as its own
    if (doc.data_version !== d.version && (d.compatible || []).indexOf(doc.data_version) < 0) {
      out.push(line(["data_version"], format("data_version", { given: jsonString(doc.data_version),
        release: jsonString(d.version), plain: doc.data_version })));
    }
    if (doc.tier !== tier) {
      out.push(line(["tier"], format("tier", { given: jsonString(doc.tier), tier: jsonString(tier),
        hint: doc.tier === "unfrozen" ? M.unfrozen_hint : "" })));
    }
    var expected = facts.variant_hashes[doc.variant];
    if (doc.variant_hash !== expected) {
      out.push(line(["variant_hash"], format("variant_hash", { given: jsonString(doc.variant_hash),
        variant: jsonString(doc.variant), expected: jsonString(expected) })));
    }
    var seeds = Object.keys(d.cohorts[doc.variant] || {}).map(Number).sort(function (x, y) { return x - y; });
    var holders = facts.frozen_seeds.filter(function (pair) {
      return pair[1].indexOf(doc.seed) >= 0 && pair[0] !== tier;
    }).map(function (pair) { return pair[0]; });
    if (seeds.indexOf(doc.seed) < 0 && holders.length) {
      out.push(line(["tier"], format("tier_of_seed", { tier: jsonString(tier), tier_name: tier,
        variant: doc.variant, seed: seed, other: holders[0], seeds: jsonText(seeds) })));
    } else if (seeds.indexOf(doc.seed) < 0) {
      out.push(line(["seed"], format("seed", { tier: tier, variant: doc.variant, seed: seed,
        seeds: jsonText(seeds) })));
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

  function arrays(block, path, parsed, pointer) {
    var out = [];
    keysOf(block, parsed, pointer).forEach(function (key) {
      var value = block[key];
      if (Array.isArray(value)) out.push([path.concat([key]), value]);
      else if (value && typeof value === "object") {
        out = out.concat(arrays(value, path.concat([key]), parsed, pointerChild(pointer, key)));
      }
    });
    return out;
  }

  function few(values) {
    var shownPart = values.slice(0, L.show).join(", ");
    return values.length > L.show ? format("few", { shown: shownPart, more: values.length - L.show }) : shownPart;
  }

  function idErrors(name, split, ids, expected) {
    if (ids.length === expected.length && ids.every(function (v, k) { return v === expected[k]; })) return [];
    var at = new Map();
    expected.forEach(function (id, k) { at.set(id, k); });
    var hits = new Array(expected.length).fill(0), unknown = [];
    ids.forEach(function (id) {
      if (at.has(id)) hits[at.get(id)]++; else unknown.push(id);
    });
    if (!unknown.length && ids.length === expected.length && hits.every(function (h) { return h <= 1; })) return [];
    var out = [], where = [name, "subject_id"], counts = new Map();
    ids.forEach(function (id) { counts.set(id, (counts.get(id) || 0) + 1); });
    var dupes = [];
    counts.forEach(function (n, id) { if (n > 1) dupes.push(id); });
    if (dupes.length) out.push(line(where, format("duplicate_ids", { ids: few(dupes) })));
    var missing = expected.filter(function (id, k) { return hits[k] === 0; });
    if (missing.length) out.push(line(where, format("missing_ids", { count: missing.length, split: split, ids: few(missing) })));
    if (unknown.length) out.push(line(where, format("unknown_ids", { count: unknown.length, split: split, ids: few(unknown) })));
    return out;
  }

  function blockErrors(name, block, cohort, parsed) {
    var out = [], list = arrays(block, [], parsed, "/" + name);
    var lengths = new Set(list.map(function (a) { return a[1].length; }));
    if (lengths.size > 1) {
      out.push(line([name], format("lengths", { detail: list.map(function (a) {
        return format("length_of", { path: shownPointer([name].concat(a[0])), count: a[1].length });
      }).join(", ") })));
    }
    list.forEach(function (a) {
      var path = a[0], values = a[1];
      if (path[path.length - 1] === "subject_id" || typeof values[0] === "string") return;
      var bad = [];
      values.forEach(function (x, k) { if (!isFinite(x)) bad.push(k); });
      if (bad.length) out.push(line([name].concat(path, [bad[0]]), format("not_finite", { count: bad.length })));
    });
    var split = facts.block_splits[name];
    if (split && "subject_id" in block) {
      out = out.concat(idErrors(name, split, block.subject_id, expand(cohort[split])));
    }
    if ("source" in block && "target" in block && lengths.size === 1) {
      var source = block.source, target = block.target, loops = [];
      source.forEach(function (s, k) { if (s === target[k]) loops.push(k); });
      if (loops.length) {
        out.push(line([name, "source", loops[0]], format("self_loop", { node: jsonString(source[loops[0]]), count: loops.length })));
      }
      var seen = new Map();
      for (var k = 0; k < source.length; k++) {
        var pair = JSON.stringify([source[k], target[k]]);
        if (seen.has(pair)) {
          out.push(line([name, "source", k], format("repeated_edge", { source: jsonString(source[k]),
            target: jsonString(target[k]), first: seen.get(pair) })));
          break;
        }
        seen.set(pair, k);
      }
    }
    return out;
  }

  function incompleteTaskErrors(present) {
    var out = [];
    present.forEach(function (block) {
      var users = facts.tasks.filter(function (t) { return t[1].indexOf(block) >= 0; });
      var complete = users.some(function (t) { return t[1].every(function (b) { return present.indexOf(b) >= 0; }); });
      if (users.length && !complete) {
        var needs = new Set();
        users.forEach(function (t) { t[1].forEach(function (b) { if (present.indexOf(b) < 0) needs.add(b); }); });
        out.push(line([block], format("incomplete_task", { needs: Array.from(needs).sort().join(", "),
          users: users.map(function (t) { return t[0]; }).join(", ") })));
      }
    });
    return out;
  }

  // ---- One file, in two steps: read it (parse and schema), then check it against a tier's
  // facts (the caller may fetch them for the header `read` returns) -------------------
  var state = null;

  function failed(name, err) {
    if (err instanceof Invalid) {
      return { file: name, valid: false, stage: err.stage, count: err.count, errors: err.errors };
    }
    return { file: name, valid: false, stage: "error", count: 1,
      errors: ["the checker could not check this file: " + err] };
  }

  // bytes (gunzipped by the caller) -> {verdict} when invalid, else {header}
  function read(name, bytes) {
    state = null;
    try {
      var doc = parse(decode(bytes));
      var schema = schemaErrors(doc);
      if (schema.count) throw new Invalid("schema", schema.lines, schema.count);
      var value = doc.value;
      state = { name: name, doc: doc };
      return { header: { tier: (facts.descriptor_tier || {})[value.tier] || value.tier,
        variant: value.variant, seed: value.seed, data_version: value.data_version } };
    } catch (err) {
      return { verdict: failed(name, err) };
    }
  }

  // the second layer for the file `read` accepted; `tiers`: tier -> facts (default: all)
  function finish(tiers) {
    var name = state.name, doc = state.doc, value = doc.value;
    tiers = tiers || facts.tiers;
    var tier = (facts.descriptor_tier || {})[value.tier] || value.tier;
    try {
      if (!(tier in tiers)) {
        return { file: name, valid: false, stage: "usage", count: 1, errors: ["this checker holds " +
          "no facts for the " + value.tier + " tier: check the file with `icgbench validate`"] };
      }
      var errors = headerErrors(doc, tier, tiers[tier]);
      if (errors.length) throw new Invalid("semantic", listed(errors, errors.length), errors.length);
      var cohort = tiers[tier].cohorts[value.variant][String(value.seed)];
      var present = keysOf(value, doc, "").filter(function (b) { return facts.task_blocks.indexOf(b) >= 0; });
      errors = incompleteTaskErrors(present);
      present.forEach(function (b) { errors = errors.concat(blockErrors(b, value[b], cohort, doc)); });
      if (errors.length) throw new Invalid("semantic", listed(errors, errors.length), errors.length);
      return { file: name, valid: true, stage: null, count: 0, errors: [], variant: value.variant,
        seed: value.seed, tier: value.tier, blocks: present.slice().sort() };
    } catch (err) {
      return failed(name, err);
    }
  }

  function checkBytes(name, bytes) {
    var first = read(name, bytes);
    return first.verdict || finish();
  }

  function base64Bytes(text) {
    var alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    var clean = text.replace(/[^A-Za-z0-9+/]/g, ""), out = new Uint8Array(Math.floor(clean.length * 3 / 4));
    var bits = 0, value = 0, at = 0;
    for (var i = 0; i < clean.length; i++) {
      value = (value << 6) | alphabet.indexOf(clean[i]);
      bits += 6;
      if (bits >= 8) { bits -= 8; out[at++] = (value >> bits) & 0xff; }
    }
    return out.subarray(0, at);
  }

  return { read: read, finish: finish, checkBytes: checkBytes, base64Bytes: base64Bytes };
};

