// Validate JSON documents against a JSON Schema (draft-07) with ajv: the check anyone can
// run without Python. Usage: node validate.js SCHEMA DOC [DOC ...]
// Prints one JSON array: [{"document": path, "valid": bool, "errors": [...]}, ...].
// Exit 0 when every document is valid, 1 when any is invalid or is not readable JSON,
// 2 on a usage error or an unreadable schema.
"use strict";
const fs = require("fs");
const Ajv = require("ajv");

const [schemaPath, ...documents] = process.argv.slice(2);
if (!schemaPath || documents.length === 0) {
  console.error("usage: node validate.js SCHEMA DOC [DOC ...]");
  process.exit(2);
}
let validate;
try {
  const ajv = new Ajv({ allErrors: true, strict: true });
  validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
} catch (err) {
  console.error(`validate.js: cannot use the schema ${schemaPath}: ${err.message}`);
  process.exit(2);
}
const verdicts = documents.map((path) => {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(path, "utf8"));
  } catch (err) {
    return { document: path, valid: false, errors: [`/ not readable JSON: ${err.message}`] };
  }
  const valid = validate(doc);
  const errors = (validate.errors || []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  return { document: path, valid: Boolean(valid), errors };
});
process.stdout.write(JSON.stringify(verdicts) + "\n");
process.exitCode = verdicts.every((v) => v.valid) ? 0 : 1;
