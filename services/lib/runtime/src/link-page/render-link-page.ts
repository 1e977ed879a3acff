import { createHash } from "node:crypto";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML content and attribute values: every dynamic value of the page goes through it. */
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

/** The page's one stylesheet (light and dark, phone widths), inline and allowed by its hash. */
const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0a5bd3;--accent-fg:#fff;--ok:#1a7f37;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4493f8;--accent-fg:#0d1117;--ok:#3fb950;--bad:#f85149}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:28rem;margin:1.5rem auto;padding:1.25rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem;text-align:center}
h1{font-size:1.375rem;line-height:1.25;margin:0 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.875rem}
.qr{display:inline-block;background:#fff;padding:.5rem;border-radius:.5rem;margin:.75rem 0}
.qr svg{display:block;width:min(78vw,20rem);height:auto}
.open{display:inline-block;font-weight:600;padding:.75rem 1.5rem;border-radius:.5rem;background:var(--accent);color:var(--accent-fg);text-decoration:none;margin:.5rem 0}
.open:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
#status{font-weight:600;margin-top:1rem}
#status[data-tone=ok]{color:var(--ok)}
#status[data-tone=bad]{color:var(--bad)}
[hidden]{display:none!important}
@media (max-width:30rem){main{margin:0;border:0;border-radius:0;min-height:100vh}}
`;

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
  `style-src ${hashOf(STYLE)}`,
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
<style>${STYLE}</style>
</head>
<body>
<main>
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
