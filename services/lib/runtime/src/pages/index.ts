/**
 * `@attesto/runtime/pages`: what the server-rendered pages people see share: one stylesheet (light,
 * dark, phones) allowed by its hash, and HTML escaping.
 */
export { escapeHtml } from "./escape-html.js";
export { PAGE_STYLE, PAGE_STYLE_SOURCE } from "./page-style.js";
