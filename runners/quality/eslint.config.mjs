// The one ESLint configuration of the code-quality figures (docs/quality.md): ESLint's and
// typescript-eslint's recommended rules, with Node's, browsers' and Jest's globals. Nothing of
// the submission is read: ESLint gets this file with --config (no config lookup) and
// --no-inline-config (no `/* eslint ... */` comments). The packages are loaded from the
// project's node_modules, which runners/quality/tools.py names in RUNNERS_NODE_MODULES.
import { createRequire } from "node:module";
import path from "node:path";

const modules = process.env.RUNNERS_NODE_MODULES;
if (!modules) throw new Error("RUNNERS_NODE_MODULES is not set");
const require = createRequire(path.join(modules, "runners-quality.cjs"));
const js = require("@eslint/js");
const globals = require("globals");
// typescript-eslint loads TypeScript itself (about 2 s): only when there are TypeScript files.
const tseslint = process.env.RUNNERS_ESLINT_TYPESCRIPT === "1" ? require("typescript-eslint") : null;

const SOURCES = ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx", "**/*.ts", "**/*.mts", "**/*.cts", "**/*.tsx"];
const TYPESCRIPT = ["**/*.ts", "**/*.mts", "**/*.cts", "**/*.tsx"];

export default [
  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" } },
  {
    files: SOURCES,
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser, ...globals.jest },
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs" } },
  ...(tseslint ? tseslint.configs.recommended.map((config) => ({ ...config, files: TYPESCRIPT })) : []),
];
