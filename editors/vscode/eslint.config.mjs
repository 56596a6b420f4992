// ESLint (flat config) for the extension: typescript-eslint's recommended
// rules, and the boundary of src/core — it runs outside VS Code (the unit
// tests run it under plain Node), so it must not import "vscode".
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/", "media/", "node_modules/", "e2e/node_modules/", "e2e/out/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [{ name: "vscode", message: "src/core is editor-independent and unit-tested under Node: no vscode import." }] }],
    },
  },
  {
    files: ["src/webview/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^\\.\\./core/(?!protocol|slash)", message: "The webview bundles only the protocol's types and slash completion." }] }],
    },
  },
  // The e2e driver runs under Node; the functions it evaluates in the page run in the browser.
  { files: ["e2e/**/*.mjs", "*.mjs"], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
);
