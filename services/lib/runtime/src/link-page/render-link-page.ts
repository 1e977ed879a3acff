import { createHash } from "node:crypto";
import { escapeHtml } from "../pages/escape-html.js";
import { PAGE_STYLE, PAGE_STYLE_SOURCE } from "../pages/page-style.js";

/**
 * Polls the status URL (same origin, no credentials) and shows the label of each status; at a
 * final status it stops and hides the QR code and the button. Data comes from data-* attributes,
 * so the script is a constant, allowed by its hash.
 */
const SCRIPT = `
(() => {
  const el = document.getElementById("status");
  const labels = JSON.parse(el.dataset.labels);
  const final = JSON.parse(el.dataset.final);
  const tones = JSON.parse(el.dataset.tones);
  const show = (status) => {
    el.textContent = labels[status] || status;
    el.dataset.status = status;
    el.dataset.tone = tones[status] || "";
    if (final.includes(status)) for (const id of ["qr", "open", "hint"]) document.getElementById(id)?.setAttribute("hidden", "");
  };
  const poll = async () => {
    try {
      const response = await fetch(el.dataset.statusUrl, { cache: "no-store", credentials: "omit" });
      if (response.ok) {
        const body = await response.json();
        show(body.status);
        if (final.includes(body.status)) return;
      }
    } catch {}
    setTimeout(poll, 2000);
  };
  if (!final.includes(el.dataset.status)) setTimeout(poll, 2000);
})();
`;

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** The page's Content-Security-Policy: its own hashed style and script, status fetches to its own origin. */
export const LINK_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_SOURCE}`,
  `script-src ${hashOf(SCRIPT)}`,
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export interface LinkPageStatus {
  /** The status now (the page's first paint). */
  current: string;
  /** URL (relative to the page, same origin) answering `{ "status": "<status>" }`, polled every two seconds. */
  url: string;
  /** What the page says for each status. */
  labels: Record<string, string>;
  /** Statuses after which nothing changes: polling stops, the QR code and the button go. */
  final: readonly string[];
  /** Colour of a status: `ok` (green) or `bad` (red); others are plain. */
  tones?: Record<string, "ok" | "bad">;
}

export interface LinkPageInput {
  title: string;
  /** One sentence under the title. */
  intro: string;
  /** The deep link: the QR code's content and the same-device button's target. */
  link: string;
  /** The link's QR code as SVG markup (`renderQrSvg`). */
  qrSvg: string;
  /** The label of the same-device button. */
  openLabel: string;
  status: LinkPageStatus;
  /** When the link stops working (ISO 8601), shown as is. */
  expiresAt: string;
}

/**
 * The public page of a deep link: its QR code (cross-device), a button opening the link on this
 * device (same-device), and the live status. It shows no claim values and nothing the link
 * itself does not already carry; scripts and styles are inline and allowed by hash (LINK_PAGE_CSP).
 */
export function renderLinkPage(input: LinkPageInput): string {
  const { status } = input;
  const isFinal = status.final.includes(status.current);
  const hidden = isFinal ? " hidden" : "";
  const json = (value: unknown) => escapeHtml(JSON.stringify(value));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(input.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main class="center">
<h1>${escapeHtml(input.title)}</h1>
<p id="hint"${hidden}>${escapeHtml(input.intro)}</p>
<div id="qr" class="qr" role="img" aria-label="QR code of the wallet link"${hidden}>${input.qrSvg}</div>
<p><a id="open" class="open" href="${escapeHtml(input.link)}"${hidden}>${escapeHtml(input.openLabel)}</a></p>
<p id="status" role="status" aria-live="polite" data-status="${escapeHtml(status.current)}" data-tone="${escapeHtml(status.tones?.[status.current] ?? "")}" data-status-url="${escapeHtml(status.url)}" data-labels="${json(status.labels)}" data-final="${json(status.final)}" data-tones="${json(status.tones ?? {})}">${escapeHtml(status.labels[status.current] ?? status.current)}</p>
<p class="muted">Valid until <time datetime="${escapeHtml(input.expiresAt)}">${escapeHtml(input.expiresAt)}</time></p>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
