// Validate JSON documents against a JSON Schema (draft-07) with ajv, for ICg-Bench's
// cross-implementation test. Usage: node validate.js SCHEMA DOC [DOC ...]
// Prints one JSON array: [{"document": path, "valid": bool, "errors": [...]}, ...].
"use strict";
const fs = require("fs");
const Ajv = require("ajv");

const [schemaPath, ...documents] = process.argv.slice(2);
if (!schemaPath || documents.length === 0) {
  console.error("usage: node validate.js SCHEMA DOC [DOC ...]");
  process.exit(2);
}
const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
const verdicts = documents.map((path) => {
  const valid = validate(JSON.parse(fs.readFileSync(path, "utf8")));
  const errors = (validate.errors || []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  return { document: path, valid: Boolean(valid), errors };
});
process.stdout.write(JSON.stringify(verdicts) + "\n");
